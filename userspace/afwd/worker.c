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
#include <sys/eventfd.h>
#include <linux/afw.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>

#include "daemon.h"
#include "pace.h"
#include "pkt.h"

static uint64_t afw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint8_t afw_decision_verdict(enum afw_decision d)
{
	switch (d) {
	case AFW_DECIDE_DENY:
		return AFW_VERDICT_DROP;
	case AFW_DECIDE_REJECT:
		return AFW_VERDICT_REJECT;
	case AFW_DECIDE_INSPECT:
		return AFW_VERDICT_INSPECT;
	default:
		return AFW_VERDICT_ACCEPT;
	}
}

/* Logs a decision and hands the flow to the module. */
static void afw_worker_decided(struct afw_worker *w, const struct afw_result *r)
{
	struct afw_flow_spec f = { 0 };

	if (!r->quiet)
		afw_daemon_log(w->d, r);
	if (!w->kern || r->per_packet)
		return;
	f.family = r->family == AF_INET6 ? AFW_FAMILY_IPV6 : AFW_FAMILY_IPV4;
	f.proto = r->l4proto;
	memcpy(f.src, r->src, 16);
	memcpy(f.dst, r->dst, 16);
	f.sport = r->sport;
	f.dport = r->dport;
	f.verdict = afw_decision_verdict(r->decision);
	f.timeout = w->d->cfg->flow_timeout;
	afw_kern_add(w->kern, &f);
}

/*
 * A decision the timer made: logged now, installed by the flow's next
 * packet (the engine hands it back quiet), so that with or without the
 * module it is installed the same way.
 */
