// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl top: a live view of the flows, the programs and hosts behind
 * them, and afwd's questions, which it answers. Nothing is polled:
 *  - the module's multicast group "flows" says when a flow is installed,
 *    its verdict replaced, and when it ends, with its owner and its last
 *    counts (one dump at start gives the flows already there);
 *  - afwd's control socket ("ask watch") says each decision, with the
 *    host, the l7 protocol and the policy line, and each question and
 *    its end. Being connected makes afwd hold the flows it asks about.
 * Either may be missing (no module here, afwd not running): the view says
 * so and shows the other; afwd is looked for again every two seconds.
 */

#include <arpa/inet.h>
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/afw.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

#include "afwctl.h"

#define AFWCTL_TOP_FLOWS	4096	/* flows kept; the oldest ended go first */
#define AFWCTL_TOP_PROMPTS	64
#define AFWCTL_TOP_KEEP_MS	30000	/* an ended flow stays this long */
#define AFWCTL_TOP_LINE		16384

struct top_flow {
	bool used, ended;
	uint8_t family, proto;		/* AF_INET or AF_INET6 */
	uint8_t src[16], dst[16];	/* client, server */
	uint16_t sport, dport;
	char verdict[16];
	char exe[256];
	char host[128];
	char l7[8];
	char by[96];
	bool has_uid;
	uint32_t uid, pid;
	uint64_t bytes, packets;
	uint64_t born_ms, end_ms;
	uint64_t rate;			/* bytes a second, between the module's last two counts */
	uint64_t counted_ms;		/* when the module last gave its counts */
	bool has_rate;
};

struct top_prompt {
	unsigned long long id;
	char text[700];
	uint64_t due_ms;
};

struct top_group {
	const char *key;
	unsigned int flows, live, refused;
	uint64_t bytes;
};

enum { TOP_FLOWS, TOP_PROGRAMS, TOP_HOSTS };
enum { TOP_SORT_BYTES, TOP_SORT_NEW, TOP_SORT_PROGRAM, TOP_SORT_HOST, TOP_SORT_N };
static const char *const top_sort_names[] = { "bytes", "newest", "program", "host" };
static const char *const top_verdicts[] = { NULL, "accept", "drop", "reject", "inspect" };

struct top {
	const char *afwd_path;
	struct afw_nl ev;		/* the module's events */
	bool module;
	int afwd;			/* afwd's watch connection; -1 */
	uint64_t afwd_retry_ms;
	char line[AFWCTL_TOP_LINE];	/* afwd's partial line */
	size_t line_len;
	struct top_flow *flows;
	struct top_prompt prompts[AFWCTL_TOP_PROMPTS];
	unsigned int nprompts, sel;
	int view, sort, verdict;
	char filter[64];
	bool editing, paused, dirty, lost;
	char status[256];
	struct top_flow **shown;	/* the flows drawn, AFWCTL_TOP_FLOWS */
	struct top_group *groups;	/* the programs or hosts drawn, as many */
};

static uint64_t top_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The same flow, either way round. */
static bool top_same(const struct top_flow *t, uint8_t family, uint8_t proto, const uint8_t *src,
		     uint16_t sport, const uint8_t *dst, uint16_t dport)
{
	if (t->family != family || t->proto != proto)
		return false;
	return (!memcmp(t->src, src, 16) && !memcmp(t->dst, dst, 16) && t->sport == sport &&
		t->dport == dport) ||
	       (!memcmp(t->src, dst, 16) && !memcmp(t->dst, src, 16) && t->sport == dport &&
		t->dport == sport);
}

