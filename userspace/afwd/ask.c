// SPDX-License-Identifier: GPL-2.0
/*
 * The ask board (ask.h). The lock is taken by a worker only for flows the
 * policy asks about, and while it has questions waiting; by the main
 * thread for control requests and once a second while answers are kept
 * for a while. Nothing under it waits: the one system call made under it
 * is the main thread's poll() of exited processes, with no timeout.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include "ask.h"
#include "escape.h"
#include "pace.h"
#include "report.h"

int afw_ask_init(struct afw_ask *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->next_id = 1;
	a->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->notify_fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	a->kept = calloc(AFW_ASK_KEPT_MAX, sizeof(*a->kept));
	if (!a->kept) {
		close(a->notify_fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&a->lock, NULL);
	return 0;
}

void afw_ask_destroy(struct afw_ask *a)
{
	unsigned int i;

	if (!a->kept)
		return;
	for (i = 0; i < a->nprompts; i++)
		free(a->prompts[i]);
	for (i = 0; i < a->nkept; i++)
		if (a->kept[i].pidfd >= 0)
			close(a->kept[i].pidfd);
	free(a->kept);
	a->kept = NULL;
	free(a->news);
	close(a->notify_fd);
	pthread_mutex_destroy(&a->lock);
}

/*
 * Whether @k's process has exited. Asked at the match, not only when the
 * timer drops the answer: a process that took the pid meanwhile is another.
 */
