// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of FLOW_GET dump messages: the key as the initiator sees it,
 * the counters, who installed the flow and its state; a rule's flow must
 * name its rule, and a reply this program cannot trust is refused. An
 * inspect flow's own queue: read from words, sent, and read back.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "check.h"
#include "flow.h"
#include "genl_msg.h"

/* What put_flow() leaves out or spoils. */
enum { FL_OK, FL_NO_ORIGIN = 1, FL_NO_RULE_ID = 2, FL_SHORT_STATE = 4, FL_NO_STATE = 8 };

/* The key of a TCP flow from 192.0.2.1:40000 to 198.51.100.2:443. */
static void put_key(struct msg *m)
{
	uint8_t a[4];

	mnl_attr_put_u8(m->nlh, AFW_FLOW_A_FAMILY, AFW_FAMILY_IPV4);
	mnl_attr_put_u8(m->nlh, AFW_FLOW_A_PROTO, 6);
	inet_pton(AF_INET, "192.0.2.1", a);
	mnl_attr_put(m->nlh, AFW_FLOW_A_SRC, 4, a);
	inet_pton(AF_INET, "198.51.100.2", a);
	mnl_attr_put(m->nlh, AFW_FLOW_A_DST, 4, a);
	mnl_attr_put_u16(m->nlh, AFW_FLOW_A_SPORT, 40000);
	mnl_attr_put_u16(m->nlh, AFW_FLOW_A_DPORT, 443);
}

/* A TCP flow from 192.0.2.1:40000 to 198.51.100.2:443, installed by @origin. */
static void put_flow(struct msg *m, uint8_t origin, uint32_t rule_id, uint32_t state,
		     unsigned int damage)
{
	struct nlattr *nest;

	nest = mnl_attr_nest_start(m->nlh, AFW_A_FLOW);
	put_key(m);
	mnl_attr_put_u8(m->nlh, AFW_FLOW_A_VERDICT, AFW_VERDICT_ACCEPT);
	mnl_attr_put_u32(m->nlh, AFW_FLOW_A_TIMEOUT, 86400);
	mnl_attr_put_u32(m->nlh, AFW_FLOW_A_EXPIRES, 86399);
	if (!(damage & FL_NO_ORIGIN))
		mnl_attr_put_u8(m->nlh, AFW_FLOW_A_ORIGIN, origin);
	if (origin == AFW_FLOW_ORIGIN_RULE && !(damage & FL_NO_RULE_ID))
		mnl_attr_put_u32(m->nlh, AFW_FLOW_A_RULE_ID, rule_id);
	if (damage & FL_SHORT_STATE)
		mnl_attr_put_u8(m->nlh, AFW_FLOW_A_STATE, (uint8_t)state);
	else if (!(damage & FL_NO_STATE))
		mnl_attr_put_u32(m->nlh, AFW_FLOW_A_STATE, state);
	mnl_attr_put_u64(m->nlh, AFW_FLOW_A_PACKETS, 12);
	mnl_attr_put_u64(m->nlh, AFW_FLOW_A_BYTES, (1ULL << 40) + 7);
	mnl_attr_nest_end(m->nlh, nest);
}

/* What put_owner() leaves out or spoils. */
enum { OW_OK, OW_NO_PID = 1, OW_EXE_UNTERMINATED = 2, OW_OUTSIDE = 4 };

