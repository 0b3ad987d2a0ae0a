// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of STATUS_GET replies: good replies, replies from a newer module,
 * and replies this program must refuse to trust.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "check.h"
#include "genl_msg.h"
#include "status.h"

/* Flags that make put_hooks() produce one kind of damage. */
enum { H_OK, H_NO_PACKETS = 1, H_SHORT_BYTES = 2, H_EXTRA_ATTR = 4 };

static void put_hooks(struct msg *m, unsigned int n, unsigned int damage)
{
	struct nlattr *nest, *hook;
	unsigned int i;

	nest = mnl_attr_nest_start(m->nlh, AFW_A_COUNTERS);
	for (i = 0; i < n; i++) {
		hook = mnl_attr_nest_start(m->nlh, AFW_COUNTERS_A_HOOK);
		mnl_attr_put_u8(m->nlh, AFW_HOOK_A_FAMILY, i < 3 ? AFW_FAMILY_IPV4 : AFW_FAMILY_IPV6);
		mnl_attr_put_u8(m->nlh, AFW_HOOK_A_DIRECTION, i % 3);
		if (!(damage & H_NO_PACKETS))
			mnl_attr_put_u64(m->nlh, AFW_HOOK_A_PACKETS, 1000 + i);
		if (damage & H_SHORT_BYTES)
			mnl_attr_put_u32(m->nlh, AFW_HOOK_A_BYTES, 7);
		else
			mnl_attr_put_u64(m->nlh, AFW_HOOK_A_BYTES, (1ULL << 40) + i);
		if (damage & H_EXTRA_ATTR)
			mnl_attr_put_u32(m->nlh, AFW_HOOK_A_MAX + 1, 42);
		mnl_attr_nest_end(m->nlh, hook);
	}
	mnl_attr_nest_end(m->nlh, nest);
}

int main(void)
{
	struct afw_status st;
	struct msg m;
	int failed = 0, ret;

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	put_hooks(&m, 6, H_OK);
	ret = afw_status_parse(m.nlh, &st);
	CHECK(failed, "a complete reply parses", ret == MNL_CB_OK);
	CHECK(failed, "module version is read", !strcmp(st.module_version, "1.2.3"));
	CHECK(failed, "all six hook counters are read", st.nhooks == 6);
	CHECK(failed, "64-bit counters keep their high bits",
	      st.hooks[5].bytes == (1ULL << 40) + 5 && st.hooks[5].packets == 1005);
	CHECK(failed, "family and direction are read",
	      st.hooks[4].family == AFW_FAMILY_IPV6 && st.hooks[4].direction == AFW_DIR_OUT);
	CHECK(failed, "a module that does not say whether it is active is an older one: active",
	      st.active);
	CHECK(failed, "nor whether it counts what goes to unserved queues: not known, not zero",
	      !st.has_unserved && !st.unserved_dropped && !st.unserved_passed);
	CHECK(failed, "names of family and direction",
	      !strcmp(afw_family_name(st.hooks[4].family), "ipv6") &&
	      !strcmp(afw_direction_name(st.hooks[2].direction), "forward"));

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u32(m.nlh, AFW_A_MAX + 1, 99);
	put_hooks(&m, 6, H_EXTRA_ATTR);
	CHECK(failed, "attributes from a newer module are skipped",
	      afw_status_parse(m.nlh, &st) == MNL_CB_OK && st.nhooks == 6);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u8(m.nlh, AFW_A_ACTIVE, 0);
	put_hooks(&m, 6, H_OK);
	CHECK(failed, "a namespace nothing has configured yet is not active",
	      afw_status_parse(m.nlh, &st) == MNL_CB_OK && !st.active);
	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u8(m.nlh, AFW_A_ACTIVE, 1);
	put_hooks(&m, 6, H_OK);
	CHECK(failed, "a configured one is",
	      afw_status_parse(m.nlh, &st) == MNL_CB_OK && st.active);
	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u32(m.nlh, AFW_A_ACTIVE, 1);
	put_hooks(&m, 6, H_OK);
	CHECK(failed, "an active flag of 4 bytes is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u64(m.nlh, AFW_A_UNSERVED_DROPPED, (1ULL << 40) + 7);
	mnl_attr_put_u64(m.nlh, AFW_A_UNSERVED_PASSED, 9);
	put_hooks(&m, 6, H_OK);
	CHECK(failed, "packets queued where no analyzer serves are read, dropped and passed",
	      afw_status_parse(m.nlh, &st) == MNL_CB_OK && st.has_unserved &&
	      st.unserved_dropped == (1ULL << 40) + 7 && st.unserved_passed == 9);
	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u32(m.nlh, AFW_A_UNSERVED_DROPPED, 7);
	put_hooks(&m, 6, H_OK);
	CHECK(failed, "an unserved count of 4 bytes is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATUS_GET);
	put_hooks(&m, 6, H_OK);
	errno = 0;
	CHECK(failed, "a reply without the version is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put(m.nlh, AFW_A_MODULE_VERSION, 3, "1.2");
	put_hooks(&m, 6, H_OK);
	CHECK(failed, "a version string without its NUL is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	put_hooks(&m, 6, H_SHORT_BYTES);
	CHECK(failed, "a 4-byte value where 8 are due is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	put_hooks(&m, 6, H_NO_PACKETS);
	errno = 0;
	CHECK(failed, "a hook entry missing its packet count is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	put_hooks(&m, AFW_STATUS_MAX_HOOKS + 1, H_OK);
	errno = 0;
	CHECK(failed, "more hook entries than exist are refused, not overflowed",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR && errno == E2BIG);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	mnl_attr_put_u32(m.nlh, AFW_A_COUNTERS, 5);
	CHECK(failed, "counters that are not a nest are refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATUS_GET);
	mnl_attr_put_strz(m.nlh, AFW_A_MODULE_VERSION, "1.2.3");
	put_hooks(&m, 6, H_OK);
	/* The last hook entry claims 8 bytes more than the message holds. */
	m.nlh->nlmsg_len -= 8;
	errno = 0;
	CHECK(failed, "a reply cut short inside the counters is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_STATUS_GET);
	m.nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	errno = 0;
	CHECK(failed, "a reply shorter than the genl header is refused",
	      afw_status_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	return failed;
}