static bool afw_ask_exited(const struct afw_ask_kept *k)
{
	struct pollfd pfd = { .fd = k->pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;
}

/* Whether kept answer @k covers @res. Lock held. */
static bool afw_ask_covers(const struct afw_ask_kept *k, const struct afw_result *res, uint64_t now)
{
	if (k->scope == AFW_ASK_MINUTES && now >= k->until_ns)
		return false;
	if (k->exe[0] && (!res->has_owner || strcmp(res->owner_exe, k->exe)))
		return false;
	if (k->scope == AFW_ASK_EXIT && (!res->has_owner || res->owner_pid != k->pid ||
					 afw_ask_exited(k)))
		return false;
	if (k->host[0] && strcasecmp(res->host, k->host))
		return false;
	if (k->by_dst && (res->family != k->family || res->l4proto != k->proto ||
			  res->dport != k->dport || memcmp(res->dst, k->dst, 16)))
		return false;
	return true;
}

static const char *afw_ask_scope_words(const struct afw_ask_kept *k, char *buf, size_t len)
{
	switch (k->scope) {
	case AFW_ASK_EXIT:
		snprintf(buf, len, "until pid %" PRIu32 " exits", k->pid);
		break;
	case AFW_ASK_MINUTES:
		snprintf(buf, len, "for a while");
		break;
	case AFW_ASK_ALWAYS:
		snprintf(buf, len, "always");
		break;
	default:
		snprintf(buf, len, "once");
	}
	return buf;
}

enum afw_decision afw_ask_kept_match(struct afw_ask *a, struct afw_result *res, uint64_t now)
{
	enum afw_decision d = AFW_DECIDE_ASK;
	char words[48];
	unsigned int i;
	size_t n;

	pthread_mutex_lock(&a->lock);
	/* The latest answer first: a person's newer mind wins. */
	for (i = a->nkept; i-- > 0;) {
		if (!afw_ask_covers(&a->kept[i], res, now))
			continue;
		d = a->kept[i].d;
		a->stats.by_kept++;
		n = strlen(res->reason);
		snprintf(res->reason + n, sizeof(res->reason) - n, "; asked: answer to question "
			 "%" PRIu64 " (%s %s)", a->kept[i].id, afw_decision_name(d),
			 afw_ask_scope_words(&a->kept[i], words, sizeof(words)));
		break;
	}
	pthread_mutex_unlock(&a->lock);
	return d;
}

struct afw_ask_prompt *afw_ask_add(struct afw_ask *a, unsigned int worker,
				   const struct afw_result *res, uint64_t now,
				   uint64_t deadline_ns)
{
	struct afw_ask_prompt *pr;

	pthread_mutex_lock(&a->lock);
	if (a->nprompts >= AFW_ASK_MAX) {
		a->stats.full++;
		pthread_mutex_unlock(&a->lock);
		return NULL;
	}
	pr = calloc(1, sizeof(*pr));
	if (!pr) {
		a->stats.full++;
		pthread_mutex_unlock(&a->lock);
		return NULL;
	}
	pr->id = a->next_id++;
	pr->worker = worker;
	pr->born_ns = now;
	pr->deadline_ns = deadline_ns;
	clock_gettime(CLOCK_REALTIME, &pr->born);
	pr->res = *res;
	a->prompts[a->nprompts++] = pr;
	a->stats.asked++;
	pthread_mutex_unlock(&a->lock);
	return pr;
}

/* Whether @p is a packet of @r's flow, either way. */
static bool afw_ask_same_flow(const struct afw_result *r, const struct afw_pkt *p)
{
	struct afw_pkt_key kr, kp;

	if ((r->family == AF_INET6) != (p->ipver == 6) || r->l4proto != p->proto)
		return false;
	/* ICMP by its key: the one ping asked about, in either direction. */
	if (afw_pkt_icmp(p)) {
		afw_result_flow_key(r, &kr);
		afw_pkt_flow_key(p, &kp);
		return !memcmp(&kr, &kp, sizeof(kr));
	}
	if (!memcmp(r->src, p->src, 16) && !memcmp(r->dst, p->dst, 16))
		return !p->has_l4 || (r->sport == p->sport && r->dport == p->dport);
	if (!memcmp(r->src, p->dst, 16) && !memcmp(r->dst, p->src, 16))
		return !p->has_l4 || (r->sport == p->dport && r->dport == p->sport);
	return false;
}

struct afw_ask_prompt *afw_ask_find(struct afw_ask *a, unsigned int worker,
				    const struct afw_pkt *p)
{
	struct afw_ask_prompt *pr = NULL;
	unsigned int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nprompts; i++) {
		if (a->prompts[i]->worker == worker && afw_ask_same_flow(&a->prompts[i]->res, p)) {
			pr = a->prompts[i];
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return pr;
}

struct afw_ask_prompt *afw_ask_take(struct afw_ask *a, unsigned int worker, uint64_t now,
				    enum afw_decision dflt)
{
	struct afw_ask_prompt *pr = NULL;
	unsigned int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nprompts; i++) {
		pr = a->prompts[i];
		if (pr->worker != worker)
			continue;
		if (!pr->answered && pr->deadline_ns <= now) {
			pr->answered = true;
			pr->answer = dflt;
			snprintf(pr->how, sizeof(pr->how), "not answered in time: ask-default");
			a->stats.timed_out++;
		}
		if (pr->answered)
			break;
	}
	if (i == a->nprompts) {
		pthread_mutex_unlock(&a->lock);
		return NULL;
	}
	a->prompts[i] = a->prompts[--a->nprompts];
	pthread_mutex_unlock(&a->lock);
	return pr;
}

uint64_t afw_ask_next_due(struct afw_ask *a, unsigned int worker)
{
	uint64_t due = UINT64_MAX;
	unsigned int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nprompts; i++) {
		if (a->prompts[i]->worker != worker)
			continue;
		/* Answered: due now. */
		if (a->prompts[i]->answered)
			due = 0;
		else if (a->prompts[i]->deadline_ns < due)
			due = a->prompts[i]->deadline_ns;
	}
	pthread_mutex_unlock(&a->lock);
	return due;
}

void afw_ask_count(struct afw_ask *a, uint64_t *field, uint64_t n)
{
	pthread_mutex_lock(&a->lock);
	*field += n;
	pthread_mutex_unlock(&a->lock);
}

/* A word of a path or name that the policy file reads back as it is. */
static bool afw_ask_plain(const char *s, bool path)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (isalnum((unsigned char)*s) || strchr("._-+@", *s) || (path && *s == '/'))
			continue;
		return false;
	}
	return true;
}

int afw_ask_rule_line(const struct afw_ask_kept *k, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	FILE *m = fmemopen(buf, len, "w");
	int bad = 0;

	if (!m)
		return -1;
	if (k->exe[0]) {
		if (!afw_ask_plain(k->exe, true))
			bad = 1;
		fprintf(m, "exe %s ", k->exe);
	}
	if (k->host[0]) {
		if (!afw_ask_plain(k->host, false))
			bad = 1;
		fprintf(m, "host %s ", k->host);
	} else if (k->by_dst) {
		inet_ntop(k->family, k->dst, addr, sizeof(addr));
		fprintf(m, "to %s proto %u ", addr, k->proto);
		if (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP)
			fprintf(m, "dport %u ", k->dport);
	}
	fprintf(m, "%s", afw_decision_name(k->d));
	if (fclose(m) || bad || strlen(buf) + 1 >= len)
		return -1;
	return 0;
}

