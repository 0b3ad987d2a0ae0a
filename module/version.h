/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_VERSION_H
#define _AFW_VERSION_H

/* Kbuild passes the version from dkms.conf, its single source. */
#ifndef AFW_VERSION
#error "AFW_VERSION must be set by the build"
#endif

#endif /* _AFW_VERSION_H */
