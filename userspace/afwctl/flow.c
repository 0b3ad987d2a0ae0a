// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl flow list|add|del|flush|owner|watch, afwctl config [set KEY VALUE...].
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <linux/afw.h>

#include "afwctl.h"
#include "cgroup.h"

/* Where afwctl looks for the cgroups the kernel names by id. */
#define AFWCTL_CGROUP_ROOT "/sys/fs/cgroup"

enum {
	AFWCTL_FLOW_LIST, AFWCTL_FLOW_ADD, AFWCTL_FLOW_DEL, AFWCTL_FLOW_FLUSH, AFWCTL_FLOW_OWNER,
	AFWCTL_FLOW_WATCH
};

static const char *const afwctl_flow_subs[] = {
	[AFWCTL_FLOW_LIST] = "list", [AFWCTL_FLOW_ADD] = "add",
	[AFWCTL_FLOW_DEL] = "del", [AFWCTL_FLOW_FLUSH] = "flush",
	[AFWCTL_FLOW_OWNER] = "owner", [AFWCTL_FLOW_WATCH] = "watch",
};

struct afwctl_flows {
	struct afw_flow_spec *v;
	size_t n, cap;
};

static int afwctl_flows_push(const struct afw_flow_spec *f, void *data)
{
	struct afwctl_flows *flows = data;
	struct afw_flow_spec *v;

	if (flows->n == flows->cap) {
		flows->cap = flows->cap ? flows->cap * 2 : 64;
		v = realloc(flows->v, flows->cap * sizeof(*v));
		if (!v)
			return -1;
		flows->v = v;
	}
	flows->v[flows->n] = *f;
	/* The path was in the dump's message; the listing keeps its own. */
	if (f->owner.exe && !(flows->v[flows->n].owner.exe = strdup(f->owner.exe)))
		return -1;
	flows->n++;
	return 0;
}

static void afwctl_flows_free(struct afwctl_flows *flows)
{
	size_t i;

	for (i = 0; i < flows->n; i++)
		free((char *)flows->v[i].owner.exe);
	free(flows->v);
	flows->v = NULL;
	flows->n = flows->cap = 0;
}

static void afwctl_owner_json(const struct afw_flow_owner *o, struct afw_cgroups *cg)
{
	const char *cgpath;

	printf("{\"uid\":%" PRIu32 ",\"gid\":%" PRIu32 ",\"pid\":%" PRIu32 ",\"comm\":",
	       o->uid, o->gid, o->pid);
	afwctl_json_str(stdout, o->comm);
	printf(",\"exe\":");
	if (o->exe)
		afwctl_json_str(stdout, o->exe);
	else
		printf("null");
	printf(",\"cgroup_id\":%" PRIu64 ",\"cgroup\":", o->cgroup);
	cgpath = o->cgroup_path;
	if (!cgpath && o->cgroup)
		cgpath = afw_cgroup_path(cg, AFWCTL_CGROUP_ROOT, o->cgroup);
	if (cgpath)
		afwctl_json_str(stdout, cgpath);
	else
		printf("null");
	printf(",\"age\":%" PRIu32 ",\"listener\":%s}", o->age, o->listener ? "true" : "false");
}

/* A word for the terminal: control characters and spaces escaped, as \xNN. */
static void afwctl_owner_word(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p <= ' ' || *p == 0x7f || *p == '\\')
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
}

/*
 * "user pid program cgroup": the program is its path, or [comm] without one;
 * an inbound flow's local socket names no process: "- (listener)".
 */
static void afwctl_owner_cols(const struct afw_flow_owner *o, struct afw_cgroups *cg)
{
	const char *cgpath;

	if (!o->known) {
		printf(" - - - -");
		return;
	}
	if (o->listener) {
		printf(" %" PRIu32 " - (listener)", o->uid);
	} else if (o->exe) {
		printf(" %" PRIu32 " %" PRIu32 " ", o->uid, o->pid);
		afwctl_owner_word(o->exe);
	} else {
		printf(" %" PRIu32 " %" PRIu32 " [", o->uid, o->pid);
		afwctl_owner_word(o->comm);
		putchar(']');
	}
	cgpath = o->cgroup ? afw_cgroup_path(cg, AFWCTL_CGROUP_ROOT, o->cgroup) : NULL;
	if (cgpath) {
		putchar(' ');
		afwctl_owner_word(cgpath);
	} else if (o->cgroup) {
		printf(" %" PRIu64, o->cgroup);
	} else {
		printf(" -");
	}
}