/* The flow's entry, made if new: the oldest ended one, or the oldest, makes room. */
static struct top_flow *top_flow_get(struct top *t, uint8_t family, uint8_t proto,
				     const uint8_t *src, uint16_t sport, const uint8_t *dst,
				     uint16_t dport)
{
	struct top_flow *f, *room = NULL;
	unsigned int i;

	for (i = 0; i < AFWCTL_TOP_FLOWS; i++) {
		f = &t->flows[i];
		if (f->used && top_same(f, family, proto, src, sport, dst, dport))
			return f;
		if (!f->used) {
			if (!room || room->used)
				room = f;
		} else if (!room || (room->used && ((f->ended && !room->ended) ||
			   (f->ended == room->ended && f->born_ms < room->born_ms)))) {
			room = f;
		}
	}
	memset(room, 0, sizeof(*room));
	room->used = true;
	room->family = family;
	room->proto = proto;
	memcpy(room->src, src, 16);
	memcpy(room->dst, dst, 16);
	room->sport = sport;
	room->dport = dport;
	room->born_ms = top_now_ms();
	return room;
}

static const char *top_kverdict(uint8_t v)
{
	return v <= AFW_VERDICT_MAX && top_verdicts[v + 1] ? top_verdicts[v + 1] : "?";
}

/* A flow from the module: an event or the dump at start. */
static void top_kernel_flow(struct top *t, const struct afw_flow_spec *s, bool end)
{
	uint8_t fam = s->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	struct top_flow *f = top_flow_get(t, fam, s->proto, s->src, s->sport, s->dst, s->dport);
	uint64_t now;

	snprintf(f->verdict, sizeof(f->verdict), "%s", top_kverdict(s->verdict));
	if (s->owner.known) {
		f->has_uid = true;
		f->uid = s->owner.uid;
		f->pid = s->owner.pid;
		if (s->owner.exe)
			snprintf(f->exe, sizeof(f->exe), "%s", s->owner.exe);
		else if (s->owner.listener)
			snprintf(f->exe, sizeof(f->exe), "(listener)");
	}
	/* Between two counts of the module's, the rate; for an ended flow, over its life. */
	now = top_now_ms();
	if (s->bytes >= f->bytes && f->counted_ms && now > f->counted_ms) {
		f->rate = (s->bytes - f->bytes) * 1000u / (now - f->counted_ms);
		f->has_rate = true;
	}
	f->counted_ms = now;
	if (s->bytes > f->bytes)
		f->bytes = s->bytes;
	if (s->packets > f->packets)
		f->packets = s->packets;
	/* A verdict replaced comes as an end, then the flow again: live. */
	if (!end)
		f->ended = false;
	else if (!f->ended) {
		f->ended = true;
		f->end_ms = top_now_ms();
	}
	t->dirty = true;
}

static int top_dump_one(const struct afw_flow_spec *f, void *data)
{
	top_kernel_flow(data, f, false);
	return 0;
}

static int top_event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct afw_flow_spec f;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*g))
		return MNL_CB_OK;
	/* FLOW_GET: a live flow's counts, about every 5 s. */
	if ((g->cmd == AFW_CMD_FLOW_NEW || g->cmd == AFW_CMD_FLOW_DEL ||
	     g->cmd == AFW_CMD_FLOW_GET) &&
	    afw_flow_parse_msg(nlh, &f) == MNL_CB_OK)
		top_kernel_flow(data, &f, g->cmd == AFW_CMD_FLOW_DEL);
	return MNL_CB_OK;
}

static void top_kernel_read(struct top *t)
{
	ssize_t n = recv(mnl_socket_get_fd(t->ev.sock), t->ev.buf, sizeof(t->ev.buf),
			 MSG_DONTWAIT);

	if (n < 0 && errno == ENOBUFS)
		t->lost = true;
	if (n > 0)
		mnl_cb_run(t->ev.buf, (size_t)n, 0, 0, top_event_cb, t);
}

static const char *top_word_verdict(const char *afwd)
{
	if (!strcmp(afwd, "allow"))
		return "accept";
	if (!strcmp(afwd, "deny"))
		return "drop";
	return afwd;
}

