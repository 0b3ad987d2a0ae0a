/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_HOOK_H
#define _AFW_HOOK_H

struct afw_net;
struct net;

int afw_hooks_register(struct net *net, struct afw_net *an);
void afw_hooks_unregister(struct net *net, struct afw_net *an);

#endif /* _AFW_HOOK_H */
