/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_GENL_H
#define _AFW_GENL_H

int afw_genl_init(void);
void afw_genl_exit(void);

#endif /* _AFW_GENL_H */