/* One of afwd's decisions: the host, the l7 protocol and what decided it. */
static void top_decision(struct top *t, const char *line)
{
	char src[64], dst[64], sport[8], dport[8], l4[8], v[16], tmp[256];
	uint8_t a[16] = { 0 }, b[16] = { 0 };
	struct top_flow *f;
	uint8_t fam;

	afwctl_json_field(line, "src", src, sizeof(src));
	afwctl_json_field(line, "dst", dst, sizeof(dst));
	afwctl_json_field(line, "sport", sport, sizeof(sport));
	afwctl_json_field(line, "dport", dport, sizeof(dport));
	afwctl_json_field(line, "l4", l4, sizeof(l4));
	fam = strchr(src, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, src, a) != 1 || inet_pton(fam, dst, b) != 1)
		return;
	f = top_flow_get(t, fam, !strcmp(l4, "tcp") ? IPPROTO_TCP : !strcmp(l4, "udp") ?
			 IPPROTO_UDP : 0, a, (uint16_t)atoi(sport), b, (uint16_t)atoi(dport));
	/* The record keys the flow by l4 name only for tcp and udp. */
	afwctl_json_field(line, "verdict", v, sizeof(v));
	snprintf(f->verdict, sizeof(f->verdict), "%s", top_word_verdict(v));
	afwctl_json_field(line, "proto", f->l7, sizeof(f->l7));
	afwctl_json_field(line, "sni", f->host, sizeof(f->host));
	if (!f->host[0])
		afwctl_json_field(line, "http_host", f->host, sizeof(f->host));
	if (!f->host[0])
		afwctl_json_field(line, "dns_name", f->host, sizeof(f->host));
	afwctl_json_field(line, "reason", f->by, sizeof(f->by));
	afwctl_json_field(line, "exe", tmp, sizeof(tmp));
	if (tmp[0])
		snprintf(f->exe, sizeof(f->exe), "%s", tmp);
	afwctl_json_field(line, "pid", tmp, sizeof(tmp));
	if (tmp[0])
		f->pid = (uint32_t)strtoul(tmp, NULL, 10);
	afwctl_json_field(line, "uid", tmp, sizeof(tmp));
	if (tmp[0]) {
		f->has_uid = true;
		f->uid = (uint32_t)strtoul(tmp, NULL, 10);
	}
	t->dirty = true;
}

static void top_prompt_add(struct top *t, const char *line)
{
	struct top_prompt *p;
	char id[24], left[16];

	if (t->nprompts == AFWCTL_TOP_PROMPTS)
		return;
	afwctl_json_field(line, "id", id, sizeof(id));
	afwctl_json_field(line, "left_s", left, sizeof(left));
	p = &t->prompts[t->nprompts++];
	p->id = strtoull(id, NULL, 10);
	p->due_ms = top_now_ms() + strtoull(left, NULL, 10) * 1000u;
	afwctl_ask_describe(line, p->text, sizeof(p->text));
	t->dirty = true;
}

static void top_prompt_done(struct top *t, const char *line)
{
	char id[24], dec[16], how[128];
	unsigned long long n;
	unsigned int i;

	afwctl_json_field(line, "id", id, sizeof(id));
	afwctl_json_field(line, "decision", dec, sizeof(dec));
	afwctl_json_field(line, "how", how, sizeof(how));
	n = strtoull(id, NULL, 10);
	for (i = 0; i < t->nprompts; i++) {
		if (t->prompts[i].id != n)
			continue;
		memmove(&t->prompts[i], &t->prompts[i + 1],
			(t->nprompts - i - 1) * sizeof(t->prompts[0]));
		t->nprompts--;
		break;
	}
	if (t->sel >= t->nprompts)
		t->sel = t->nprompts ? t->nprompts - 1 : 0;
	snprintf(t->status, sizeof(t->status), "question %llu: %s (%s)", n, dec, how);
	t->dirty = true;
}

static void top_afwd_line(struct top *t, const char *line)
{
	char ev[16];

	afwctl_json_field(line, "event", ev, sizeof(ev));
	if (!strcmp(ev, "decision"))
		top_decision(t, line);
	else if (!strcmp(ev, "ask"))
		top_prompt_add(t, line);
	else if (!strcmp(ev, "done"))
		top_prompt_done(t, line);
	else if (!strncmp(line, "error", 5))
		snprintf(t->status, sizeof(t->status), "afwd: %.200s", line + 6);
}