static void afwctl_flow_json(const struct afw_flow_spec *f, const struct afwctl_decided *d,
			     bool first, struct afw_cgroups *cg)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], pbuf[8], text[160];
	int af = f->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;

	inet_ntop(af, f->src, src, sizeof(src));
	inet_ntop(af, f->dst, dst, sizeof(dst));
	afw_flow_format(f, text, sizeof(text));
	printf("%s{\"family\":\"%s\",\"proto\":\"%s\",\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\","
	       "\"dport\":%u,\"verdict\":\"%s\",\"timeout\":%" PRIu32 ",\"expires\":%" PRIu32
	       ",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"origin\":\"%s\"",
	       first ? "" : ",", f->family == AFW_FAMILY_IPV6 ? "ipv6" : "ipv4",
	       afw_proto_name(f->proto, pbuf, sizeof(pbuf)), src, f->sport, dst, f->dport,
	       afw_verdict_name(f->verdict), f->timeout, f->expires, f->packets, f->bytes,
	       afw_flow_origin_name(f->origin));
	if (f->echo)
		printf(",\"icmp_id\":%u", f->icmp_id);
	if (f->origin == AFW_FLOW_ORIGIN_RULE)
		printf(",\"rule\":%" PRIu32, f->rule_id);
	if (f->origin == AFW_FLOW_ORIGIN_LEARNED)
		printf(",\"line\":%" PRIu32, f->line);
	if (f->own_queue)
		printf(",\"queue\":%u", f->queue);
	printf(",\"assured\":%s,\"closing\":%s,\"unconfirmed\":%s,\"flow\":",
	       f->state & AFW_FLOW_S_ASSURED ? "true" : "false",
	       f->state & AFW_FLOW_S_CLOSING ? "true" : "false",
	       f->state & AFW_FLOW_S_UNCONFIRMED ? "true" : "false");
	afwctl_json_str(stdout, text);
	/* afwd's strings are JSON already: they go as they came. */
	if (d)
		printf(",\"decision\":%s,\"host\":%s,\"decided_by\":%s", d->decision, d->host,
		       d->by);
	if (f->owner.known) {
		printf(",\"owner\":");
		afwctl_owner_json(&f->owner, cg);
	}
	printf("}");
}

/*
 * Who installed it: afwd or an admin (flow add), the accept rule that saw
 * it start, or the module by a decision afwd taught it (afwd's policy line).
 */
static void afwctl_flow_origin(const struct afw_flow_spec *f, char *buf, size_t len)
{
	if (f->origin == AFW_FLOW_ORIGIN_RULE)
		snprintf(buf, len, "rule %" PRIu32, f->rule_id);
	else if (f->origin == AFW_FLOW_ORIGIN_LEARNED)
		snprintf(buf, len, "afwd line %" PRIu32, f->line);
	else if (f->origin == AFW_FLOW_ORIGIN_CONTROL)
		snprintf(buf, len, "afwd/admin");
	else
		snprintf(buf, len, "unknown");
}

static const char *afwctl_flow_state(uint32_t state)
{
	/* Not there for its packets yet: what a listing must not hide. */
	if (state & AFW_FLOW_S_UNCONFIRMED)
		return "unconfirmed";
	switch (state & (AFW_FLOW_S_ASSURED | AFW_FLOW_S_CLOSING)) {
	case AFW_FLOW_S_ASSURED:
		return "assured";
	case AFW_FLOW_S_CLOSING:
		return "closing";
	case AFW_FLOW_S_ASSURED | AFW_FLOW_S_CLOSING:
		return "assured,closing";
	}
	return "-";
}

/* A JSON string of afwd's without its quotes: its escapes keep the terminal safe. */
static void afwctl_flow_text(const char *json)
{
	size_t len = strlen(json);

	if (len > 2)
		printf(" %.*s", (int)(len - 2), json + 1);
	else
		printf(" -");
}

/* The columns afwctl_flow_row() fills. */
static void afwctl_flow_header(void)
{
	printf("%-6s %-39s %5s %-39s %5s %-7s %7s %10s %12s %-15s %-15s %s %s %s %s %s %s\n",
	       "proto", "source", "sport", "destination", "dport", "verdict", "expires", "packets",
	       "bytes", "state", "origin", "host", "decided-by", "uid", "pid", "program", "cgroup");
}

