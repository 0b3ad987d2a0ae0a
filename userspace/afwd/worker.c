// SPDX-License-Identifier: GPL-2.0
/*
 * One thread per queue. The module sends both directions of a flow to the
 * same queue, so each worker owns its flows outright and shares nothing on
 * the packet path.
 *
 * Each round handles packets first and local work after, the order that
 * keeps system calls per packet low under load:
 *  0. wait: for a packet when the queue is quiet; under load, for the end
 *     of a short interval, so that packets gather (pace.h);
 *  1. take every waiting packet, up to a batch;
 *  2. decide the whole batch;
 *  3. install the decided flows in the module, in one call, before the
 *     verdicts (a re-injected packet must find its flow there);
 *  4. send all verdicts in one call (with io_uring, the call that waits
 *     for the next round's packets);
 *  5. only then run timers, read refusals, publish counters.
 * A full batch means more is waiting, so the next round does not wait.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <linux/afw.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>

#include "ctl.h"
#include "daemon.h"
#include "escape.h"
#include "pace.h"
#include "pkt.h"

/* The mark of a decided flow for the firewall's chain; 0 for none (inspect). */
static uint32_t afw_worker_mark(const struct afw_worker *w, enum afw_decision d)
{
	uint32_t base = w->d->cfg->mark_base;

	/* The verdict is added to the base: OR would let base 2 turn reject (3) into allow. */
	switch (d) {
	case AFW_DECIDE_ALLOW:
		return base + AFW_MARK_ALLOW;
	case AFW_DECIDE_DENY:
		return base + AFW_MARK_DENY;
	case AFW_DECIDE_REJECT:
		return base + AFW_MARK_REJECT;
	default:
		return 0;
	}
}

static uint32_t afw_worker_idle_s(const struct afw_worker *w)
{
	return w->d->cfg->flow_timeout ? w->d->cfg->flow_timeout : AFW_MODULE_FLOW_TIMEOUT;
}

/* The module's idle timeout for a ping's flow (conntrack's for ICMP), in s. */
#define AFW_WORKER_ECHO_TIMEOUT 30

/* What this worker adds to every flow it installs: timeout and queue. */
static void afw_worker_flow_own(const struct afw_worker *w, struct afw_flow_spec *f, bool head)
{
	f->timeout = w->d->cfg->flow_timeout;
	/*
	 * A ping's flow idles out as the module keeps pings (30 s, or its
	 * flow_timeout if less): a program handed the same identifier later
	 * is judged anew, not carried by a long-finished ping's decision.
	 */
	if (f->echo && f->timeout > AFW_WORKER_ECHO_TIMEOUT)
		f->timeout = 0;
	/* Inspected by its headers alone: they come from the headers queue. */
	if (w->head >= 0 && f->verdict == AFW_VERDICT_INSPECT && head) {
		f->own_queue = true;
		f->queue = (uint16_t)w->head;
	}
}

/* The flow of @rec, as FLOW_NEW gives it to the module. */
static void afw_worker_flow(const struct afw_worker *w, const struct afw_lrec *rec,
			    struct afw_flow_spec *f)
{
	afw_ledger_flow(rec, f);
	afw_worker_flow_own(w, f, afw_lrec_head(rec));
}

/* @f in words, for the log: "tcp 192.0.2.1:40000 -> 198.51.100.2:443". */
static void afw_worker_flow_words(const struct afw_flow_spec *f, char *buf, size_t len)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int fam = f->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	const char *l = fam == AF_INET6 ? "[" : "", *r = fam == AF_INET6 ? "]" : "";

	inet_ntop(fam, f->src, src, sizeof(src));
	inet_ntop(fam, f->dst, dst, sizeof(dst));
	if (f->echo) {
		snprintf(buf, len, "%s %s -> %s echo id=%u",
			 fam == AF_INET6 ? "icmpv6" : "icmp", src, dst, f->icmp_id);
		return;
	}
	snprintf(buf, len, "%s %s%s%s:%u -> %s%s%s:%u",
		 f->proto == IPPROTO_TCP ? "tcp" : f->proto == IPPROTO_UDP ? "udp" : "ip",
		 l, src, r, f->sport, l, dst, r, f->dport);
}

/*
 * Refusals are many when the module's table is full: one line a second at
 * most says how many, and why the last one was refused.
 */
static void afw_worker_refused(const struct afw_kern_refusal *r, void *data)
{
	struct afw_worker *w = data;
	uint64_t now = afw_now_ns();
	struct afw_lrec *rec;
	char words[128];

	if (r->cmd == AFW_CMD_QUEUE_SERVE && w->tell) {
		/* A module older than afwd: served again, its handshakes queued. */
		afw_log_printf(w->log, "afwd: queue %u: the module does not tell new connections' "
			       "handshakes: %s; they cross afwd\n", w->qnum, r->msg);
		w->tell = false;
		w->tell_refused = true;
		w->serve_again = true;
		return;
	}
	if (r->cmd == AFW_CMD_QUEUE_SERVE) {
		afw_log_printf(w->log, "afwd: queue %u: the module did not take the queue as "
			       "served: %s; 'afwctl status' cannot count what it drops there\n",
			       w->qnum, r->msg);
		return;
	}
	/* A flow to delete that the module does not have is what was wanted. */
	if (r->cmd != AFW_CMD_FLOW_NEW)
		return;
	rec = afw_ledger_find(w->ledger, &r->flow);
	if (rec)
		afw_ledger_refused(w->ledger, rec, now);
	w->refusals++;
	if (now - w->refusal_said < 1000000000u)
		return;
	afw_worker_flow_words(&r->flow, words, sizeof(words));
	afw_log_printf(w->log, "afwd: queue %u: the module refused %llu flow(s), the last %s: %s; "
		       "afwd answers their packets and tries again\n", w->qnum,
		       (unsigned long long)w->refusals, words, r->msg);
	w->refusal_said = now;
	w->refusals = 0;
}

/* Hands @rec to the module; false when the module is not there. */
static bool afw_worker_send(struct afw_lrec *rec, void *data)
{
	struct afw_worker *w = data;
	struct afw_flow_spec f;

	afw_worker_flow(w, rec, &f);
	return afw_kern_add(w->kern, &f);
}

/*
 * Whether @p, the packet a TCP flow was decided on, shows its connection
 * past the client's SYN: then the module is told it exists already
 * (AFW_FLOW_F_ESTABLISHED), and takes any SYN on its ports for a new one,
 * to be judged afresh. A flow decided at its SYN is installed ahead of its
 * connection: that SYN, sent again, belongs to it.
 */
static bool afw_worker_established(const struct afw_pkt *p)
{
	return p->proto == IPPROTO_TCP && p->has_l4 &&
	       (p->tcp_flags & (AFW_TCP_SYN | AFW_TCP_ACK)) != AFW_TCP_SYN;
}

/*
 * Whether the module may keep @r's decision for every new connection to
 * the same place (afw_kern_learn()): the policy decided it by the flow's
 * key alone, at a TCP client's SYN, with a verdict the module gives.
 */
static bool afw_worker_learns(const struct afw_worker *w, const struct afw_result *r)
{
	return !w->d->cfg->no_learn && r->keyed && r->l4proto == IPPROTO_TCP &&
	       r->dir >= AFW_FDIR_IN && r->dir <= AFW_FDIR_FORWARD &&
	       (r->decision == AFW_DECIDE_ALLOW || r->decision == AFW_DECIDE_DENY ||
		r->decision == AFW_DECIDE_REJECT);
}

