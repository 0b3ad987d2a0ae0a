/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_HOOK_H
#define _AFW_HOOK_H

struct net;

int afw_hooks_register(struct net *net);
void afw_hooks_unregister(struct net *net);

#endif /* _AFW_HOOK_H */