static void afw_worker_expired(const struct afw_result *r, void *data)
{
	struct afw_worker *w = data;

	afw_daemon_log(w->d, r);
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
 * The packet's verdict. With the module, a rejected flow's deciding packet
 * is re-injected so that the module, which now knows the flow, answers it.
 * Without, decided flows are marked and re-injected: the firewall's own
 * rules save the mark to conntrack and act on it (docs/afwd.md).
 */
static void afw_worker_verdict(struct afw_worker *w, const struct afw_qpkt *qp,
			       enum afw_pass pass, bool decided, bool res_per_packet,
			       enum afw_decision d)
{
	uint32_t mark, base = w->d->cfg->mark_base;

	if (w->kern || !decided || res_per_packet) {
		if (pass == AFW_PASS_REJECT && w->kern)
			afw_queue_verdict(w->q, qp->id, NF_REPEAT, 0, false);
		else
			afw_queue_verdict(w->q, qp->id, pass == AFW_PASS_ACCEPT ? NF_ACCEPT : NF_DROP,
					  0, false);
		return;
	}
	if (d == AFW_DECIDE_INSPECT) {
		afw_queue_verdict(w->q, qp->id, NF_ACCEPT, 0, false);
		return;
	}
	mark = (qp->mark & ~(uint32_t)AFW_MARK_MASK) | base |
	       (d == AFW_DECIDE_ALLOW ? AFW_MARK_ALLOW :
		d == AFW_DECIDE_DENY ? AFW_MARK_DENY : AFW_MARK_REJECT);
	afw_queue_verdict(w->q, qp->id, NF_REPEAT, mark, true);
}

static void afw_worker_publish(struct afw_worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->snap.queue = *afw_queue_stats(w->q);
	w->snap.engine = *afw_engine_stats(w->engine);
	if (w->kern)
		w->snap.kern = w->kern->stats;
	w->snap.analyzing = afw_engine_flows(w->engine);
	pthread_mutex_unlock(&w->lock);
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

	if (ret) {
		pthread_mutex_lock(&w->d->log_lock);
		fprintf(stderr, "afwd: queue %u: SCHED_BATCH: %s\n", w->qnum, strerror(ret));
		pthread_mutex_unlock(&w->d->log_lock);
	}
}

static void *afw_worker_main(void *arg)
{
	struct afw_worker *w = arg;
	struct afw_daemon *d = w->d;
	struct afw_qpkt pkts[AFW_QUEUE_BATCH];
	const struct afw_policy *pol;
	struct afw_result res;
	struct afw_pace pace;
	uint64_t now, next, timeout, gather, counter, bulk;
	bool decided, more = false, gathered;
	unsigned int ready;
	enum afw_pass pass;
	struct afw_pkt p;
	int n, i, wake_bit, kern_bit = -1;

	afw_worker_sched(w);
	wake_bit = afw_queue_watch(w->q, w->wake_fd);
	if (w->kern)
		kern_bit = afw_queue_watch(w->q, afw_kern_fd(w->kern));
	afw_pace_init(&pace, d->cfg->gather_ns, AFW_QUEUE_BATCH);
	while (!atomic_load(&d->stop)) {
		/* 0: wait, for a packet or, under load, for packets to gather. */
		timeout = gather = 0;
		if (!more) {
			next = afw_engine_next_deadline(w->engine);
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
		pol = atomic_load(&d->policy);
		now = afw_now_ns();
		more = n == AFW_QUEUE_BATCH;
		bulk = afw_engine_stats(w->engine)->decided_packets;
		for (i = 0; i < n; i++) {
			/* What afwd cannot read is decided too: by the policy, as undecodable. */
			if (afw_pkt_decode(&p, AFW_LINK_RAW, pkts[i].data, pkts[i].len) != AFW_PKT_OK) {
				pass = afw_engine_undecodable(w->engine, pol, &p, pkts[i].has_uid,
							      pkts[i].uid, now, &res, &decided);
			} else {
				p.csum = afw_worker_csum(&pkts[i]);
				p.indev = pkts[i].indev;
				pass = afw_engine_packet(w->engine, pol, &p, pkts[i].has_uid,
							 pkts[i].uid, now, &res, &decided);
			}
			if (decided)
				afw_worker_decided(w, &res);
			afw_worker_verdict(w, &pkts[i], pass, decided, decided && res.per_packet,
					   res.decision);
		}
		if (w->kern)
			afw_kern_flush(w->kern);
		afw_queue_flush(w->q);
		bulk = afw_engine_stats(w->engine)->decided_packets - bulk;
		afw_pace_round(&pace, now, (unsigned int)n, (unsigned int)bulk, gathered);

		/* 5: local work, only after the packets. */
		if (ready & 1u << wake_bit)
			(void)!read(w->wake_fd, &counter, sizeof(counter));
		afw_engine_expire(w->engine, pol, now, false, afw_worker_expired, w);
		if (w->kern) {
			afw_kern_flush(w->kern);
			if (kern_bit >= 0 && ready & 1u << kern_bit &&
			    afw_kern_read_errors(w->kern)) {
				pthread_mutex_lock(&d->log_lock);
				fprintf(stderr, "afwd: queue %u: the module refused a flow: %s\n",
					w->qnum, w->kern->last_error);
				pthread_mutex_unlock(&d->log_lock);
			}
		}
		/* The old policy may go once every worker has passed this point. */
		atomic_store(&w->seen_gen, atomic_load(&d->policy_gen));
		afw_worker_publish(w);
	}
	afw_worker_publish(w);
	return NULL;
}

int afw_worker_start(struct afw_worker *w, char *err, size_t errlen)
{
	struct afw_daemon *d = w->d;
	int ret;

	pthread_mutex_init(&w->lock, NULL);
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	w->engine = afw_engine_new(&d->cfg->engine);
	if (!w->engine) {
		snprintf(err, errlen, "queue %u: out of memory", w->qnum);
		return -1;
	}
	if (d->use_module) {
		w->kern = calloc(1, sizeof(*w->kern));
		if (!w->kern) {
			snprintf(err, errlen, "queue %u: out of memory", w->qnum);
			return -1;
		}
		ret = afw_kern_open(w->kern);
		if (ret < 0) {
			snprintf(err, errlen, "queue %u: afw module: %s", w->qnum, strerror(-ret));
			free(w->kern);
			w->kern = NULL;
			return -1;
		}
	}
	w->q = afw_queue_open(w->qnum, &d->cfg->queue, err, errlen);
	if (!w->q)
		return -1;
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
	afw_queue_close(w->q);
	w->q = NULL;
	if (w->kern) {
		afw_kern_close(w->kern);
		free(w->kern);
		w->kern = NULL;
	}
	afw_engine_free(w->engine);
	w->engine = NULL;
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