/* The flow of decision @r, as FLOW_NEW or FLOW_DEL names it (an echo's aside). */
static void afw_worker_result_spec(struct afw_flow_spec *f, const struct afw_result *r,
				   bool established)
{
	afw_ledger_spec(f, r->family == AF_INET6 ? 6 : 4, r->l4proto, r->src, r->sport, r->dst,
			r->dport, r->decision, established);
}

/* The first send of @rec, decided as @r says: taught to the module when it may keep it. */
static bool afw_worker_send_new(struct afw_worker *w, const struct afw_result *r,
				struct afw_lrec *rec)
{
	struct afw_flow_spec f;

	if (!afw_worker_learns(w, r))
		return afw_worker_send(rec, w);
	afw_worker_flow(w, rec, &f);
	return afw_kern_learn(w->kern, &f, (uint8_t)(r->dir - AFW_FDIR_IN), r->rule_line);
}

/*
 * Records a decided flow and hands it on: to the module (one FLOW_NEW in
 * the round's batch), or, without it, to the mark the verdict gets. The
 * ledger remembers it for reloads, refusals and the module's return. A
 * flow the module @installed itself (a learned decision's) is recorded
 * only.
 */
static void afw_worker_install(struct afw_worker *w, const struct afw_result *r,
			       bool established, bool head, bool installed)
{
	uint64_t now = afw_now_ns();
	enum afw_lrec_state state;
	struct afw_lrec *rec;

	if (!w->kern)
		state = AFW_LREC_MARKED;
	else if (afw_kern_up(w->kern))
		state = AFW_LREC_SENT;
	else
		state = w->d->marks ? AFW_LREC_MARKED : AFW_LREC_WAIT;
	rec = afw_ledger_put(w->ledger, r, state, now);
	if (rec && established)
		afw_lrec_set_established(rec);
	if (rec)
		afw_lrec_set_head(rec, head);
	if (afw_ledger_lost(w->ledger)) {
		afw_ledger_clear_lost(w->ledger);
		atomic_store(&w->lost, true);
	}
	if (state != AFW_LREC_SENT)
		return;
	if (installed) {
		if (rec)
			afw_ledger_sent(w->ledger, rec, now);
		return;
	}
	if (rec) {
		if (!afw_worker_send_new(w, r, rec))
			afw_ledger_wait(w->ledger, rec, now);
	} else {
		/* No record (no memory): installed all the same, just not remembered. */
		struct afw_flow_spec f;

		afw_worker_result_spec(&f, r, established);
		afw_ledger_spec_echo(&f, r->echo, r->icmp_id, r->icmp_code);
		afw_worker_flow_own(w, &f, head);
		afw_kern_add(w->kern, &f);
	}
}

static unsigned int afw_worker_index(const struct afw_worker *w)
{
	return (unsigned int)(w - w->d->workers);
}

/*
 * The engine's question (afw_engine_opts.ask): the policy says ask about
 * the flow of @res, whose owner the engine looked up (the person asked
 * sees the program, and answers are kept by it). An answer
 * kept for a while may decide; else, with nobody listening, the
 * ask-default does; else the flow is held (afw_worker_hold()).
 */
static enum afw_decision afw_worker_ask(void *ctx, const struct afw_policy *pol,
					struct afw_result *res)
{
	struct afw_worker *w = ctx;
	struct afw_ask *a = &w->d->ask;
	enum afw_decision d;
	size_t n;

	d = afw_ask_kept_match(a, res, afw_now_ns());
	if (d != AFW_DECIDE_ASK)
		return d;
	if (!atomic_load(&a->listeners)) {
		afw_ask_count(a, &a->stats.unheard, 1);
		n = strlen(res->reason);
		snprintf(res->reason + n, sizeof(res->reason) - n,
			 "; nobody listening to ask: ask-default");
		return afw_policy_ask_default(pol);
	}
	return AFW_DECIDE_ASK;
}

static void afw_worker_verdict(struct afw_worker *w, const struct afw_qpkt *qp,
			       enum afw_pass pass, bool decided, bool res_per_packet,
			       enum afw_decision d);

/*
 * A question's end: a person's answer, or the ask-default once its time
 * ran out. Logged as the flow's decision, installed (unless an allowed
 * connection waits for the server's acknowledgement: the engine brings it
 * back), and its held packet let go.
 */
static void afw_worker_ask_apply(struct afw_worker *w, struct afw_ask_prompt *pr)
{
	struct afw_result res = pr->res;
	size_t n = strlen(res.reason);
	int how;

	snprintf(res.reason + n, sizeof(res.reason) - n, "; asked: %s", pr->how);
	res.decision = pr->answer;
	how = afw_engine_answer(w->engine, &res, res.decision);
	res.deferred = how == 0;
	afw_log_result(w->log, &res);
	w->told |= afw_ask_tell_decision(&w->d->ask, &res);
	if (how != 0)
		afw_worker_install(w, &res, pr->established, false, false);
	if (pr->has_held) {
		afw_worker_verdict(w, &pr->held, afw_decision_pass(res.decision), how != 0, false,
				   res.decision);
		afw_queue_release(w->q);
	}
	if (pr->dropped)
		afw_ask_count(&w->d->ask, &w->d->ask.stats.dropped, pr->dropped);
	w->told |= afw_ask_tell(&w->d->ask, pr, true);
	free(pr);
	w->asking--;
}

/*
 * The engine decided ask and nothing answered it at once: a question on
 * the board, and @qp, if the decision came with a packet, held in the
 * queue. Without room on the board, the ask-default. Returns false when
 * the caller is to give @qp its verdict after all (in @res).
 */
static bool afw_worker_hold(struct afw_worker *w, struct afw_result *res,
			    const struct afw_qpkt *qp, bool established)
{
	const struct afw_policy *pol = atomic_load(&w->d->policy);
	uint64_t now = afw_now_ns();
	struct afw_ask_prompt *pr;
	char words[160];
	size_t n;
	FILE *m;

	pr = afw_ask_add(&w->d->ask, afw_worker_index(w), res, now,
			 now + (uint64_t)afw_policy_ask_timeout(pol) * 1000000000u);
	if (!pr) {
		res->decision = afw_policy_ask_default(pol);
		n = strlen(res->reason);
		snprintf(res->reason + n, sizeof(res->reason) - n,
			 "; %u questions wait already: ask-default", AFW_ASK_MAX);
		res->deferred = afw_engine_answer(w->engine, res, res->decision) == 0;
		return false;
	}
	w->asking++;
	pr->established = established;
	if (qp) {
		pr->held = *qp;
		pr->held.data = NULL;
		pr->has_held = true;
		afw_queue_hold(w->q);
	}
	w->told |= afw_ask_tell(&w->d->ask, pr, false);
	words[0] = '\0';
	if (res->host[0] && (m = fmemopen(words, sizeof(words) - 1, "w"))) {
		fputs(" to ", m);
		afw_text_quoted(m, res->host, strlen(res->host));
		fclose(m);
	}
	afw_log_printf(w->log, "afwd: queue %u: ask: question %llu: %s%s%s%s, waiting up to "
		       "%u s\n", w->qnum, (unsigned long long)pr->id,
		       res->has_owner && res->owner_exe[0] ? res->owner_exe : "a flow",
		       words, words[0] ? "" : " (no host name)", res->has_owner ? "" : ", no program",
		       afw_policy_ask_timeout(pol));
	return true;
}