static void top_afwd_read(struct top *t)
{
	ssize_t n = read(t->afwd, t->line + t->line_len, sizeof(t->line) - 1 - t->line_len);
	char *nl, *start;

	if (n <= 0) {
		close(t->afwd);
		t->afwd = -1;
		t->nprompts = 0;
		t->line_len = 0;
		t->afwd_retry_ms = top_now_ms() + 2000;
		t->dirty = true;
		return;
	}
	t->line_len += (size_t)n;
	t->line[t->line_len] = '\0';
	start = t->line;
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		top_afwd_line(t, start);
		start = nl + 1;
	}
	t->line_len -= (size_t)(start - t->line);
	memmove(t->line, start, t->line_len + 1);
	/* A line longer than the buffer is not afwd's: dropped. */
	if (t->line_len == sizeof(t->line) - 1)
		t->line_len = 0;
}

/* Answers the selected question: "allow once", "deny always"... */
static void top_answer(struct top *t, const char *verb, const char *scope)
{
	char req[160], reply[256];
	struct pollfd pfd;
	ssize_t n;
	int fd;

	if (!t->nprompts) {
		snprintf(t->status, sizeof(t->status), "no question to answer");
		return;
	}
	snprintf(req, sizeof(req), "ask answer %llu %s %s", t->prompts[t->sel].id, verb, scope);
	fd = afwctl_afwd_connect(t->afwd_path, req, false);
	if (fd < 0) {
		snprintf(t->status, sizeof(t->status), "afwd: %s", strerror(errno));
		return;
	}
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	n = poll(&pfd, 1, 2000) == 1 ? read(fd, reply, sizeof(reply) - 1) : -1;
	close(fd);
	if (n <= 0) {
		snprintf(t->status, sizeof(t->status), "afwd did not answer");
		return;
	}
	reply[n] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	snprintf(t->status, sizeof(t->status), "%s", reply);
}

static void top_human(uint64_t v, char *buf, size_t len)
{
	if (v < 10000)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else if (v < 10000000)
		snprintf(buf, len, "%lluk", (unsigned long long)(v / 1000));
	else if (v < 10000000000ull)
		snprintf(buf, len, "%lluM", (unsigned long long)(v / 1000000));
	else
		snprintf(buf, len, "%lluG", (unsigned long long)(v / 1000000000));
}

static const char *top_prog(const struct top_flow *f)
{
	return f->exe[0] ? f->exe : "-";
}

/* Whether @f passes the filters: the verdict, and the text in its program, host or verdict. */
static bool top_shown(const struct top *t, const struct top_flow *f)
{
	if (!f->used)
		return false;
	if (t->verdict && strcmp(f->verdict, top_verdicts[t->verdict]))
		return false;
	return !t->filter[0] || strstr(f->exe, t->filter) || strstr(f->host, t->filter) ||
	       strstr(f->verdict, t->filter);
}

static int top_cmp(const void *a, const void *b, void *ctx)
{
	const struct top_flow *x = *(const struct top_flow *const *)a;
	const struct top_flow *y = *(const struct top_flow *const *)b;
	const struct top *t = ctx;
	int c;

	switch (t->sort) {
	case TOP_SORT_BYTES:
		return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
	case TOP_SORT_PROGRAM:
		c = strcmp(top_prog(x), top_prog(y));
		return c ? c : x->born_ms < y->born_ms ? 1 : -1;
	case TOP_SORT_HOST:
		c = strcmp(x->host, y->host);
		return c ? c : x->born_ms < y->born_ms ? 1 : -1;
	default:
		return x->born_ms < y->born_ms ? 1 : x->born_ms > y->born_ms ? -1 : 0;
	}
}