static void afwctl_flow_row(const struct afw_flow_spec *f, const struct afwctl_decided *d,
			    struct afw_cgroups *cg)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], pbuf[8], origin[24], verdict[16];
	int af = f->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	char sport[8], dport[8];

	inet_ntop(af, f->src, src, sizeof(src));
	inet_ntop(af, f->dst, dst, sizeof(dst));
	/* An echo's identifier goes both ways, with the request and the reply. */
	snprintf(sport, sizeof(sport), "%u", f->echo ? f->icmp_id : f->sport);
	snprintf(dport, sizeof(dport), "%u", f->echo ? f->icmp_id : f->dport);
	afwctl_flow_origin(f, origin, sizeof(origin));
	/* An inspect flow with a queue of its own says which. */
	snprintf(verdict, sizeof(verdict), f->own_queue ? "%s:%u" : "%s",
		 afw_verdict_name(f->verdict), f->queue);
	printf("%-6s %-39s %5s %-39s %5s %-7s %7" PRIu32 " %10" PRIu64 " %12" PRIu64
	       " %-15s %-15s",
	       afw_proto_name(f->proto, pbuf, sizeof(pbuf)), src, sport, dst, dport,
	       verdict, f->expires, f->packets, f->bytes, afwctl_flow_state(f->state), origin);
	if (d) {
		afwctl_flow_text(d->host);
		afwctl_flow_text(d->by);
	} else {
		printf(" - -");
	}
	afwctl_owner_cols(&f->owner, cg);
	printf("\n");
}

/*
 * afwd's record of the flows it decided, for their host and what decided
 * them. No afwd there is no error: the module's flows are listed all the
 * same; one that would not answer is said on stderr.
 */
static void afwctl_flow_decided(const struct afwctl_req *rq, struct afwctl_decided_set *set)
{
	int ret;

	memset(set, 0, sizeof(*set));
	if (!rq->afwd)
		return;
	ret = afwctl_decided_fetch(rq->afwd, set);
	if (!ret || ret == -ENOENT || ret == -ECONNREFUSED)
		return;
	fprintf(stderr, "afwctl: note: flow list: no host names: afwd at %s: %s\n", rq->afwd,
		ret == -EACCES ? "only root and the group afw may ask it" : strerror(-ret));
}

int afwctl_flow_parse(struct afwctl_req *rq, int argc, char **argv)
{
	size_t i, n = sizeof(afwctl_flow_subs) / sizeof(afwctl_flow_subs[0]);
	struct afw_perr e;
	const char *hint;

	if (argc < 1)
		return afwctl_usage_err("flow: usage: afwctl flow list|add|del|flush|owner|watch ...");
	for (i = 0; i < n; i++)
		if (!strcmp(argv[0], afwctl_flow_subs[i]))
			break;
	if (i == n) {
		hint = afw_suggest(argv[0], afwctl_flow_subs, n);
		return afwctl_usage_err("flow: unknown subcommand '%s'" AFW_HINT_FMT
					"; use list, add, del, flush, owner or watch", argv[0],
					AFW_HINT_ARGS(hint));
	}
	rq->sub = (int)i;
	if (rq->sub == AFWCTL_FLOW_LIST || rq->sub == AFWCTL_FLOW_FLUSH ||
	    rq->sub == AFWCTL_FLOW_WATCH) {
		if (argc != 1)
			return afwctl_usage_err("flow %s takes no arguments", argv[0]);
		return 0;
	}
	if (afw_flow_parse_words(argc - 1, argv + 1, &rq->flow, rq->sub == AFWCTL_FLOW_ADD, &e))
		return afwctl_usage_err("flow %s: %s", argv[0], e.msg);
	return 0;
}

/* Dumps raced by a busy table are tried again this often, then shown as they are. */
#define AFWCTL_FLOW_RETRIES 3

