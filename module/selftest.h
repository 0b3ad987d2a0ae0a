/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_SELFTEST_H
#define _AFW_SELFTEST_H

/* 0 unless loaded with selftest=1 and the classifier disagrees with itself. */
int afw_selftest(void);

#endif /* _AFW_SELFTEST_H */