/* "minutes N" and the like: the words after the verdict. */
static int afw_ask_parse_scope(char **pos, struct afw_ask_kept *k, bool *any, char *msg,
			       size_t msglen)
{
	char *w, *end;
	unsigned long n;

	k->scope = AFW_ASK_ONCE;
	*any = false;
	while ((w = strsep(pos, " ")) != NULL) {
		if (!*w)
			continue;
		if (!strcmp(w, "once")) {
			k->scope = AFW_ASK_ONCE;
		} else if (!strcmp(w, "exit")) {
			k->scope = AFW_ASK_EXIT;
		} else if (!strcmp(w, "always")) {
			k->scope = AFW_ASK_ALWAYS;
		} else if (!strcmp(w, "minutes")) {
			w = strsep(pos, " ");
			errno = 0;
			n = w ? strtoul(w, &end, 10) : 0;
			if (!w || *end || errno || !n || n > AFW_ASK_MINUTES_MAX) {
				snprintf(msg, msglen, "minutes: 1 to %u", AFW_ASK_MINUTES_MAX);
				return -1;
			}
			k->scope = AFW_ASK_MINUTES;
			k->until_ns = afw_now_ns() + (uint64_t)n * 60u * 1000000000u;
		} else if (!strcmp(w, "any")) {
			*any = true;
		} else if (!strcmp(w, "host")) {
			*any = false;
		} else {
			snprintf(msg, msglen, "'%.40s': say once, exit, minutes N or always, "
				 "then host or any", w);
			return -1;
		}
	}
	return 0;
}

/* Room for one more kept answer: the oldest goes. Lock held. */
static struct afw_ask_kept *afw_ask_kept_slot(struct afw_ask *a)
{
	if (a->nkept == AFW_ASK_KEPT_MAX) {
		if (a->kept[0].pidfd >= 0)
			close(a->kept[0].pidfd);
		memmove(&a->kept[0], &a->kept[1], (a->nkept - 1) * sizeof(a->kept[0]));
		a->nkept--;
	}
	return &a->kept[a->nkept];
}