static void top_draw_flows(int rows, int cols, struct top_flow **v, unsigned int n)
{
	char dst[INET6_ADDRSTRLEN + 8], addr[INET6_ADDRSTRLEN], bytes[16], rate[16], user[12];
	uint64_t now = top_now_ms(), ms;
	unsigned int i;

	attron(A_BOLD);
	mvprintw(2, 0, "%-8s %-5s %-28s %-6s %-24s %-24s %-7s %6s %7s %s", "VERDICT", "STATE",
		 "PROGRAM", "USER", "DESTINATION", "HOST", "L7", "BYTES", "RATE", "DECIDED BY");
	attroff(A_BOLD);
	for (i = 0; i < n && (int)i + 3 < rows; i++) {
		const struct top_flow *f = v[i];

		inet_ntop(f->family, f->dst, addr, sizeof(addr));
		snprintf(dst, sizeof(dst), f->family == AF_INET6 ? "[%s]:%u" : "%s:%u", addr,
			 f->dport);
		top_human(f->bytes, bytes, sizeof(bytes));
		ms = (f->ended ? f->end_ms : now) - f->born_ms;
		if (f->ended && ms)
			top_human(f->bytes * 1000u / ms, rate, sizeof(rate));
		else if (f->has_rate)
			top_human(f->rate, rate, sizeof(rate));
		else
			snprintf(rate, sizeof(rate), "-");
		if (f->has_uid)
			snprintf(user, sizeof(user), "%u", f->uid);
		else
			snprintf(user, sizeof(user), "-");
		mvprintw(3 + (int)i, 0, "%-8s %-5s %-28.28s %-6s %-24.24s %-24.24s %-7s %6s %5s/s %.*s",
			 f->verdict[0] ? f->verdict : "?", f->ended ? "ended" : "live", top_prog(f),
			 user, dst, f->host[0] ? f->host : "-", f->l7[0] ? f->l7 : "-", bytes, rate,
			 cols > 128 ? cols - 128 : 0, f->by);
		if (f->ended)
			mvchgat(3 + (int)i, 0, -1, A_DIM, 0, NULL);
	}
}

/* The top programs (@hosts false) or hosts of the flows shown, most flows first. */
static void top_draw_groups(struct top *t, int rows, struct top_flow **v, unsigned int n,
			    bool hosts)
{
	struct top_group *g = t->groups;
	unsigned int ng = 0, i, j;
	char bytes[16];
	const char *k;

	for (i = 0; i < n; i++) {
		k = hosts ? (v[i]->host[0] ? v[i]->host : "-") : top_prog(v[i]);
		for (j = 0; j < ng && strcmp(g[j].key, k); j++)
			;
		if (j == ng)
			g[ng++] = (struct top_group){ .key = k };
		g[j].flows++;
		g[j].live += !v[i]->ended;
		g[j].refused += !strcmp(v[i]->verdict, "drop") || !strcmp(v[i]->verdict, "reject");
		g[j].bytes += v[i]->bytes;
	}
	/* Few enough to sort by hand: most flows first. */
	for (i = 1; i < ng; i++)
		for (j = i; j > 0 && g[j].flows > g[j - 1].flows; j--) {
			struct top_group x = g[j];

			g[j] = g[j - 1];
			g[j - 1] = x;
		}
	attron(A_BOLD);
	mvprintw(2, 0, "%-48s %6s %6s %8s %8s", hosts ? "HOST" : "PROGRAM", "FLOWS", "LIVE",
		 "REFUSED", "BYTES");
	attroff(A_BOLD);
	for (i = 0; i < ng && (int)i + 3 < rows; i++) {
		top_human(g[i].bytes, bytes, sizeof(bytes));
		mvprintw(3 + (int)i, 0, "%-48.48s %6u %6u %8u %8s", g[i].key, g[i].flows, g[i].live,
			 g[i].refused, bytes);
	}
}