/* Answers given, and questions whose time is up. */
static void afw_worker_ask_work(struct afw_worker *w, uint64_t now)
{
	const struct afw_policy *pol = atomic_load(&w->d->policy);
	struct afw_ask_prompt *pr;

	while (w->asking && (pr = afw_ask_take(&w->d->ask, afw_worker_index(w), now,
					       afw_policy_ask_default(pol))))
		afw_worker_ask_apply(w, pr);
}

/*
 * A packet of a flow held for a question: dropped. Its sender sends it
 * again if it matters; the deciding packet, held, goes first once answered.
 */
static bool afw_worker_asked(struct afw_worker *w, const struct afw_pkt *p,
			     const struct afw_qpkt *qp)
{
	struct afw_ask_prompt *pr = afw_ask_find(&w->d->ask, afw_worker_index(w), p);

	if (!pr)
		return false;
	pr->dropped++;
	afw_queue_verdict(w->q, qp, NF_DROP, 0, false);
	return true;
}

/*
 * An allow that waits for the server (res->kernel_confirm): the module
 * holds it unconfirmed, sent in this round before the verdicts, so that
 * the server's acknowledgement confirms it there and its answer never
 * waits here. Not recorded yet: until the module tells of the
 * confirmation (afw_worker_told()) the engine answers for the flow, and
 * should the module not hold it (gone, full), the flow's packets come
 * here as before.
 */
static void afw_worker_unconfirmed(struct afw_worker *w, const struct afw_result *r)
{
	struct afw_flow_spec f;

	afw_worker_result_spec(&f, r, true);
	afw_worker_flow_own(w, &f, false);
	f.unconfirmed = true;
	f.confirm_ack = r->confirm_ack;
	f.confirm_end = r->confirm_end;
	f.confirm_iif = r->confirm_iif;
	afw_kern_add(w->kern, &f);
}

/* The module's unconfirmed flow of @r, never acknowledged: it goes. */
static void afw_worker_unconfirmed_gone(struct afw_worker *w, const struct afw_result *r)
{
	struct afw_flow_spec f;

	afw_worker_result_spec(&f, r, false);
	afw_kern_del(w->kern, &f);
}

/*
 * Logs a decision, made on packet @p, and hands the flow on; one the module
 * @installed already (a learned decision's) is recorded only.
 */
static void afw_worker_decided(struct afw_worker *w, const struct afw_result *r,
			       const struct afw_pkt *p, bool installed)
{
	if (!r->quiet) {
		afw_log_result(w->log, r);
		w->told |= afw_ask_tell_decision(&w->d->ask, r);
	}
	/*
	 * A packet's own answer (it could not be decoded): no flow to record.
	 * An answered allow the server has not acknowledged: installed when it
	 * does (the engine hands it back).
	 */
	if (r->per_packet || r->deferred)
		return;
	/*
	 * An inspected flow whose headers are all afwd still reads gets its
	 * packets from the headers queue: their first bytes, not 64 KiB each.
	 */
	afw_worker_install(w, r, afw_worker_established(p),
			   w->head >= 0 && r->decision == AFW_DECIDE_INSPECT &&
			   afw_engine_headers_enough(w->engine, p), installed);
}

/*
 * The ledger's record of @p's flow when the ledger, not the engine, is to
 * answer for it (afw_ledger_use(); see afw_worker_known()), else NULL. A
 * record a new connection on its 5-tuple ends is dropped.
 */
static struct afw_lrec *afw_worker_answering(struct afw_worker *w, const struct afw_pkt *p)
{
	struct afw_lrec *rec;

	if (!w->kern || !afw_kern_up(w->kern) || !afw_ledger_count(w->ledger))
		return NULL;
	rec = afw_ledger_find_pkt(w->ledger, p);
	if (!rec)
		return NULL;
	switch (afw_ledger_use(rec, p)) {
	case AFW_LREC_ENGINE:
		return NULL;
	case AFW_LREC_RESTART:
		afw_ledger_drop(w->ledger, rec);
		return NULL;
	case AFW_LREC_ANSWER:
		break;
	}
	return rec;
}

/*
 * Whether @p, a packet the module passed, is of a flow the ledger records
 * and answers (afw_worker_known()): noted as seen, and installed again
 * when its install is overdue.
 */
static bool afw_worker_recorded(struct afw_worker *w, const struct afw_pkt *p)
{
	struct afw_lrec *rec = afw_worker_answering(w, p);

	if (!rec)
		return false;
	afw_ledger_answered(w->ledger, rec, afw_now_ns(), AFW_RESEND_NS);
	return true;
}

/*
 * A connection the module decided by a decision this worker taught it
 * (afw_kern_learn()), told after the fact: judged here as its SYN would
 * have been, so that it is logged, watched and recorded as any other.
 * The same decision: nothing to send. Another one (a reload came between):
 * installed in its place. Not decided at its SYN any more (a rule of the
 * new policy reads it): the module's entry goes, so that the rest of its
 * handshake comes here, where its SYN was read.
 */
static void afw_worker_told(const struct afw_kern_told *t, void *data)
{
	struct afw_worker *w = data;
	const struct afw_policy *pol = atomic_load(&w->d->policy);
	uint8_t head_buf[AFW_PKT_HEAD_MAX];
	size_t orig = t->len;
	struct afw_flow_spec f;
	struct afw_result res;
	struct afw_pkt p;
	bool decided;

	/* The module sends the first bytes: the IP header says how many there were. */
	if (t->len >= 20 && t->packet[0] >> 4 == 4)
		orig = (size_t)t->packet[2] << 8 | t->packet[3];
	else if (t->len >= 40 && t->packet[0] >> 4 == 6)
		orig = 40 + ((size_t)t->packet[4] << 8 | t->packet[5]);
	if (orig < t->len)
		orig = t->len;
	if (afw_pkt_decode_head(&p, head_buf, t->packet, t->len, orig) != AFW_PKT_OK ||
	    t->dir > AFW_DIR_FORWARD) {
		w->told_bad++;
		return;
	}
	p.csum = AFW_CSUM_TRUSTED;
	p.indev = t->iif;
	p.outdev = t->oif;
	p.dir = (uint8_t)(AFW_FDIR_IN + t->dir);
	/*
	 * A handshake packet of a flow handed on already: the module did not
	 * hold it yet (its install is in this round's send) or any more, and
	 * the ledger sees to that, as for a queued packet.
	 */
	if (t->handshake && afw_worker_recorded(w, &p))
		return;
	res.kernel_confirm = res.kernel_confirmed = false;
	afw_engine_packet(w->engine, pol, &p, t->has_uid, t->uid, afw_now_ns(), &res, &decided);
	/*
	 * A bare handshake packet that passed: the engine has read what its
	 * TCP checks need of it. Its own verdict is moot; a decision the
	 * flow got by it (its ends settle it) is installed, to hold the
	 * flow's later packets. An ask has no packet to hold: the flow's
	 * next packet, which the module queues, is held for it. The server's
	 * packet that confirmed the flow the module held settles it there:
	 * recorded as installed. Had the engine's view differed (the flow
	 * was decided otherwise meanwhile), the decision is installed.
	 */
	if (t->handshake) {
		if (decided && res.decision != AFW_DECIDE_ASK && !res.per_packet)
			afw_worker_decided(w, &res, &p, t->confirmed && res.kernel_confirmed);
		return;
	}
	if (decided && res.decision != AFW_DECIDE_ASK && !res.per_packet) {
		afw_worker_decided(w, &res, &p, afw_ledger_verdict(res.decision) == t->verdict);
		return;
	}
	afw_ledger_spec(&f, p.ipver, p.proto, p.src, p.sport, p.dst, p.dport,
			AFW_DECIDE_DENY, false);
	afw_ledger_spec_echo(&f, p.echo, p.echo_id, p.icmp_code);
	afw_kern_del(w->kern, &f);
}

