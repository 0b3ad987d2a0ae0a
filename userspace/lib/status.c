// SPDX-License-Identifier: GPL-2.0
/*
 * AFW_CMD_STATUS_GET and AFW_CMD_COUNTERS_RESET.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "status.h"

struct afw_attrs {
	const struct nlattr *tb[16];
};

_Static_assert(AFW_A_MAX < 16 && AFW_HOOK_A_MAX < 16,
	       "struct afw_attrs is too small for the attribute sets");

/* Collects attributes by type, rejecting any of a known type but wrong size. */
struct afw_attr_rule {
	int max;
	const enum mnl_attr_data_type *types;
	struct afw_attrs *out;
};

/*
 * libmnl stops quietly at the first attribute that overruns its container;
 * a reply whose attributes do not tile their container exactly is damaged.
 */
static bool afw_attrs_tile(const void *start, size_t len)
{
	const struct nlattr *attr = start;
	int rem = (int)len;

	while (mnl_attr_ok(attr, rem)) {
		rem -= MNL_ALIGN(attr->nla_len);
		attr = mnl_attr_next(attr);
	}
	if (rem == 0)
		return true;
	errno = EBADMSG;
	return false;
}

static bool afw_nest_tiles(const struct nlattr *nest)
{
	return afw_attrs_tile(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest));
}

static int afw_attr_collect(const struct nlattr *attr, void *data)
{
	const struct afw_attr_rule *rule = data;
	int type = mnl_attr_get_type(attr);

	/* Attributes newer than this program are skipped, not fatal. */
	if (type > rule->max)
		return MNL_CB_OK;
	if (rule->types[type] != MNL_TYPE_UNSPEC &&
	    mnl_attr_validate(attr, rule->types[type]) < 0)
		return MNL_CB_ERROR;
	rule->out->tb[type] = attr;
	return MNL_CB_OK;
}

static const enum mnl_attr_data_type afw_status_types[AFW_A_MAX + 1] = {
	[AFW_A_MODULE_VERSION] = MNL_TYPE_NUL_STRING,
	[AFW_A_COUNTERS] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type afw_hook_types[AFW_HOOK_A_MAX + 1] = {
	[AFW_HOOK_A_FAMILY] = MNL_TYPE_U8,
	[AFW_HOOK_A_DIRECTION] = MNL_TYPE_U8,
	[AFW_HOOK_A_PACKETS] = MNL_TYPE_U64,
	[AFW_HOOK_A_BYTES] = MNL_TYPE_U64,
};

static int afw_hook_parse(const struct nlattr *nest, struct afw_hook_stat *h)
{
	struct afw_attrs a = { 0 };
	struct afw_attr_rule rule = {
		.max = AFW_HOOK_A_MAX, .types = afw_hook_types, .out = &a,
	};

	if (!afw_nest_tiles(nest) ||
	    mnl_attr_parse_nested(nest, afw_attr_collect, &rule) < 0)
		return -1;
	if (!a.tb[AFW_HOOK_A_FAMILY] || !a.tb[AFW_HOOK_A_DIRECTION] ||
	    !a.tb[AFW_HOOK_A_PACKETS] || !a.tb[AFW_HOOK_A_BYTES]) {
		errno = EBADMSG;
		return -1;
	}
	h->family = mnl_attr_get_u8(a.tb[AFW_HOOK_A_FAMILY]);
	h->direction = mnl_attr_get_u8(a.tb[AFW_HOOK_A_DIRECTION]);
	h->packets = mnl_attr_get_u64(a.tb[AFW_HOOK_A_PACKETS]);
	h->bytes = mnl_attr_get_u64(a.tb[AFW_HOOK_A_BYTES]);
	return 0;
}

int afw_status_parse(const struct nlmsghdr *nlh, struct afw_status *st)
{
	struct afw_attrs a = { 0 };
	struct afw_attr_rule rule = {
		.max = AFW_A_MAX, .types = afw_status_types, .out = &a,
	};
	const struct nlattr *hook;

	memset(st, 0, sizeof(*st));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!afw_attrs_tile(mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr)),
			    mnl_nlmsg_get_payload_len(nlh) - sizeof(struct genlmsghdr)) ||
	    mnl_attr_parse(nlh, sizeof(struct genlmsghdr), afw_attr_collect, &rule) < 0)
		return MNL_CB_ERROR;
	if (!a.tb[AFW_A_MODULE_VERSION] || !a.tb[AFW_A_COUNTERS]) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!afw_nest_tiles(a.tb[AFW_A_COUNTERS]))
		return MNL_CB_ERROR;
	strncpy(st->module_version, mnl_attr_get_str(a.tb[AFW_A_MODULE_VERSION]),
		sizeof(st->module_version) - 1);

	mnl_attr_for_each_nested(hook, a.tb[AFW_A_COUNTERS]) {
		if (mnl_attr_get_type(hook) != AFW_COUNTERS_A_HOOK)
			continue;
		if (mnl_attr_validate(hook, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		if (st->nhooks == AFW_STATUS_MAX_HOOKS) {
			errno = E2BIG;
			return MNL_CB_ERROR;
		}
		if (afw_hook_parse(hook, &st->hooks[st->nhooks]) < 0)
			return MNL_CB_ERROR;
		st->nhooks++;
	}
	return MNL_CB_OK;
}

static int afw_status_cb(const struct nlmsghdr *nlh, void *data)
{
	return afw_status_parse(nlh, data);
}

int afw_status_get(struct afw_nl *nl, struct afw_status *st)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_STATUS_GET, 0),
			   afw_status_cb, st);
}

int afw_counters_reset(struct afw_nl *nl)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_COUNTERS_RESET, 0),
			   NULL, NULL);
}

const char *afw_family_name(uint8_t family)
{
	switch (family) {
	case AFW_FAMILY_IPV4:
		return "ipv4";
	case AFW_FAMILY_IPV6:
		return "ipv6";
	}
	return "unknown";
}

const char *afw_direction_name(uint8_t direction)
{
	switch (direction) {
	case AFW_DIR_IN:
		return "in";
	case AFW_DIR_OUT:
		return "out";
	case AFW_DIR_FORWARD:
		return "forward";
	}
	return "unknown";
}