int afw_ask_answer(struct afw_ask *a, const char *args, char *rule, size_t rulelen,
		   char *msg, size_t msglen)
{
	struct afw_ask_prompt *pr = NULL;
	struct afw_ask_kept k = { .pidfd = -1 };
	char buf[160], *pos = buf, *w, *end, words[48];
	unsigned long long id;
	unsigned int i;
	int verdict;
	bool any;

	*rule = '\0';
	snprintf(buf, sizeof(buf), "%s", args);
	w = strsep(&pos, " ");
	errno = 0;
	id = w ? strtoull(w, &end, 10) : 0;
	if (!w || !*w || *end || errno) {
		snprintf(msg, msglen, "say: answer ID allow|deny|reject [once|exit|minutes N|always] "
			 "[host|any]");
		return -1;
	}
	w = strsep(&pos, " ");
	verdict = !w ? -1 : !strcmp(w, "allow") ? AFW_DECIDE_ALLOW :
		  !strcmp(w, "deny") ? AFW_DECIDE_DENY : !strcmp(w, "reject") ? AFW_DECIDE_REJECT : -1;
	if (verdict < 0) {
		snprintf(msg, msglen, "'%.20s': the answer is allow, deny or reject", w ? w : "");
		return -1;
	}
	k.d = (enum afw_decision)verdict;
	if (afw_ask_parse_scope(&pos, &k, &any, msg, msglen))
		return -1;
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nprompts; i++)
		if (a->prompts[i]->id == id && !a->prompts[i]->answered)
			pr = a->prompts[i];
	if (!pr) {
		pthread_mutex_unlock(&a->lock);
		snprintf(msg, msglen, "no question %llu waits (answered, or its time ran out)", id);
		return -1;
	}
	/*
	 * A program whose path was cut is not one an answer may be kept by:
	 * another path with the same beginning would share it.
	 */
	if (k.scope != AFW_ASK_ONCE && pr->res.has_owner && pr->res.owner_exe_cut) {
		pthread_mutex_unlock(&a->lock);
		snprintf(msg, msglen, "question %llu: its program's path is longer than afwd keeps "
			 "answers by (%zu bytes); answer once, or write a policy rule", id,
			 sizeof(k.exe) - 1);
		return -1;
	}
	k.id = pr->id;
	if (pr->res.has_owner)
		snprintf(k.exe, sizeof(k.exe), "%s", pr->res.owner_exe);
	if (k.scope != AFW_ASK_ONCE && any && !k.exe[0]) {
		pthread_mutex_unlock(&a->lock);
		snprintf(msg, msglen, "question %llu names no program: answer for its host", id);
		return -1;
	}
	if (k.scope == AFW_ASK_EXIT && (!pr->res.has_owner || !pr->res.owner_pid)) {
		pthread_mutex_unlock(&a->lock);
		snprintf(msg, msglen, "question %llu names no process to wait for", id);
		return -1;
	}
	if (!any && pr->res.host[0]) {
		snprintf(k.host, sizeof(k.host), "%s", pr->res.host);
	} else if (!any) {
		k.by_dst = true;
		k.family = pr->res.family;
		k.proto = pr->res.l4proto;
		memcpy(k.dst, pr->res.dst, 16);
		k.dport = pr->res.dport;
	}
	if (k.scope == AFW_ASK_ALWAYS && afw_ask_rule_line(&k, rule, rulelen)) {
		pthread_mutex_unlock(&a->lock);
		*rule = '\0';
		snprintf(msg, msglen, "question %llu: its program or host is not a plain word for "
			 "the answers file; answer for a while, or write a policy rule", id);
		return -1;
	}
	if (k.scope == AFW_ASK_EXIT) {
		k.pid = pr->res.owner_pid;
		k.pidfd = (int)syscall(SYS_pidfd_open, (pid_t)k.pid, 0);
		/* Gone already: this flow is all the answer covers. */
		if (k.pidfd < 0)
			k.scope = AFW_ASK_ONCE;
	}
	pr->answered = true;
	pr->answer = k.d;
	snprintf(pr->how, sizeof(pr->how), "answered %s %s%s%s", afw_decision_name(k.d),
		 afw_ask_scope_words(&k, words, sizeof(words)),
		 k.scope == AFW_ASK_ONCE ? "" : any ? ", any host" :
		 k.by_dst ? ", this destination" : ", this host",
		 k.exe[0] && k.scope != AFW_ASK_ONCE ? ", this program" : "");
	if (k.scope == AFW_ASK_EXIT || k.scope == AFW_ASK_MINUTES)
		*afw_ask_kept_slot(a) = k, a->nkept++;
	a->stats.answered++;
	snprintf(msg, msglen, "question %llu: %s", id, pr->how);
	i = pr->worker;
	pthread_mutex_unlock(&a->lock);
	return (int)i;
}

void afw_ask_expire(struct afw_ask *a, uint64_t now)
{
	unsigned int i, j;
	bool over;

	pthread_mutex_lock(&a->lock);
	for (i = j = 0; i < a->nkept; i++) {
		over = a->kept[i].scope == AFW_ASK_MINUTES && now >= a->kept[i].until_ns;
		if (a->kept[i].scope == AFW_ASK_EXIT)
			over = afw_ask_exited(&a->kept[i]);
		if (over) {
			if (a->kept[i].pidfd >= 0)
				close(a->kept[i].pidfd);
			continue;
		}
		a->kept[j++] = a->kept[i];
	}
	a->nkept = j;
	pthread_mutex_unlock(&a->lock);
}

bool afw_ask_has_kept(struct afw_ask *a)
{
	bool any;

	pthread_mutex_lock(&a->lock);
	any = a->nkept > 0;
	pthread_mutex_unlock(&a->lock);
	return any;
}

static const char *afw_ask_dir_name(uint8_t dir)
{
	switch (dir) {
	case AFW_FDIR_IN:
		return "in";
	case AFW_FDIR_OUT:
		return "out";
	case AFW_FDIR_FORWARD:
		return "forward";
	default:
		return "unknown";
	}
}