/*
 * A decision the timer made: logged now, installed by the flow's next
 * packet (the engine hands it back quiet), so that with or without the
 * module it is installed the same way.
 */
static void afw_worker_expired(const struct afw_result *r, void *data)
{
	struct afw_worker *w = data;
	struct afw_result res;

	/* Asked without a packet at hand: held from the flow's next one. */
	if (r->decision == AFW_DECIDE_ASK) {
		res = *r;
		if (afw_worker_hold(w, &res, NULL, false))
			return;
		afw_log_result(w->log, &res);
		w->told |= afw_ask_tell_decision(&w->d->ask, &res);
		return;
	}
	if (r->kernel_unconfirmed && w->kern)
		afw_worker_unconfirmed_gone(w, r);
	afw_log_result(w->log, r);
	w->told |= afw_ask_tell_decision(&w->d->ask, r);
}

/*
 * What the kernel says of a packet's transport checksum (NFQA_SKB_INFO).
 * Not filled in yet (CSUMNOTREADY): the stack or the card will. Received,
 * and not flagged as unverified: the kernel took it as good, and the
 * local stack will not check it again. Otherwise the field is what the
 * receiver will check: afwd checks it too.
 */
static uint8_t afw_worker_csum(const struct afw_qpkt *qp)
{
	if (qp->skbinfo & NFQA_SKB_CSUMNOTREADY)
		return AFW_CSUM_TRUSTED;
	if (qp->hook <= NF_INET_FORWARD && !(qp->skbinfo & NFQA_SKB_CSUM_NOTVERIFIED))
		return AFW_CSUM_TRUSTED;
	return AFW_CSUM_CHECK;
}

/*
 * Which way the packet goes, seen from this host, by the hook that queued
 * it: prerouting cannot tell a packet for this host from one it routes.
 */
static uint8_t afw_worker_dir(const struct afw_qpkt *qp)
{
	switch (qp->hook) {
	case NF_INET_LOCAL_IN:
		return AFW_FDIR_IN;
	case NF_INET_LOCAL_OUT:
		return AFW_FDIR_OUT;
	case NF_INET_FORWARD:
		return AFW_FDIR_FORWARD;
	case NF_INET_POST_ROUTING:
		return qp->indev ? AFW_FDIR_FORWARD : AFW_FDIR_OUT;
	default:
		return AFW_FDIR_UNKNOWN;
	}
}

/*
 * The packet's verdict. With the module, a rejected flow's deciding packet
 * is re-injected so that the module, which now knows the flow, answers it.
 * With marks, decided flows are marked and re-injected: the firewall's own
 * rules save the mark to conntrack and act on it (docs/afwd.md).
 */
static void afw_worker_verdict(struct afw_worker *w, const struct afw_qpkt *qp,
			       enum afw_pass pass, bool decided, bool res_per_packet,
			       enum afw_decision d)
{
	uint32_t mark = decided && !res_per_packet && w->d->marks ? afw_worker_mark(w, d) : 0;

	if (!mark) {
		if (pass == AFW_PASS_REJECT && w->kern && afw_kern_up(w->kern))
			afw_queue_verdict(w->q, qp, NF_REPEAT, 0, false);
		else
			afw_queue_verdict(w->q, qp, pass == AFW_PASS_ACCEPT ? NF_ACCEPT : NF_DROP,
					  0, false);
		return;
	}
	afw_queue_verdict(w->q, qp, NF_REPEAT, (qp->mark & ~(uint32_t)AFW_MARK_MASK) | mark,
			  true);
}

/*
 * A packet the module queued for a flow afwd has handed it. Most mean the
 * module does not hold the flow (it refused it, was flushed, or unloaded
 * and loaded again), so afwd answers by the recorded verdict, packet by
 * packet, until an install takes. Some the module sends on purpose, and
 * they go to the engine (afw_ledger_use()): an inspected flow's, a QUIC
 * Initial on an allowed UDP flow, which may start another connection, and
 * a SYN, which starts one, to be judged afresh. A flow silent for the idle
 * time has no record left, and goes there too. Returns true when answered.
 */
static bool afw_worker_known(struct afw_worker *w, const struct afw_pkt *p,
			     const struct afw_qpkt *qp, uint64_t now)
{
	struct afw_lrec *rec = afw_worker_answering(w, p);
	enum afw_decision d;

	if (!rec)
		return false;
	d = afw_ledger_answered(w->ledger, rec, now, AFW_RESEND_NS);
	afw_queue_verdict(w->q, qp, d == AFW_DECIDE_ALLOW ? NF_ACCEPT : NF_DROP, 0, false);
	return true;
}

struct afw_worker_pair {
	struct afw_worker *w;
	const struct afw_pkt *p;
	unsigned int moved;
};

/* @rec, if it is a flow between @pair's two addresses on the headers queue: whole again. */
static void afw_worker_pair_back(struct afw_lrec *rec, void *data)
{
	struct afw_worker_pair *pair = data;
	const struct afw_pkt *p = pair->p;
	struct afw_flow_spec f;

	if (!afw_lrec_head(rec))
		return;
	afw_ledger_flow(rec, &f);
	if ((f.family == AFW_FAMILY_IPV6) != (p->ipver == 6) ||
	    !((!memcmp(f.src, p->src, 16) && !memcmp(f.dst, p->dst, 16)) ||
	      (!memcmp(f.src, p->dst, 16) && !memcmp(f.dst, p->src, 16))))
		return;
	afw_lrec_set_head(rec, false);
	afw_worker_flow(pair->w, rec, &f);
	afw_kern_add(pair->w->kern, &f);
	pair->moved++;
}

/*
 * A packet from the headers queue that afwd needs whole (afw_engine_packet()
 * would drop it): the flow is no longer one whose headers are all afwd
 * reads, or afwd no longer knows it (a restart). It is dropped, and the
 * flow installed again, inspected as it was, without its own queue: TCP
 * sends the packet again, and it comes whole. A packet whose headers run
 * past the copy names its addresses but not its ports: every flow of
 * afwd's between those two addresses on the headers queue goes back.
 */
