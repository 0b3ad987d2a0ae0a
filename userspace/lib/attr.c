// SPDX-License-Identifier: GPL-2.0
/*
 * Strict attribute decoding, shared by every reply parser.
 */

#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>

#include "attr.h"

/*
 * Payload lengths that libmnl's mnl_attr_validate() takes for certain, by
 * type: a fixed-size type's own size, and any for binary (0xffff). The
 * rest it is asked about.
 */
static const uint16_t afw_attr_sure[MNL_TYPE_MAX] = {
	[MNL_TYPE_U8] = 1, [MNL_TYPE_U16] = 2, [MNL_TYPE_U32] = 4, [MNL_TYPE_U64] = 8,
	[MNL_TYPE_MSECS] = 8, [MNL_TYPE_BINARY] = 0xffff,
};

static bool afw_attr_valid(const struct nlattr *attr, enum mnl_attr_data_type type)
{
	uint16_t sure = type < MNL_TYPE_MAX ? afw_attr_sure[type] : 0;

	if (sure && (sure == 0xffff || attr->nla_len - MNL_ATTR_HDRLEN == sure))
		return true;
	return mnl_attr_validate(attr, type) == 0;
}

int afw_attrs_parse(const void *start, size_t len, const struct afw_attr_set *set)
{
	const struct nlattr *attr = start;
	int rem = (int)len, type;

	memset(set->tb, 0, (set->max + 1) * sizeof(*set->tb));
	/*
	 * libmnl stops quietly at the first attribute that overruns its
	 * container; here that is an error, as is any trailing byte. Its
	 * mnl_attr_ok(), _get_type() and _next() are the netlink header's
	 * arithmetic, written out here: afwd parses every message it reads
	 * so, several a connection, and four calls an attribute showed
	 * among the largest of its costs (docs/performance.md).
	 */
	while (rem >= (int)sizeof(*attr) && attr->nla_len >= sizeof(*attr) &&
	       attr->nla_len <= rem) {
		type = attr->nla_type & NLA_TYPE_MASK;
		if (type <= set->max) {
			if (set->types[type] != MNL_TYPE_UNSPEC &&
			    !afw_attr_valid(attr, set->types[type]))
				return -1;
			set->tb[type] = attr;
		}
		rem -= MNL_ALIGN(attr->nla_len);
		attr = (const struct nlattr *)((const char *)attr + MNL_ALIGN(attr->nla_len));
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
