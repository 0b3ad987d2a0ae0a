// SPDX-License-Identifier: GPL-2.0
/*
 * AFW_CMD_STATUS_GET and AFW_CMD_COUNTERS_RESET.
 */

#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "attr.h"
#include "status.h"

static const enum mnl_attr_data_type afw_status_types[AFW_A_MAX + 1] = {
	[AFW_A_MODULE_VERSION] = MNL_TYPE_NUL_STRING,
	[AFW_A_COUNTERS] = MNL_TYPE_NESTED,
	[AFW_A_MALFORMED] = MNL_TYPE_U64,
	[AFW_A_DROPPED] = MNL_TYPE_U64,
	[AFW_A_QUEUED] = MNL_TYPE_U64,
	[AFW_A_ACTIVE] = MNL_TYPE_U8,
	[AFW_A_UNSERVED_DROPPED] = MNL_TYPE_U64,
	[AFW_A_UNSERVED_PASSED] = MNL_TYPE_U64,
};

static const enum mnl_attr_data_type afw_counters_types[AFW_COUNTERS_A_MAX + 1] = {
	[AFW_COUNTERS_A_HOOK] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type afw_hook_types[AFW_HOOK_A_MAX + 1] = {
	[AFW_HOOK_A_FAMILY] = MNL_TYPE_U8,
	[AFW_HOOK_A_DIRECTION] = MNL_TYPE_U8,
	[AFW_HOOK_A_PACKETS] = MNL_TYPE_U64,
	[AFW_HOOK_A_BYTES] = MNL_TYPE_U64,
};

static int afw_hook_parse(const struct nlattr *nest, struct afw_hook_stat *h)
{
	const struct nlattr *tb[AFW_HOOK_A_MAX + 1];
	const struct afw_attr_set set = { AFW_HOOK_A_MAX, afw_hook_types, tb };

	if (afw_attrs_parse_nested(nest, &set) < 0)
		return -1;
	if (!tb[AFW_HOOK_A_FAMILY] || !tb[AFW_HOOK_A_DIRECTION] ||
	    !tb[AFW_HOOK_A_PACKETS] || !tb[AFW_HOOK_A_BYTES]) {
		errno = EBADMSG;
		return -1;
	}
	h->family = mnl_attr_get_u8(tb[AFW_HOOK_A_FAMILY]);
	h->direction = mnl_attr_get_u8(tb[AFW_HOOK_A_DIRECTION]);
	h->packets = mnl_attr_get_u64(tb[AFW_HOOK_A_PACKETS]);
	h->bytes = mnl_attr_get_u64(tb[AFW_HOOK_A_BYTES]);
	return 0;
}

int afw_status_parse(const struct nlmsghdr *nlh, struct afw_status *st)
{
	const struct nlattr *tb[AFW_A_MAX + 1], *counters[AFW_COUNTERS_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_status_types, tb };
	const struct afw_attr_set cset = { AFW_COUNTERS_A_MAX, afw_counters_types, counters };
	const struct nlattr *hook;

	memset(st, 0, sizeof(*st));
	if (afw_attrs_parse_msg(nlh, &set) < 0)
		return MNL_CB_ERROR;
	if (!tb[AFW_A_MODULE_VERSION] || !tb[AFW_A_COUNTERS]) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	/* Checks the nest's layout; the hooks are walked below. */
	if (afw_attrs_parse_nested(tb[AFW_A_COUNTERS], &cset) < 0)
		return MNL_CB_ERROR;
	strncpy(st->module_version, mnl_attr_get_str(tb[AFW_A_MODULE_VERSION]),
		sizeof(st->module_version) - 1);
	if (tb[AFW_A_MALFORMED])
		st->malformed = mnl_attr_get_u64(tb[AFW_A_MALFORMED]);
	if (tb[AFW_A_DROPPED])
		st->dropped = mnl_attr_get_u64(tb[AFW_A_DROPPED]);
	if (tb[AFW_A_QUEUED])
		st->queued = mnl_attr_get_u64(tb[AFW_A_QUEUED]);
	st->active = !tb[AFW_A_ACTIVE] || mnl_attr_get_u8(tb[AFW_A_ACTIVE]);
	st->has_unserved = tb[AFW_A_UNSERVED_DROPPED] && tb[AFW_A_UNSERVED_PASSED];
	if (st->has_unserved) {
		st->unserved_dropped = mnl_attr_get_u64(tb[AFW_A_UNSERVED_DROPPED]);
		st->unserved_passed = mnl_attr_get_u64(tb[AFW_A_UNSERVED_PASSED]);
	}

	mnl_attr_for_each_nested(hook, tb[AFW_A_COUNTERS]) {
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