static void afw_worker_head_back(struct afw_worker *w, const struct afw_qpkt *qp,
				 const struct afw_pkt *p, bool decoded)
{
	struct afw_flow_spec f;
	struct afw_lrec *rec;
	char words[128];

	afw_queue_verdict(w->q, qp, NF_DROP, 0, false);
	if (!w->kern || !afw_kern_up(w->kern))
		return;
	if (!decoded || !p->has_l4) {
		struct afw_worker_pair pair = { .w = w, .p = p };

		if (!p->ipver)
			return;
		afw_ledger_each(w->ledger, afw_worker_pair_back, &pair);
		w->head_back += pair.moved;
		if (pair.moved)
			afw_log_printf(w->log, "afwd: queue %u: %u flows inspected with whole packets "
				       "again (headers past the copy: %s)\n", w->qnum, pair.moved,
				       p->reason ? p->reason : "no transport header");
		return;
	}
	rec = afw_ledger_find_pkt(w->ledger, p);
	if (rec && afw_lrec_head(rec)) {
		afw_lrec_set_head(rec, false);
		afw_worker_flow(w, rec, &f);
	} else if (!rec) {
		afw_ledger_spec(&f, p->ipver, p->proto, p->src, p->sport, p->dst, p->dport,
				AFW_DECIDE_INSPECT, true);
		afw_ledger_spec_echo(&f, p->echo, p->echo_id, p->icmp_code);
		afw_worker_flow_own(w, &f, false);
	} else {
		/* Installed whole already: this one came before the change took. */
		return;
	}
	afw_kern_add(w->kern, &f);
	w->head_back++;
	afw_worker_flow_words(&f, words, sizeof(words));
	afw_log_printf(w->log, "afwd: queue %u: %s: inspected with whole packets again%s\n",
		       w->qnum, words, rec ? "" : " (a flow this afwd did not decide)");
}

/* A reload changed @rec's verdict: update it where it is installed. */
static void afw_worker_changed(struct afw_lrec *rec, enum afw_decision old, void *data)
{
	struct afw_worker *w = data;
	struct afw_facts facts;
	struct afw_flow_spec f;
	char words[128], host[300] = "";
	FILE *m;

	afw_worker_flow(w, rec, &f);
	if (w->kern && afw_kern_up(w->kern) && afw_lrec_state(rec) != AFW_LREC_MARKED) {
		/* FLOW_NEW replaces the flow's entry: the next packet meets the new verdict. */
		if (afw_kern_add(w->kern, &f))
			afw_ledger_sent(w->ledger, rec, afw_now_ns());
	} else if (w->kern && afw_lrec_state(rec) != AFW_LREC_MARKED) {
		afw_ledger_wait(w->ledger, rec, afw_now_ns());
	}
	if (w->ct)
		afw_ct_mark(w->ct, &f, afw_worker_mark(w, afw_lrec_decision(rec)), AFW_MARK_MASK);
	afw_ledger_facts(rec, &facts);
	if (facts.host.len && (m = fmemopen(host, sizeof(host) - 1, "w"))) {
		fputs(" host=", m);
		afw_text_quoted(m, facts.host.ptr, facts.host.len);
		fclose(m);
	}
	afw_worker_flow_words(&f, words, sizeof(words));
	afw_log_printf(w->log, "afwd: reload: %s%s: %s -> %s\n", words, host,
		       afw_decision_name(old), afw_decision_name(afw_lrec_decision(rec)));
}

/*
 * Whether the module is to tell this worker its new connections' bare
 * handshakes, and pass them, rather than queue them: only where policy
 * @pol would pass every SYN (afw_policy_passes_syns()), so that no
 * connection it refuses by its ends alone reaches its server. afwd reads
 * the copies, and what its TCP checks need (the ISNs, windows, options)
 * is in them.
 */
static bool afw_worker_tell_wanted(const struct afw_worker *w, const struct afw_policy *pol)
{
	return w->kern && !w->d->cfg->handshakes_queued && !w->tell_refused &&
	       afw_policy_passes_syns(pol);
}

/*
 * Tells the module which queues this worker serves, and whether to tell it
 * their handshakes: at start, each time the module comes (back), and when
 * a new policy changes the latter. Its socket's close ends it.
 */
static void afw_worker_serve(struct afw_worker *w)
{
	bool tell = afw_worker_tell_wanted(w, atomic_load(&w->d->policy));

	w->serve_again = false;
	if (!w->kern || !afw_kern_serve(w->kern, (uint16_t)w->qnum, tell))
		return;
	/* Copies told before the module stops are read before packets still. */
	if (w->tell && !tell)
		w->tell_draining = true;
	w->tell = tell;
	if (w->head >= 0)
		afw_kern_serve(w->kern, (uint16_t)w->head, false);
}

/* A new policy: every recorded flow is judged by it, before the old one may go. */
static void afw_worker_rejudge(struct afw_worker *w)
{
	struct afw_daemon *d = w->d;
	uint64_t gen = atomic_load(&d->policy_gen);
	unsigned int n;

	if (gen == w->ledger_gen)
		return;
	/*
	 * What the module was taught came from the old policy: forgotten in
	 * the send that carries the records' new verdicts, ahead of them. A
	 * connection it decides by one meanwhile is told, and judged anew.
	 * The new policy may pass every SYN where the old did not, or the
	 * reverse: the queue is served again, telling its handshakes or not.
	 */
	if (w->kern && afw_kern_up(w->kern)) {
		afw_kern_forget(w->kern);
		if (afw_worker_tell_wanted(w, atomic_load(&d->policy)) != w->tell)
			afw_worker_serve(w);
	}
	/* The generation first: the policy read next is at least that new. */
	n = afw_ledger_rejudge(w->ledger, atomic_load(&d->policy), afw_worker_changed, w);
	afw_engine_forget_answers(w->engine);
	if (w->ct)
		afw_ct_flush(w->ct);
	atomic_fetch_add(&d->reload_changed, n);
	w->ledger_gen = gen;
}

/* Says once, for all workers, that the module went away or came. */
static void afw_worker_module_news(struct afw_worker *w, bool up)
{
	if (atomic_exchange(&w->d->module_up, up) == up)
		return;
	if (up)
		afw_log_printf(w->log, "afwd: the afw module is there: decided flows go to it%s; "
			       "recorded flows are installed again\n",
			       w->d->marks ? " too (marks continue for the chain afwd started with)" :
			       "");
	else
		afw_log_printf(w->log, "afwd: the afw module went away: flows wait for it to come "
			       "back%s\n", w->d->marks ? "; marks continue" : "");
}

/*
 * How long the module's socket rests after a round that heard of learned
 * flows: each is told after it passed, one message a connection, and
 * reading them as they come would wake the worker once a connection, on
 * the CPU the connections need. Resting, they are read a batch at a time;
 * a refusal or the module's news waits as long at most.
 */
#define AFW_KERN_REST_NS 2000000u

/* The module's copies of packets read so far: learned, handshakes, confirmations. */
static uint64_t afw_worker_copies(const struct afw_worker *w)
{
	return w->kern->stats.told + w->kern->stats.handshakes + w->kern->stats.confirmed;
}

/*
 * Reads the module's socket: refusals, news, learned flows, told
 * handshakes and confirmations. The last three come a few messages a
 * connection, each after its packet passed: while they do, the socket
 * rests, and is read a batch at a time, not once a connection on the CPU
 * the connections need. What a rest would delay is read all the same: a
 * handshake in the round of its flow's next queued packet, before it; the
 * server's acknowledgement of a flow's judged bytes as soon as it comes,
 * for the socket does not rest while one is awaited
 * (afw_worker_kern_confirm()), unless the module confirms the flow
 * itself, when nothing waits on the copy.
 */
static void afw_worker_kern_read(struct afw_worker *w, uint64_t now)
{
	const struct afw_kern_calls calls = { afw_worker_refused, afw_worker_told, w };
	uint64_t told = afw_worker_copies(w);
	int news;

	news = afw_kern_read(w->kern, &calls);
	/*
	 * The module took the serve that stopped its copies within its send,
	 * so a read after that send has taken the last of them (not while it
	 * waits in the batch, or in the ring's).
	 */
	if (w->tell_draining && !w->kern->pending && !w->kern->handed_open)
		w->tell_draining = false;
	w->kern_rest_until = afw_worker_copies(w) != told ? now + AFW_KERN_REST_NS : 0;
	afw_queue_rest(w->q, w->kern_bit, w->kern_rest_until != 0);
	if (news & AFW_KERN_WENT)
		afw_worker_module_news(w, false);
	if (news & AFW_KERN_CAME) {
		afw_worker_module_news(w, true);
		afw_worker_serve(w);
		afw_ledger_wait_all(w->ledger, now);
	}
}