void afw_ask_prompt_json(FILE *out, const struct afw_ask_prompt *pr, bool done)
{
	const struct afw_result *r = &pr->res;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	uint64_t now = afw_now_ns();

	if (done) {
		fprintf(out, "{\"event\":\"done\",\"id\":%" PRIu64 ",\"decision\":\"%s\",\"how\":",
			pr->id, afw_decision_name(pr->answer));
		afw_json_string(out, pr->how);
		fputs("}\n", out);
		return;
	}
	inet_ntop(r->family, r->src, src, sizeof(src));
	inet_ntop(r->family, r->dst, dst, sizeof(dst));
	fprintf(out, "{\"event\":\"ask\",\"id\":%" PRIu64 ",\"time\":%lld,\"left_s\":%" PRIu64 ","
		"\"dir\":\"%s\",\"proto\":%u,\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\","
		"\"dport\":%u,\"l7\":\"%s\",\"host\":",
		pr->id, (long long)pr->born.tv_sec,
		pr->deadline_ns > now ? (pr->deadline_ns - now) / 1000000000u : 0,
		afw_ask_dir_name(r->dir), r->l4proto, src, r->sport, dst, r->dport,
		afw_l7_name(r->l7));
	afw_json_string(out, r->host);
	if (r->has_uid)
		fprintf(out, ",\"uid\":%" PRIu32, r->uid);
	if (r->has_owner) {
		fprintf(out, ",\"pid\":%" PRIu32 ",\"comm\":", r->owner_pid);
		afw_json_string(out, r->owner_comm);
		fputs(",\"exe\":", out);
		afw_json_string(out, r->owner_exe);
		fputs(",\"cgroup\":", out);
		afw_json_string(out, r->owner_cgroup);
	}
	fputs(",\"reason\":", out);
	afw_json_string(out, r->reason);
	fputs("}\n", out);
}

void afw_ask_list(struct afw_ask *a, FILE *out)
{
	unsigned int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nprompts; i++)
		if (!a->prompts[i]->answered)
			afw_ask_prompt_json(out, a->prompts[i], false);
	pthread_mutex_unlock(&a->lock);
}

/* Queues @len bytes of @text for the watchers. */
static void afw_ask_news(struct afw_ask *a, const char *text, size_t len)
{
	char *n;

	pthread_mutex_lock(&a->lock);
	/* Bounded: a main thread that cannot keep up loses lines, not memory. */
	if (a->news_len + len <= (1u << 20)) {
		n = realloc(a->news, a->news_len + len + 1);
		if (n) {
			memcpy(n + a->news_len, text, len + 1);
			a->news = n;
			a->news_len += len;
		}
	}
	pthread_mutex_unlock(&a->lock);
}

/* A line for the watchers, as @write puts it; false when nobody listens. */
static bool afw_ask_say(struct afw_ask *a, void (*write)(FILE *m, const void *arg, bool flag),
			const void *arg, bool flag)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (!atomic_load(&a->listeners))
		return false;
	m = open_memstream(&text, &len);
	if (!m)
		return false;
	write(m, arg, flag);
	if (!fclose(m))
		afw_ask_news(a, text, len);
	free(text);
	return true;
}

static void afw_ask_write_prompt(FILE *m, const void *pr, bool done)
{
	afw_ask_prompt_json(m, pr, done);
}

/* The log's record, one line, inside an event: its newline goes. */
static void afw_ask_write_decision(FILE *m, const void *res, bool unused)
{
	long at;

	(void)unused;
	fputs("{\"event\":\"decision\",\"record\":", m);
	afw_report_json(m, res, NULL);
	at = ftell(m);
	if (at > 0)
		fseek(m, at - 1, SEEK_SET);
	fputs("}\n", m);
}

bool afw_ask_tell(struct afw_ask *a, const struct afw_ask_prompt *pr, bool done)
{
	return afw_ask_say(a, afw_ask_write_prompt, pr, done);
}

bool afw_ask_tell_decision(struct afw_ask *a, const struct afw_result *res)
{
	return afw_ask_say(a, afw_ask_write_decision, res, false);
}

void afw_ask_kick(struct afw_ask *a)
{
	uint64_t one = 1;

	(void)!write(a->notify_fd, &one, sizeof(one));
}

char *afw_ask_take_news(struct afw_ask *a, size_t *len)
{
	char *text;

	pthread_mutex_lock(&a->lock);
	text = a->news;
	*len = a->news_len;
	a->news = NULL;
	a->news_len = 0;
	pthread_mutex_unlock(&a->lock);
	return text;
}
