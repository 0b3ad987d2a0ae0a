// SPDX-License-Identifier: GPL-2.0
/*
 * Strict attribute decoding, shared by every reply parser.
 */

#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>

#include "attr.h"

int afw_attrs_parse(const void *start, size_t len, const struct afw_attr_set *set)
{
	const struct nlattr *attr = start;
	int rem = (int)len, type;

	memset(set->tb, 0, (set->max + 1) * sizeof(*set->tb));
	/*
	 * libmnl stops quietly at the first attribute that overruns its
	 * container; here that is an error, as is any trailing byte.
	 */
	while (mnl_attr_ok(attr, rem)) {
		type = mnl_attr_get_type(attr);
		if (type <= set->max) {
			if (set->types[type] != MNL_TYPE_UNSPEC &&
			    mnl_attr_validate(attr, set->types[type]) < 0)
				return -1;
			set->tb[type] = attr;
		}
		rem -= MNL_ALIGN(attr->nla_len);
		attr = mnl_attr_next(attr);
	}
	if (rem != 0) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int afw_attrs_parse_msg(const struct nlmsghdr *nlh, const struct afw_attr_set *set)
{
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr)) {
		errno = EBADMSG;
		return -1;
	}
	return afw_attrs_parse(mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr)),
			       mnl_nlmsg_get_payload_len(nlh) - sizeof(struct genlmsghdr), set);
}

int afw_attrs_parse_nested(const struct nlattr *nest, const struct afw_attr_set *set)
{
	return afw_attrs_parse(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), set);
}