/*
 * A flow allowed but for its server's acknowledgement of the judged
 * bytes is installed when that comes, told. The verdict that carries the
 * bytes on often brings it within the same system call (the server's
 * stack runs in it), so the socket is watched again for it: read at once,
 * it installs the flow before the server's answer, which then never
 * crosses afwd.
 */
static void afw_worker_kern_confirm(struct afw_worker *w)
{
	if (w->tell && w->kern_rest_until && afw_engine_confirming(w->engine)) {
		w->kern_rest_until = 0;
		afw_queue_rest(w->q, w->kern_bit, false);
	}
}

/*
 * The module's side of local work: its socket read when it was readable
 * (and not read this round already) or its rest is over, a reload's new
 * verdicts, installs due again, one send.
 */
static void afw_worker_kern_work(struct afw_worker *w, uint64_t now, bool readable)
{
	struct afw_daemon *d = w->d;
	uint64_t resync;

	afw_worker_rejudge(w);
	if (!w->kern)
		return;
	afw_kern_flush(w->kern, afw_worker_refused, w);
	if (w->kern_rest_until && now >= w->kern_rest_until)
		readable = true;
	if (readable)
		afw_worker_kern_read(w, now);
	if (w->serve_again)
		afw_worker_serve(w);
	/* After the main thread flushed the module's flows: every record again. */
	resync = atomic_load(&d->resync_gen);
	if (resync != w->resync_seen)
		afw_ledger_wait_all(w->ledger, now);
	if (afw_kern_up(w->kern))
		afw_ledger_due(w->ledger, now, afw_worker_send, w);
	afw_kern_flush(w->kern, afw_worker_refused, w);
	if (resync != w->resync_seen) {
		w->resync_seen = resync;
		atomic_store(&w->resync_done, resync);
	}
}

struct afw_worker_listing {
	struct afw_worker *w;
	const struct afw_policy *pol;
	FILE *out;
};

static void afw_worker_list_one(struct afw_lrec *rec, void *data)
{
	struct afw_worker_listing *l = data;

	afw_ctl_flow_json(l->out, l->w, rec, l->pol);
}

/*
 * The main thread asked for the flows: the ledger as text, for it to take
 * (afw_daemon_flows()). The ledger is this thread's alone, so it writes
 * the text, and the lock covers only the hand-over.
 */
static void afw_worker_list_flows(struct afw_worker *w)
{
	uint64_t gen = atomic_load(&w->d->flows_gen);
	struct afw_worker_listing l = { .w = w, .pol = atomic_load(&w->d->policy) };
	char *text = NULL;
	size_t len = 0;

	if (gen == w->flows_seen)
		return;
	l.out = open_memstream(&text, &len);
	if (l.out) {
		afw_ledger_each(w->ledger, afw_worker_list_one, &l);
		if (fclose(l.out)) {
			free(text);
			text = NULL;
		}
	}
	pthread_mutex_lock(&w->lock);
	free(w->flows_text);
	w->flows_text = text;
	w->flows_len = text ? len : 0;
	pthread_mutex_unlock(&w->lock);
	w->flows_seen = gen;
	atomic_store(&w->flows_done, gen);
}

/* When the worker next has local work, whatever the packets. */
static uint64_t afw_worker_next_deadline(const struct afw_worker *w)
{
	uint64_t e = afw_engine_next_deadline(w->engine);
	uint64_t l = w->kern && afw_kern_up(w->kern) ? afw_ledger_next_due(w->ledger) : UINT64_MAX;
	uint64_t k = w->kern_rest_until ? w->kern_rest_until : UINT64_MAX;
	uint64_t g = afw_log_due(w->log);
	uint64_t a = w->asking ? afw_ask_next_due(&w->d->ask, afw_worker_index(w)) : UINT64_MAX;

	e = e < l ? e : l;
	e = e < k ? e : k;
	e = e < a ? e : a;
	return e < g ? e : g;
}

static void afw_worker_publish(struct afw_worker *w)
{
	if (afw_queue_stats(w->q)->io_fell_back && !w->snap.queue.io_fell_back)
		afw_log_printf(w->log, "afwd: queue %u: no multishot receive in io_uring; "
			       "using poll()\n", w->qnum);
	pthread_mutex_lock(&w->lock);
	w->snap.queue = *afw_queue_stats(w->q);
	w->snap.engine = *afw_engine_stats(w->engine);
	if (w->kern) {
		w->snap.kern = w->kern->stats;
		w->snap.module_up = afw_kern_up(w->kern);
	}
	if (w->ct)
		w->snap.ct = *afw_ct_stats(w->ct);
	w->snap.ledger = *afw_ledger_stats(w->ledger);
	w->snap.records = afw_ledger_count(w->ledger);
	w->snap.head_packets = w->head_packets;
	w->snap.head_back = w->head_back;
	w->snap.owners_asked = w->owners_asked;
	w->snap.told_bad = w->told_bad;
	w->snap.tell = w->tell;
	w->snap.owners_found = w->owners_found;
	w->snap.owner_syscalls = w->owner_nl ? w->owner_nl->syscalls : 0;
	w->snap.analyzing = afw_engine_flows(w->engine);
	pthread_mutex_unlock(&w->lock);
	/* What the watchers are to hear: one wake-up of the main thread a round. */
	if (w->told) {
		w->told = false;
		afw_ask_kick(&w->d->ask);
	}
	/* The log's records go to the writer: a wake-up a batch at most. */
	afw_log_kick_lazy(w->log, afw_now_ns());
}

/* afw_kern_ring's side of the queue: afw_queue_send_ahead(), afw_queue_submit(). */
static bool afw_worker_send_ahead(void *ctx, int fd, const void *buf, size_t len)
{
	return afw_queue_send_ahead(ctx, fd, buf, len);
}

static void afw_worker_submit(void *ctx)
{
	afw_queue_submit(ctx);
}

/*
 * Worker threads take SCHED_BATCH: a packet queued for a worker then wakes
 * it without preempting the task that is running. On an idle CPU it runs at
 * once; on a busy one it runs when that task sleeps or its slice ends, and
 * finds more packets waiting. Throughput is what it gives up nothing for.
 */
static void afw_worker_sched(struct afw_worker *w)
{
	struct sched_param sp = { .sched_priority = 0 };
	int ret = pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);

	if (ret)
		afw_log_printf(w->log, "afwd: queue %u: SCHED_BATCH: %s\n", w->qnum, strerror(ret));
}