/* A flow as put_flow() makes it, with an owner nest: curl, run by uid 1000. */
static void put_owner_flow(struct msg *m, unsigned int damage)
{
	struct nlattr *nest, *own;

	nest = mnl_attr_nest_start(m->nlh, AFW_A_FLOW);
	put_key(m);
	own = mnl_attr_nest_start(m->nlh, AFW_FLOW_A_OWNER);
	mnl_attr_put_u32(m->nlh, AFW_OWNER_A_UID, 1000);
	mnl_attr_put_u32(m->nlh, AFW_OWNER_A_GID, 100);
	if (!(damage & OW_NO_PID))
		mnl_attr_put_u32(m->nlh, AFW_OWNER_A_PID, 4242);
	mnl_attr_put_strz(m->nlh, AFW_OWNER_A_COMM, "curl");
	if (damage & OW_EXE_UNTERMINATED)
		mnl_attr_put(m->nlh, AFW_OWNER_A_EXE, 4, "/bin");
	else
		mnl_attr_put_strz(m->nlh, AFW_OWNER_A_EXE, "/usr/bin/curl");
	mnl_attr_put_u64(m->nlh, AFW_OWNER_A_CGROUP, 77);
	mnl_attr_put_u32(m->nlh, AFW_OWNER_A_AGE, 3);
	if (!(damage & OW_OUTSIDE))
		mnl_attr_put_strz(m->nlh, AFW_OWNER_A_CGROUP_PATH, "/user.slice/x.scope");
	mnl_attr_nest_end(m->nlh, own);
	/* The kernel of one draft put the path beside the nest, not in it. */
	if (damage & OW_OUTSIDE)
		mnl_attr_put_strz(m->nlh, AFW_OWNER_A_CGROUP_PATH, "/user.slice/x.scope");
	mnl_attr_nest_end(m->nlh, nest);
}

/* Attribute @type (a u8, u16, u32 or flag) in the flow nest of @m, or -1 when it has none. */
static long sent_attr(const struct msg *m, uint16_t type)
{
	const struct nlattr *top, *a;

	top = mnl_nlmsg_get_payload_offset(m->nlh, sizeof(struct genlmsghdr));
	mnl_attr_for_each_nested(a, top)
		if (mnl_attr_get_type(a) == type)
			return mnl_attr_get_payload_len(a) == 1 ? mnl_attr_get_u8(a) :
			       mnl_attr_get_payload_len(a) == 2 ? mnl_attr_get_u16(a) :
			       mnl_attr_get_u32(a);
	return -1;
}

/* AFW_FLOW_A_FLAGS in the flow nest of @m, or -1 when it has none. */
static long sent_flags(const struct msg *m)
{
	return sent_attr(m, AFW_FLOW_A_FLAGS);
}

/* flow add's words of @line into @f; the error's text into @why. */
static int words(const char *line, struct afw_flow_spec *f, char *why, size_t len)
{
	char buf[256], *w[32], *at;
	struct afw_perr e;
	int n, ret;

	snprintf(buf, sizeof(buf), "%s", line);
	n = afw_split_words(buf, w, 32, &at);
	ret = afw_flow_parse_words(n, w, f, 1, &e);
	snprintf(why, len, "%s", ret ? e.msg : "");
	return ret;
}

