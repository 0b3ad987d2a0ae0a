/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict decoding of the attributes the module sends.
 */
#ifndef AFW_ATTR_H
#define AFW_ATTR_H

#include <libmnl/libmnl.h>

/* How to read one attribute set: tb has max + 1 slots. */
struct afw_attr_set {
	int max;
	const enum mnl_attr_data_type *types;
	const struct nlattr **tb;
};

/*
 * Fill set->tb from the attributes at @start. Every known attribute's
 * length is checked against its type, and the attributes must tile the
 * space exactly. Unknown (newer) types are skipped. Returns 0, or -1 with
 * errno set.
 */
int afw_attrs_parse(const void *start, size_t len, const struct afw_attr_set *set);
int afw_attrs_parse_msg(const struct nlmsghdr *nlh, const struct afw_attr_set *set);
int afw_attrs_parse_nested(const struct nlattr *nest, const struct afw_attr_set *set);

#endif /* AFW_ATTR_H */