static void top_draw(struct top *t)
{
	struct top_flow **v = t->shown;
	unsigned int n = 0, live = 0, i;
	uint64_t now = top_now_ms();
	int rows, cols, prows, left;

	getmaxyx(stdscr, rows, cols);
	erase();
	for (i = 0; i < AFWCTL_TOP_FLOWS; i++) {
		struct top_flow *f = &t->flows[i];

		if (f->used && f->ended && now - f->end_ms > AFWCTL_TOP_KEEP_MS)
			f->used = false;
		if (top_shown(t, f)) {
			v[n++] = f;
			live += !f->ended;
		}
	}
	qsort_r(v, n, sizeof(v[0]), top_cmp, t);
	attron(A_REVERSE);
	mvprintw(0, 0, "afw top  %u flows (%u live)  questions %u  %s  %s  sort %s  verdict %s  "
		 "filter %s%s", n, live, t->nprompts,
		 t->module ? "module: events" : "module: none",
		 t->afwd >= 0 ? "afwd: watching" : "afwd: not running", top_sort_names[t->sort],
		 t->verdict ? top_verdicts[t->verdict] : "all", t->filter[0] ? t->filter : "-",
		 t->paused ? "  PAUSED" : "");
	attroff(A_REVERSE);
	mvprintw(1, 0, "1 flows  2 programs  3 hosts  s sort  v verdict  / filter  space pause  "
		 "q quit   questions: a allow  d deny  r reject  A/D always  e until exit  "
		 "m 10 min  Tab next");
	prows = t->nprompts ? (int)(t->nprompts < 5 ? t->nprompts : 5) + 1 : 0;
	left = rows - prows - 1;
	if (t->view == TOP_FLOWS)
		top_draw_flows(left, cols, v, n);
	else
		top_draw_groups(t, left, v, n, t->view == TOP_HOSTS);
	if (prows) {
		attron(A_BOLD);
		mvprintw(left, 0, "questions waiting:");
		attroff(A_BOLD);
		for (i = 0; i < t->nprompts && (int)i < prows - 1; i++) {
			const struct top_prompt *p = &t->prompts[i];

			mvprintw(left + 1 + (int)i, 0, "%s question %llu: %s (%llu s)",
				 i == t->sel ? ">" : " ", p->id, p->text,
				 p->due_ms > now ? (unsigned long long)(p->due_ms - now) / 1000 : 0);
			if (i == t->sel)
				mvchgat(left + 1 + (int)i, 0, -1, A_REVERSE, 0, NULL);
		}
	}
	if (t->editing)
		mvprintw(rows - 1, 0, "filter: %s_", t->filter);
	else
		mvprintw(rows - 1, 0, "%s%s", t->status, t->lost ? "  (module events were lost)" : "");
	refresh();
	t->dirty = false;
}

/* A key; false to quit. */
static bool top_key(struct top *t, int c)
{
	size_t len = strlen(t->filter);

	if (t->editing) {
		if (c == '\n' || c == KEY_ENTER || c == 27)
			t->editing = false;
		else if ((c == KEY_BACKSPACE || c == 127 || c == 8) && len)
			t->filter[len - 1] = '\0';
		else if (c >= 32 && c < 127 && len < sizeof(t->filter) - 1)
			t->filter[len] = (char)c, t->filter[len + 1] = '\0';
		t->dirty = true;
		return true;
	}
	switch (c) {
	case 'q':
		return false;
	case '1':
		t->view = TOP_FLOWS;
		break;
	case '2':
		t->view = TOP_PROGRAMS;
		break;
	case '3':
		t->view = TOP_HOSTS;
		break;
	case 's':
		t->sort = (t->sort + 1) % TOP_SORT_N;
		break;
	case 'v':
		t->verdict = (t->verdict + 1) % (int)(sizeof(top_verdicts) / sizeof(top_verdicts[0]));
		break;
	case '/':
		t->editing = true;
		t->filter[0] = '\0';
		break;
	case ' ':
		t->paused = !t->paused;
		break;
	case '\t':
	case KEY_DOWN:
		if (t->nprompts)
			t->sel = (t->sel + 1) % t->nprompts;
		break;
	case KEY_UP:
		if (t->nprompts)
			t->sel = (t->sel + t->nprompts - 1) % t->nprompts;
		break;
	case 'a':
		top_answer(t, "allow", "once");
		break;
	case 'd':
		top_answer(t, "deny", "once");
		break;
	case 'r':
		top_answer(t, "reject", "once");
		break;
	case 'A':
		top_answer(t, "allow", "always");
		break;
	case 'D':
		top_answer(t, "deny", "always");
		break;
	case 'e':
		top_answer(t, "allow", "exit");
		break;
	case 'm':
		top_answer(t, "allow", "minutes 10");
		break;
	default:
		return true;
	}
	t->dirty = true;
	return true;
}