static int afwctl_flow_list(struct afw_nl *nl, const struct afwctl_req *rq)
{
	struct afwctl_flows flows = { 0 };
	struct afw_cgroups cg = { 0 };
	struct afwctl_decided_set set;
	int ret, tries = 0;
	size_t i;

	/* All of it first: a dump that fails halfway prints nothing. */
	do {
		afwctl_flows_free(&flows);
		ret = afw_flow_dump(nl, afwctl_flows_push, &flows);
	} while (ret == -EINTR && tries++ < AFWCTL_FLOW_RETRIES);
	if (ret && ret != -EINTR) {
		afwctl_flows_free(&flows);
		return afwctl_fail("flow list", ret, nl);
	}
	/*
	 * Flows come and go with the traffic: a table that never holds still
	 * is listed all the same, as one dump saw it.
	 */
	if (ret == -EINTR)
		fprintf(stderr, "afwctl: warning: flow list: the flow table changed while it was "
			"listed (%d tries); a flow may be missing or listed twice\n", tries);
	afwctl_flow_decided(rq, &set);
	if (rq->json) {
		printf("[");
		for (i = 0; i < flows.n; i++)
			afwctl_flow_json(&flows.v[i], afwctl_decided_find(&set, &flows.v[i]), i == 0,
					 &cg);
		printf("]\n");
	} else {
		afwctl_flow_header();
		for (i = 0; i < flows.n; i++)
			afwctl_flow_row(&flows.v[i], afwctl_decided_find(&set, &flows.v[i]), &cg);
	}
	afwctl_decided_free(&set);
	afwctl_flows_free(&flows);
	afw_cgroups_free(&cg);
	return 0;
}

/* Who started a flow, even one afwd is still deciding. */
static int afwctl_flow_owner(struct afw_nl *nl, const struct afwctl_req *rq)
{
	struct afw_flow_spec f = rq->flow;
	struct afw_cgroups cg = { 0 };
	struct afw_owner_buf buf;
	const char *cgpath;
	int ret;

	ret = afw_flow_owner_get(nl, &f, &buf);
	if (ret == -ENOENT) {
		fprintf(stderr, "afwctl: flow owner: no owner recorded for this flow (not started "
			"by a local process, or gone 30 s after its flow)\n");
		return 1;
	}
	if (ret)
		return afwctl_fail("flow owner", ret, nl);
	if (rq->json) {
		afwctl_owner_json(&f.owner, &cg);
		printf("\n");
	} else {
		printf("uid %" PRIu32 " gid %" PRIu32 " pid %" PRIu32 " comm ", f.owner.uid,
		       f.owner.gid, f.owner.pid);
		afwctl_owner_word(f.owner.comm[0] ? f.owner.comm : "-");
		printf(" exe ");
		afwctl_owner_word(f.owner.exe ? f.owner.exe : "-");
		cgpath = f.owner.cgroup_path;
		if (!cgpath && f.owner.cgroup)
			cgpath = afw_cgroup_path(&cg, AFWCTL_CGROUP_ROOT, f.owner.cgroup);
		printf(" cgroup ");
		if (cgpath)
			afwctl_owner_word(cgpath);
		else if (f.owner.cgroup)
			printf("%" PRIu64, f.owner.cgroup);
		else
			printf("-");
		printf(" age %" PRIu32 "%s\n", f.owner.age, f.owner.listener ? " listener" : "");
	}
	afw_cgroups_free(&cg);
	return 0;
}

struct afwctl_watch {
	const struct afwctl_req *rq;
	struct afw_cgroups cg;
};

/* One event: "new", "live" or "end", then the flow as flow list shows it. */
static int afwctl_watch_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct afwctl_watch *w = data;
	struct afw_flow_spec f;
	const char *what;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*g))
		return MNL_CB_OK;
	if (g->cmd == AFW_CMD_FLOW_NEW)
		what = "new";
	else if (g->cmd == AFW_CMD_FLOW_DEL)
		what = "end";
	else if (g->cmd == AFW_CMD_FLOW_GET)
		what = "live";	/* a live flow's counts, about every 5 s */
	else
		return MNL_CB_OK;
	/* A message this afwctl cannot read is said, and the rest go on. */
	if (afw_flow_parse_msg(nlh, &f) < 0) {
		fprintf(stderr, "afwctl: flow watch: an event it could not read (%s)\n",
			strerror(errno));
		return MNL_CB_OK;
	}
	if (w->rq->json) {
		printf("{\"event\":\"%s\",\"flow\":", what);
		afwctl_flow_json(&f, NULL, true, &w->cg);
		printf("}\n");
	} else {
		printf("%-4s ", what);
		afwctl_flow_row(&f, NULL, &w->cg);
	}
	return MNL_CB_OK;
}

/*
 * Flows as they are installed and as they end, from the module's multicast
 * group, until interrupted or the output is closed: a line each (-j: a JSON
 * object each). A burst the socket cannot hold is said on stderr.
 */