static void *afw_worker_main(void *arg)
{
	struct afw_worker *w = arg;
	struct afw_daemon *d = w->d;
	struct afw_qpkt pkts[AFW_QUEUE_BATCH];
	uint8_t head_buf[AFW_PKT_HEAD_MAX];
	const struct afw_policy *pol;
	struct afw_result res;
	struct afw_pace pace;
	uint64_t now, next, timeout, gather, counter, bulk;
	bool decided, more = false, gathered, kern_read;
	unsigned int ready;
	enum afw_pass pass;
	struct afw_pkt p;
	int n, i, wake_bit;

	afw_worker_sched(w);
	wake_bit = afw_queue_watch(w->q, w->wake_fd);
	w->kern_bit = w->kern ? afw_queue_watch(w->q, afw_kern_fd(w->kern)) : -1;
	if (w->kern) {
		w->ring = (struct afw_kern_ring){ afw_worker_send_ahead, afw_worker_submit, w->q };
		afw_kern_ring(w->kern, &w->ring);
	}
	w->ledger_gen = atomic_load(&d->policy_gen);
	w->resync_seen = atomic_load(&d->resync_gen);
	afw_pace_init(&pace, d->cfg->gather_ns, AFW_QUEUE_BATCH);
	/* The queues are bound: say so before the first packet. */
	afw_worker_serve(w);
	if (w->kern)
		afw_kern_flush(w->kern, afw_worker_refused, w);
	while (!atomic_load(&d->stop)) {
		/* 0: wait, for a packet or, under load, for packets to gather. */
		timeout = gather = 0;
		if (!more) {
			next = afw_worker_next_deadline(w);
			now = afw_now_ns();
			timeout = next <= now ? 0 : next - now;
			if (timeout > 1000000000u)
				timeout = 1000000000u;
			gather = afw_pace_wait_ns(&pace);
			/* A timer due first cuts the gathering short: just wait for it. */
			if (gather > timeout)
				gather = 0;
			if (!timeout)
				timeout = 1;
		}
		/* 1-4: the packets. */
		n = afw_queue_wait(w->q, pkts, timeout, gather, &ready, &gathered);
		if (n < 0)
			n = 0;
		/*
		 * The round's installs went with the wait's call, or failed
		 * there; or that call failed before the kernel took them, and
		 * they go with the next.
		 */
		if (w->kern && !afw_queue_ahead_pending(w->q))
			afw_kern_handed(w->kern, afw_queue_ahead_err(w->q), afw_worker_refused, w);
		pol = atomic_load(&d->policy);
		now = afw_now_ns();
		/* Allows wait for the server in the module while it tells of them. */
		afw_engine_kernel_confirm(w->engine, w->tell && w->kern && afw_kern_confirms(w->kern));
		/*
		 * Told handshakes are packets too, and passed before any
		 * packet of their flow that waits here was queued: read
		 * first, so that the engine sees each flow's packets in the
		 * order its receiver does. The socket is read when it said it
		 * is readable, or when it rests and so did not say.
		 */
		kern_read = n > 0 && (w->tell || w->tell_draining) && w->kern_bit >= 0 &&
			    (ready & 1u << w->kern_bit || w->kern_rest_until);
		if (kern_read)
			afw_worker_kern_read(w, now);
		more = n == AFW_QUEUE_BATCH;
		bulk = afw_engine_stats(w->engine)->decided_packets;
		for (i = 0; i < n; i++) {
			res.kernel_confirm = false;
			/* The headers queue: what afwd needs whole goes back to whole packets. */
			if (pkts[i].head) {
				bool ok;

				w->head_packets++;
				ok = afw_pkt_decode_head(&p, head_buf, pkts[i].data, pkts[i].len,
							 pkts[i].orig_len) == AFW_PKT_OK;

				/*
				 * The ledger first, as for a whole packet: a reload
				 * may have given the flow another verdict, which the
				 * module may not hold yet.
				 */
				if (ok && afw_worker_known(w, &p, &pkts[i], now))
					continue;
				if (!ok || !afw_engine_head_takes(w->engine, &p)) {
					afw_worker_head_back(w, &pkts[i], &p, ok);
					continue;
				}
				/*
				 * Cut: no reader looks at its bytes, which are not
				 * there to check. Whole (a small one): as any other.
				 */
				p.csum = p.cut ? AFW_CSUM_TRUSTED : afw_worker_csum(&pkts[i]);
				p.indev = pkts[i].indev;
				p.outdev = pkts[i].outdev;
				p.dir = afw_worker_dir(&pkts[i]);
				pass = afw_engine_packet(w->engine, pol, &p, pkts[i].has_uid,
							 pkts[i].uid, now, &res, &decided);
			} else if (afw_pkt_decode(&p, AFW_LINK_RAW, pkts[i].data, pkts[i].len) !=
				   AFW_PKT_OK) {
				/* What afwd cannot read is decided too: by the policy, as undecodable. */
				pass = afw_engine_undecodable(w->engine, pol, &p, pkts[i].has_uid,
							      pkts[i].uid, now, &res, &decided);
			} else {
				if (w->asking && afw_worker_asked(w, &p, &pkts[i]))
					continue;
				if (afw_worker_known(w, &p, &pkts[i], now))
					continue;
				p.csum = afw_worker_csum(&pkts[i]);
				p.indev = pkts[i].indev;
				p.outdev = pkts[i].outdev;
				p.dir = afw_worker_dir(&pkts[i]);
				pass = afw_engine_packet(w->engine, pol, &p, pkts[i].has_uid,
							 pkts[i].uid, now, &res, &decided);
			}
			/* Before the verdicts go: afw_worker_unconfirmed(). */
			if (!decided && res.kernel_confirm)
				afw_worker_unconfirmed(w, &res);
			/* A flow still asked about that comes back quiet: its question holds it. */
			if (decided && res.decision == AFW_DECIDE_ASK && res.quiet) {
				decided = false;
				pass = AFW_PASS_DROP;
			}
			if (decided && res.decision == AFW_DECIDE_ASK && !res.per_packet) {
				if (afw_worker_hold(w, &res, &pkts[i], afw_worker_established(&p)))
					continue;
				pass = afw_decision_pass(res.decision);
			}
			if (decided)
				afw_worker_decided(w, &res, &p, false);
			afw_worker_verdict(w, &pkts[i], pass, decided, decided && res.per_packet,
					   res.decision);
		}
		/*
		 * The installs go ahead of the verdicts, in the call that sends
		 * them: a flow is in the module before its server answers the
		 * packet let through, and a round of new flows costs one call.
		 */
		if (w->kern)
			afw_kern_flush_ahead(w->kern, afw_worker_refused, w);
		afw_queue_flush(w->q);
		afw_worker_kern_confirm(w);
		bulk = afw_engine_stats(w->engine)->decided_packets - bulk;
		afw_pace_round(&pace, now, (unsigned int)n, (unsigned int)bulk, gathered);

		/* 5: local work, only after the packets. */
		if (ready & 1u << wake_bit)
			(void)!read(w->wake_fd, &counter, sizeof(counter));
		afw_engine_expire(w->engine, pol, now, false, afw_worker_expired, w);
		afw_worker_ask_work(w, now);
		afw_worker_kern_work(w, now, !kern_read && w->kern_bit >= 0 &&
					ready & 1u << w->kern_bit);
		afw_worker_list_flows(w);
		/* The old policy may go once every worker has passed this point. */
		atomic_store(&w->seen_gen, atomic_load(&d->policy_gen));
		afw_worker_publish(w);
	}
	afw_worker_publish(w);
	return NULL;
}

/*
 * Who started the flow @f describes, from the module's record of its first
 * packet: only flows this host started have one. A question to the kernel,
 * asked only when a rule tests the owner, once per decision.
 */