int afwctl_top_parse(struct afwctl_req *rq, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return afwctl_usage_err("top takes nothing more");
	if (!rq->afwd)
		return afwctl_usage_err("top: afwd is the initial network namespace's; give --afwd "
					"PATH for another");
	return 0;
}

int afwctl_top_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct top t = { .afwd_path = rq->afwd, .afwd = -1 };
	struct pollfd pfd[3];
	uint64_t next_draw = 0, now;
	bool go = true;
	int n, c, k;

	(void)nl;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "afwctl: top needs a terminal; 'afwctl flow watch' and "
			"'afwctl ask watch' give the same events as lines\n");
		return 1;
	}
	t.flows = calloc(AFWCTL_TOP_FLOWS, sizeof(*t.flows));
	t.shown = calloc(AFWCTL_TOP_FLOWS, sizeof(*t.shown));
	t.groups = calloc(AFWCTL_TOP_FLOWS, sizeof(*t.groups));
	if (!t.flows || !t.shown || !t.groups) {
		perror("afwctl");
		free(t.flows);
		free(t.shown);
		free(t.groups);
		return 1;
	}
	/* The module's events first, then the flows already there: none falls between. */
	if (afw_nl_open(&t.ev) == 0) {
		if (afw_nl_join_flows(&t.ev) == 0) {
			struct afw_nl dump;

			t.module = true;
			if (afw_nl_open(&dump) == 0) {
				afw_flow_dump(&dump, top_dump_one, &t);
				afw_nl_close(&dump);
			}
		} else {
			afw_nl_close(&t.ev);
		}
	}
	t.afwd = afwctl_afwd_connect(t.afwd_path, "ask watch", false);
	snprintf(t.status, sizeof(t.status), "%s%s", t.module ? "" :
		 "no afw module here (or no right to its events): afwd's decisions only; ",
		 t.afwd < 0 ? "afwd is not answering: looking again every 2 s" : "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	t.dirty = true;
	while (go) {
		now = top_now_ms();
		if (t.afwd < 0 && now >= t.afwd_retry_ms) {
			t.afwd = afwctl_afwd_connect(t.afwd_path, "ask watch", false);
			t.afwd_retry_ms = now + 2000;
			t.dirty |= t.afwd >= 0;
		}
		/* At most five draws a second, and one a second for the clocks. */
		if (!t.paused && (now >= next_draw + 1000 || (t.dirty && now >= next_draw))) {
			top_draw(&t);
			next_draw = now + 200;
		}
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		if (t.module)
			pfd[n++] = (struct pollfd){ .fd = mnl_socket_get_fd(t.ev.sock), .events = POLLIN };
		if (t.afwd >= 0)
			pfd[n++] = (struct pollfd){ .fd = t.afwd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, 200) < 0 && errno != EINTR)
			break;
		for (k = 0; k < n; k++) {
			if (!pfd[k].revents)
				continue;
			if (pfd[k].fd == STDIN_FILENO) {
				while (go && (c = getch()) != ERR)
					go = top_key(&t, c);
			} else if (t.module && pfd[k].fd == mnl_socket_get_fd(t.ev.sock)) {
				top_kernel_read(&t);
			} else if (pfd[k].fd == t.afwd) {
				top_afwd_read(&t);
			}
		}
		/* A paused view still answers a key at once. */
		if (t.paused && t.dirty && pfd[0].revents) {
			t.paused = false;
			top_draw(&t);
			t.paused = true;
			mvprintw(getmaxy(stdscr) - 1, 0, "PAUSED: space to go on");
			refresh();
		}
	}
	endwin();
	if (t.afwd >= 0)
		close(t.afwd);
	if (t.module)
		afw_nl_close(&t.ev);
	free(t.flows);
	free(t.shown);
	free(t.groups);
	return 0;
}