static int afwctl_flow_watch(struct afw_nl *nl, const struct afwctl_req *rq)
{
	struct afwctl_watch w = { .rq = rq };
	int ret;
	ssize_t n;

	ret = afw_nl_join_flows(nl);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, "afwctl: flow watch: this afw module sends no flow events; "
			"load a newer one\n");
		return 1;
	}
	if (ret)
		return afwctl_fail("flow watch", ret, nl);
	/* A line as soon as it is known: a pipe would hold them back. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!rq->json) {
		printf("%-4s ", "what");
		afwctl_flow_header();
	}
	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (n < 0 && errno == ENOBUFS) {
			fprintf(stderr, "afwctl: flow watch: events lost: they came faster than "
				"they were read\n");
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		mnl_cb_run(nl->buf, (size_t)n, 0, 0, afwctl_watch_cb, &w);
		if (ferror(stdout)) {
			ret = 0;
			break;
		}
	}
	afw_cgroups_free(&w.cg);
	return ret ? afwctl_fail("flow watch", ret, nl) : 0;
}

int afwctl_flow_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	int ret;

	switch (rq->sub) {
	case AFWCTL_FLOW_LIST:
		return afwctl_flow_list(nl, rq);
	case AFWCTL_FLOW_FLUSH:
		ret = afw_flow_flush(nl);
		return ret ? afwctl_fail("flow flush", ret, nl) : 0;
	case AFWCTL_FLOW_ADD:
		ret = afw_flow_add(nl, &rq->flow);
		return ret ? afwctl_fail("flow add", ret, nl) : 0;
	case AFWCTL_FLOW_OWNER:
		return afwctl_flow_owner(nl, rq);
	case AFWCTL_FLOW_WATCH:
		return afwctl_flow_watch(nl, rq);
	default:
		ret = afw_flow_del(nl, &rq->flow);
		return ret ? afwctl_fail("flow del", ret, nl) : 0;
	}
}

enum { AFWCTL_CONFIG_SHOW, AFWCTL_CONFIG_SET };

int afwctl_config_parse(struct afwctl_req *rq, int argc, char **argv)
{
	struct afw_perr e;

	if (!argc) {
		rq->sub = AFWCTL_CONFIG_SHOW;
		return 0;
	}
	if (strcmp(argv[0], "set"))
		return afwctl_usage_err("config: unknown subcommand '%s'; usage: afwctl config "
					"[set KEY VALUE...]", argv[0]);
	rq->sub = AFWCTL_CONFIG_SET;
	argc--;
	argv++;
	if (argc && afwctl_is_yes(argv[0])) {
		rq->yes = true;
		argc--;
		argv++;
	}
	if (afw_config_parse_words(argc, argv, &rq->cfg, &rq->has, &e))
		return afwctl_usage_err("config set: %s", e.msg);
	return 0;
}

/*
 * Whether config set could cut an SSH session: it turns afw on, or, with
 * afw on, makes unknown flows drop or wait for afwd. The guard judges the
 * settings as they will be.
 */
static int afwctl_config_guard(struct afw_nl *nl, struct afwctl_req *rq)
{
	if (!(rq->has & (AFW_CFG_HAS_UNKNOWN | AFW_CFG_HAS_FAIL | AFW_CFG_HAS_ENABLED)))
		return 0;
	return afwctl_settings_guard(nl, rq, &rq->cfg, rq->has, NULL, "config set");
}

static void afwctl_config_line(const char *text, void *data)
{
	(void)data;
	printf("%s\n", text);
}

int afwctl_config_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afw_config c;
	int ret;

	if (rq->sub == AFWCTL_CONFIG_SET) {
		ret = afwctl_config_guard(nl, rq);
		if (ret)
			return ret;
		ret = afw_config_set(nl, &rq->cfg, rq->has);
		return ret ? afwctl_fail("config set", ret, nl) : 0;
	}
	ret = afw_config_get(nl, &c);
	if (ret)
		return afwctl_fail("config", ret, nl);
	if (rq->json) {
		printf("{\"unknown\":\"%s\",\"queue_num\":%u,\"queue_count\":%u,\"fail\":\"%s\","
		       "\"max_flows\":%" PRIu32 ",\"tcp_timeout\":%" PRIu32 ",\"udp_timeout\":%" PRIu32
		       ",\"flow_timeout\":%" PRIu32 ",\"enabled\":%s,\"owners\":%s}\n",
		       afw_unknown_name(c.unknown), c.queue_num, c.queue_count,
		       c.fail_open ? "open" : "closed", c.max_flows, c.tcp_timeout, c.udp_timeout,
		       c.flow_timeout, c.enabled ? "true" : "false", c.owners ? "true" : "false");
		return 0;
	}
	afw_config_format(&c, AFW_CFG_HAS_ALL, "", afwctl_config_line, NULL);
	return 0;
}