static int afw_worker_owner(void *ctx, const struct afw_facts *f, struct afw_owner_info *out)
{
	struct afw_worker *w = ctx;
	struct afw_owner_buf *buf = w->owner_buf;
	struct afw_flow_spec spec = { 0 };
	size_t alen = f->family == AF_INET6 ? 16 : 4;
	int ret;

	/* Flows this host starts, and those to its sockets; not forwarded ones. */
	if ((f->dir != AFW_FDIR_OUT && f->dir != AFW_FDIR_IN) || !w->owner_nl || !w->kern ||
	    !afw_kern_up(w->kern))
		return -1;
	spec.family = f->family == AF_INET6 ? AFW_FAMILY_IPV6 : AFW_FAMILY_IPV4;
	spec.proto = f->l4proto;
	memcpy(spec.src, f->saddr, alen);
	memcpy(spec.dst, f->daddr, alen);
	spec.sport = f->sport;
	spec.dport = f->dport;
	/* A ping's owner is kept under its own key: its pinger, its identifier. */
	afw_ledger_spec_echo(&spec, f->echo, f->icmp_id, 0);
	w->owner_nl->family_id = w->kern->family_id;
	w->owners_asked++;
	ret = afw_flow_owner_get(w->owner_nl, &spec, buf);
	/* None recorded is an answer; anything else is said, once. */
	if (ret && ret != -ENOENT && !w->owner_warned) {
		w->owner_warned = true;
		fprintf(stderr, "afwd: warning: queue %u: asking the module who started a flow: "
			"%s%s%s; rules on programs match no flow while this lasts\n", w->qnum,
			strerror(-ret), *w->owner_nl->ext_msg ? ": " : "", w->owner_nl->ext_msg);
	}
	if (!ret) {
		w->owners_found++;
		out->uid = spec.owner.uid;
		out->gid = spec.owner.gid;
		out->pid = spec.owner.pid;
		out->listener = spec.owner.listener;
		snprintf(out->comm, sizeof(out->comm), "%s", spec.owner.comm);
		snprintf(out->exe, sizeof(out->exe), "%s", spec.owner.exe ? spec.owner.exe : "");
		snprintf(out->cgroup, sizeof(out->cgroup), "%s",
			 spec.owner.cgroup_path ? spec.owner.cgroup_path : "");
	}
	return ret ? -1 : 0;
}

int afw_worker_setup(struct afw_worker *w, char *err, size_t errlen)
{
	struct afw_daemon *d = w->d;
	struct afw_engine_opts eopts;
	struct afw_ledger_opts lopts;
	int ret, head;

	pthread_mutex_init(&w->lock, NULL);
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	eopts = d->cfg->engine;
	if (d->kern) {
		eopts.owner_fetch = afw_worker_owner;
		eopts.owner_ctx = w;
	}
	eopts.ask = afw_worker_ask;
	eopts.ask_ctx = w;
	w->engine = afw_engine_new(&eopts);
	if (!w->engine) {
		snprintf(err, errlen, "queue %u: out of memory", w->qnum);
		return -1;
	}
	lopts = (struct afw_ledger_opts){
		.max = d->cfg->max_records,
		.idle_ns = (uint64_t)afw_worker_idle_s(w) * 1000000000u,
		.retry_min_ns = AFW_RETRY_MIN_NS,
		.retry_max_ns = AFW_RETRY_MAX_NS,
	};
	w->ledger = afw_ledger_new(&lopts);
	if (!w->ledger) {
		snprintf(err, errlen, "queue %u: out of memory", w->qnum);
		return -1;
	}
	if (d->kern)
		afw_ledger_set_owner(w->ledger, afw_worker_owner, w);
	/*
	 * The module's socket is opened now, as root, even if the module is
	 * not loaded: one opened later would lack the credentials it needs.
	 */
	if (d->kern) {
		w->kern = calloc(1, sizeof(*w->kern));
		if (!w->kern) {
			snprintf(err, errlen, "queue %u: out of memory", w->qnum);
			return -1;
		}
		ret = afw_kern_open(w->kern, true);
		if (ret < 0) {
			snprintf(err, errlen, "queue %u: generic netlink: %s", w->qnum, strerror(-ret));
			free(w->kern);
			w->kern = NULL;
			return -1;
		}
		/* Its own socket: the install socket's replies come unasked. */
		w->owner_nl = malloc(sizeof(*w->owner_nl));
		w->owner_buf = malloc(sizeof(*w->owner_buf));
		ret = w->owner_nl && w->owner_buf ? afw_nl_socket(w->owner_nl) : -ENOMEM;
		if (ret < 0) {
			snprintf(err, errlen, "queue %u: generic netlink: %s", w->qnum, strerror(-ret));
			free(w->owner_nl);
			w->owner_nl = NULL;
			free(w->owner_buf);
			w->owner_buf = NULL;
			return -1;
		}
	}
	if (d->marks) {
		w->ct = afw_ct_open(err, errlen);
		if (!w->ct)
			return -1;
	}
	/*
	 * The headers queue: only the module installs flows with a queue of
	 * their own, so without it there is none.
	 */
	head = -1;
	if (d->kern && d->cfg->head_first != -1)
		head = d->cfg->head_first == AFW_HEAD_AUTO ? w->qnum ^ 0x8000 :
		       d->cfg->head_first + (w->qnum - d->cfg->queue_first);
	w->q = afw_queue_open(w->qnum, head, &d->cfg->queue, err, errlen);
	if (!w->q)
		return -1;
	w->head = -1;
	if (head >= 0 && !afw_queue_head(w->q))
		w->head = head;
	else if (head >= 0)
		fprintf(stderr, "afwd: warning: queue %u: headers queue %d: %s; inspected flows "
			"come whole\n", w->qnum, head, strerror(afw_queue_head(w->q)));
	return 0;
}

int afw_worker_start(struct afw_worker *w, char *err, size_t errlen)
{
	struct afw_daemon *d = w->d;
	int ret;

	atomic_store(&w->seen_gen, atomic_load(&d->policy_gen));
	ret = pthread_create(&w->thread, NULL, afw_worker_main, w);
	if (ret) {
		snprintf(err, errlen, "queue %u: thread: %s", w->qnum, strerror(ret));
		return -1;
	}
	w->started = true;
	return 0;
}

void afw_worker_wake(struct afw_worker *w)
{
	uint64_t one = 1;

	if (w->wake_fd >= 0)
		(void)!write(w->wake_fd, &one, sizeof(one));
}

void afw_worker_join(struct afw_worker *w)
{
	if (w->started)
		pthread_join(w->thread, NULL);
	w->started = false;
}

void afw_worker_close(struct afw_worker *w)
{
	afw_worker_join(w);
	afw_queue_close(w->q);
	w->q = NULL;
	if (w->kern) {
		afw_kern_close(w->kern);
		free(w->kern);
		w->kern = NULL;
	}
	if (w->owner_nl) {
		afw_nl_close(w->owner_nl);
		free(w->owner_nl);
		w->owner_nl = NULL;
	}
	free(w->owner_buf);
	w->owner_buf = NULL;
	afw_ct_close(w->ct);
	w->ct = NULL;
	afw_ledger_free(w->ledger);
	w->ledger = NULL;
	afw_engine_free(w->engine);
	w->engine = NULL;
	free(w->flows_text);
	w->flows_text = NULL;
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	w->wake_fd = -1;
	pthread_mutex_destroy(&w->lock);
}

void afw_worker_snapshot(struct afw_worker *w, struct afw_worker_snapshot *s)
{
	pthread_mutex_lock(&w->lock);
	*s = w->snap;
	pthread_mutex_unlock(&w->lock);
}