int main(void)
{
	struct afw_flow_spec f;
	char text[160];
	struct msg m;
	int failed = 0;

	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_CONTROL, 0, AFW_FLOW_S_ASSURED, FL_OK);
	CHECK(failed, "a flow afwd installed parses",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_OK && f.origin == AFW_FLOW_ORIGIN_CONTROL &&
	      f.rule_id == 0 && f.state == AFW_FLOW_S_ASSURED);
	CHECK(failed, "the key is kept as the kernel sent it, initiator first",
	      f.sport == 40000 && f.dport == 443 && f.proto == 6 && f.family == AFW_FAMILY_IPV4);
	afw_flow_format(&f, text, sizeof(text));
	CHECK(failed, "and reads as flow add takes it",
	      !strcmp(text, "proto tcp from 192.0.2.1 to 198.51.100.2 sport 40000 dport 443 accept"));
	CHECK(failed, "counters and times are read",
	      f.packets == 12 && f.bytes == (1ULL << 40) + 7 && f.timeout == 86400 &&
	      f.expires == 86399);
	CHECK(failed, "origin names", !strcmp(afw_flow_origin_name(AFW_FLOW_ORIGIN_CONTROL), "control") &&
	      !strcmp(afw_flow_origin_name(AFW_FLOW_ORIGIN_RULE), "rule") &&
	      !strcmp(afw_flow_origin_name(AFW_FLOW_ORIGIN_LEARNED), "learned") &&
	      !strcmp(afw_flow_origin_name(7), "unknown"));

	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_RULE, 42, AFW_FLOW_S_ASSURED | AFW_FLOW_S_CLOSING, FL_OK);
	CHECK(failed, "a rule's flow names its rule, and both state bits are read",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_OK && f.origin == AFW_FLOW_ORIGIN_RULE &&
	      f.rule_id == 42 && f.state == (AFW_FLOW_S_ASSURED | AFW_FLOW_S_CLOSING));

	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_RULE, 42, 0, FL_NO_RULE_ID);
	errno = 0;
	CHECK(failed, "a rule's flow without its rule id is refused",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_CONTROL, 0, 0, FL_NO_ORIGIN | FL_NO_STATE);
	CHECK(failed, "without origin and state (an older module): installed by control, no state",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_OK && f.origin == AFW_FLOW_ORIGIN_CONTROL &&
	      f.state == 0);

	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_CONTROL, 0, 1, FL_SHORT_STATE);
	CHECK(failed, "a 1-byte state where 4 are due is refused",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_CONTROL, 0, 0, FL_OK);
	/* The bytes counter claims 8 bytes more than the message holds. */
	m.nlh->nlmsg_len -= 8;
	errno = 0;
	CHECK(failed, "a message cut short inside the flow is refused",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_ERROR && errno == EBADMSG);

	/* What FLOW_NEW and FLOW_DEL send: flags with the verdict only. */
	memset(&f, 0, sizeof(f));
	f.family = AFW_FAMILY_IPV4;
	f.proto = 6;
	f.sport = 1;
	f.dport = 2;
	f.flags = AFW_FLOW_F_ESTABLISHED;
	msg_start(&m, AFW_CMD_FLOW_NEW);
	afw_flow_put(m.nlh, &f, 1);
	CHECK(failed, "FLOW_NEW carries the flow's flags", sent_flags(&m) == AFW_FLOW_F_ESTABLISHED);
	msg_start(&m, AFW_CMD_FLOW_DEL);
	afw_flow_put(m.nlh, &f, 0);
	CHECK(failed, "FLOW_DEL, the key only, does not", sent_flags(&m) == -1);
	f.flags = 0;
	msg_start(&m, AFW_CMD_FLOW_NEW);
	afw_flow_put(m.nlh, &f, 1);
	CHECK(failed, "nor FLOW_NEW without flags", sent_flags(&m) == -1);
	CHECK(failed, "nor a direction or line without AFW_FLOW_F_LEARN",
	      sent_attr(&m, AFW_FLOW_A_DIR) == -1 && sent_attr(&m, AFW_FLOW_A_LINE) == -1);
	f.flags = AFW_FLOW_F_LEARN;
	f.dir = AFW_DIR_FORWARD;
	f.line = 17;
	msg_start(&m, AFW_CMD_FLOW_NEW);
	afw_flow_put(m.nlh, &f, 1);
	CHECK(failed, "a decision to learn carries its direction and policy line",
	      sent_flags(&m) == AFW_FLOW_F_LEARN && sent_attr(&m, AFW_FLOW_A_DIR) == AFW_DIR_FORWARD &&
	      sent_attr(&m, AFW_FLOW_A_LINE) == 17);
	f.flags = 0;

	/* What afwd reads back from a refused request the kernel echoes. */
	memset(&f, 0, sizeof(f));
	f.family = AFW_FAMILY_IPV6;
	f.proto = 17;
	f.src[0] = 0x20;
	f.dst[15] = 1;
	f.sport = 5353;
	f.dport = 53;
	msg_start(&m, AFW_CMD_FLOW_DEL);
	afw_flow_put(m.nlh, &f, 0);
	{
		struct afw_flow_spec back;

		CHECK(failed, "a FLOW_DEL request reads back as a request: its key, no verdict",
		      afw_flow_parse_request(m.nlh, &back) == MNL_CB_OK &&
		      back.family == AFW_FAMILY_IPV6 && back.proto == 17 && back.src[0] == 0x20 &&
		      back.dst[15] == 1 && back.sport == 5353 && back.dport == 53 && !back.verdict);
		CHECK(failed, "but not as a dump message, which has a verdict",
		      afw_flow_parse_msg(m.nlh, &back) == MNL_CB_ERROR);
		f.verdict = AFW_VERDICT_DROP;
		f.timeout = 30;
		msg_start(&m, AFW_CMD_FLOW_NEW);
		afw_flow_put(m.nlh, &f, 1);
		CHECK(failed, "a FLOW_NEW request reads back with its verdict and timeout",
		      afw_flow_parse_request(m.nlh, &back) == MNL_CB_OK &&
		      back.verdict == AFW_VERDICT_DROP && back.timeout == 30 && back.sport == 5353);
	}

	/* An inspect flow's own queue. */
	{
		struct afw_flow_spec back;
		char why[sizeof(((struct afw_perr *)0)->msg)];

		CHECK(failed, "flow add reads an inspect flow's queue",
		      !words("proto udp from 192.0.2.1 to 198.51.100.2 sport 5000 dport 53 inspect "
			     "queue 32768", &f, why, sizeof(why)) &&
		      f.own_queue && f.queue == 32768 && f.verdict == AFW_VERDICT_INSPECT);
		afw_flow_format(&f, text, sizeof(text));
		CHECK(failed, "and prints it back in the same words",
		      !strcmp(text, "proto udp from 192.0.2.1 to 198.51.100.2 sport 5000 dport 53 "
			      "inspect queue 32768"));
		msg_start(&m, AFW_CMD_FLOW_NEW);
		afw_flow_put(m.nlh, &f, 1);
		CHECK(failed, "FLOW_NEW sends it, and it reads back",
		      afw_flow_parse_request(m.nlh, &back) == MNL_CB_OK && back.own_queue &&
		      back.queue == 32768);
		msg_start(&m, AFW_CMD_FLOW_DEL);
		afw_flow_put(m.nlh, &f, 0);
		CHECK(failed, "FLOW_DEL, the key only, does not send it",
		      afw_flow_parse_request(m.nlh, &back) == MNL_CB_OK && !back.own_queue);
		CHECK(failed, "queue 0 is a queue too",
		      !words("proto icmp from 192.0.2.1 to 198.51.100.2 queue 0 inspect", &f, why,
			     sizeof(why)) && f.own_queue && !f.queue);
		CHECK(failed, "a queue with another verdict is refused, and says why",
		      words("proto icmp from 192.0.2.1 to 198.51.100.2 accept queue 3", &f, why,
			    sizeof(why)) && strstr(why, "only an inspect flow"));
		CHECK(failed, "a queue past 65535 is refused",
		      words("proto icmp from 192.0.2.1 to 198.51.100.2 inspect queue 65536", &f, why,
			    sizeof(why)) && strstr(why, "0-65535"));
		CHECK(failed, "a queue given twice is refused",
		      words("proto icmp from 192.0.2.1 to 198.51.100.2 inspect queue 1 queue 2", &f,
			    why, sizeof(why)) && strstr(why, "twice"));
	}

	/* An echo's flow: its identifier, with ICMP of the addresses' family alone. */
	{
		struct afw_flow_spec back;
		char why[sizeof(((struct afw_perr *)0)->msg)];

		CHECK(failed, "flow add reads an echo's identifier",
		      !words("proto icmp from 192.0.2.1 to 198.51.100.2 id 4242 accept", &f, why,
			     sizeof(why)) && f.echo && f.icmp_id == 4242);
		afw_flow_format(&f, text, sizeof(text));
		CHECK(failed, "and prints it back in the same words",
		      !strcmp(text, "proto icmp from 192.0.2.1 to 198.51.100.2 id 4242 accept"));
		msg_start(&m, AFW_CMD_FLOW_DEL);
		afw_flow_put(m.nlh, &f, 0);
		CHECK(failed, "FLOW_DEL sends it, the key's part, and it reads back",
		      sent_attr(&m, AFW_FLOW_A_ICMP_ID) == 4242 &&
		      afw_flow_parse_request(m.nlh, &back) == MNL_CB_OK && back.echo &&
		      back.icmp_id == 4242 && !back.sport && !back.dport);
		CHECK(failed, "identifier 0 is an identifier too",
		      !words("proto icmpv6 from 2001:db8::1 to 2001:db8::2 id 0 drop", &f, why,
			     sizeof(why)) && f.echo && !f.icmp_id);
		CHECK(failed, "without id, an ICMP flow is no echo's",
		      !words("proto icmp from 192.0.2.1 to 198.51.100.2 accept", &f, why,
			     sizeof(why)) && !f.echo);
		CHECK(failed, "an id with another protocol is refused, and says why",
		      words("proto udp from 192.0.2.1 to 198.51.100.2 sport 1 dport 2 id 7 accept", &f,
			    why, sizeof(why)) && strstr(why, "needs proto icmp"));
		CHECK(failed, "so is IPv4's ICMP with IPv6 addresses, naming IPv6's",
		      words("proto icmp from 2001:db8::1 to 2001:db8::2 id 7 accept", &f, why,
			    sizeof(why)) && strstr(why, "needs proto icmpv6"));
		CHECK(failed, "an id past 65535 is refused",
		      words("proto icmp from 192.0.2.1 to 198.51.100.2 id 65536 accept", &f, why,
			    sizeof(why)) && strstr(why, "0-65535"));
	}

	msg_start(&m, AFW_CMD_OWNER_GET);
	put_owner_flow(&m, OW_OK);
	CHECK(failed, "an owner reply gives uid, gid, pid, task, program, cgroup and its path",
	      afw_flow_parse_request(m.nlh, &f) == MNL_CB_OK && f.owner.known &&
	      f.owner.uid == 1000 && f.owner.gid == 100 && f.owner.pid == 4242 &&
	      !strcmp(f.owner.comm, "curl") && !strcmp(f.owner.exe, "/usr/bin/curl") &&
	      f.owner.cgroup == 77 && f.owner.age == 3 &&
	      !strcmp(f.owner.cgroup_path, "/user.slice/x.scope"));
	msg_start(&m, AFW_CMD_FLOW_GET);
	put_flow(&m, AFW_FLOW_ORIGIN_CONTROL, 0, 0, FL_OK);
	CHECK(failed, "a flow without an owner nest has no owner",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_OK && !f.owner.known && !f.owner.exe);
	msg_start(&m, AFW_CMD_OWNER_GET);
	put_owner_flow(&m, OW_NO_PID);
	errno = 0;
	CHECK(failed, "an owner without its pid is refused",
	      afw_flow_parse_request(m.nlh, &f) == MNL_CB_ERROR && errno == EBADMSG);
	msg_start(&m, AFW_CMD_OWNER_GET);
	put_owner_flow(&m, OW_EXE_UNTERMINATED);
	CHECK(failed, "a program's path without its NUL is refused",
	      afw_flow_parse_request(m.nlh, &f) == MNL_CB_ERROR);
	msg_start(&m, AFW_CMD_OWNER_GET);
	put_owner_flow(&m, OW_OUTSIDE);
	CHECK(failed, "an owner's attribute outside its nest is refused (it reads as another)",
	      afw_flow_parse_request(m.nlh, &f) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_FLOW_GET);
	errno = 0;
	CHECK(failed, "a message without a flow is refused",
	      afw_flow_parse_msg(m.nlh, &f) == MNL_CB_ERROR && errno == EBADMSG);
	CHECK(failed, "as a request too",
	      afw_flow_parse_request(m.nlh, &f) == MNL_CB_ERROR && errno == EBADMSG);
	return failed;
}
