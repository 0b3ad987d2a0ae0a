// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter hooks: IPv4 and IPv6 on LOCAL_IN, LOCAL_OUT and FORWARD, in
 * every network namespace that has been configured.
 *
 * A packet's verdict, in order (docs/architecture.md):
 * - afw's own resets pass;
 * - its flow's verdict, if the flow is known (an ICMP echo's flow is its
 *   exchange: the requests and their replies); an ICMP error takes the
 *   verdict of the flow it quotes;
 * - the best matching rule; an accept rule that sees a flow start installs
 *   it, so that the replies pass too;
 * - ICMPv6 neighbour discovery and MLD pass at LOCAL_IN and LOCAL_OUT;
 * - a decision afwd taught for connections like this one (learn.c), where
 *   the unknown-flow policy would queue it to afwd;
 * - the namespace's unknown-flow policy.
 */

#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/reciprocal_div.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "genl.h"
#include "hook.h"
#include "ident.h"
#include "netns.h"
#include "owner.h"
#include "packet.h"
#include "reject.h"
#include "serve.h"

/*
 * Just after the filter tables: a packet the host's own iptables or nftables
 * ruleset drops never costs afw (or its analyzer) any work, and conntrack and
 * the defragmenter have already seen the packet by then.
 */
#define AFW_HOOK_PRIORITY (NF_IP_PRI_FILTER + 10)

static enum afw_direction afw_hook_direction(unsigned int hooknum)
{
	switch (hooknum) {
	case NF_INET_LOCAL_IN:
		return AFW_DIR_IN;
	case NF_INET_LOCAL_OUT:
		return AFW_DIR_OUT;
	default:
		return AFW_DIR_FORWARD;
	}
}

/* A flow's verdict is a rule action, with inspect meaning "keep queueing". */
static_assert((int)AFW_VERDICT_ACCEPT == (int)AFW_ACTION_ACCEPT &&
	      (int)AFW_VERDICT_DROP == (int)AFW_ACTION_DROP &&
	      (int)AFW_VERDICT_REJECT == (int)AFW_ACTION_REJECT &&
	      (int)AFW_VERDICT_INSPECT == (int)AFW_ACTION_QUEUE);

/* The fan-out's queue for flow @k. */
static u16 afw_queue_num(struct afw_net *an, const struct afw_config *cfg,
			 const struct afw_flow_key *k)
{
	u16 num = cfg->queue_num;

	/* Both directions share the key, so a flow stays on one queue. */
	if (cfg->queue_count > 1)
		num += reciprocal_scale(afw_flow_key_hash(k, 0, &an->queue_key),
					cfg->queue_count);
	return num;
}

/* To the flow's own queue (@own >= 0), or to the fan-out's choice. */
static unsigned int afw_queue(struct afw_net *an, const struct afw_config *cfg,
			      const struct afw_flow_key *k, int own)
{
	unsigned int verdict;
	u16 num;

	/* The module is going: queue nothing its hooks could not take back. */
	if (unlikely(READ_ONCE(an->draining)))
		return cfg->fail_open ? NF_ACCEPT : NF_DROP;
	num = own >= 0 ? (u16)own : afw_queue_num(an, cfg, k);
	verdict = NF_QUEUE_NR(num);
	/*
	 * NFQUEUE drops or passes what nobody listens for without a word:
	 * counted here, where an analyzer never said it serves the queue.
	 */
	if (unlikely(!afw_serve_has(an, num)))
		afw_stats_unserved(an->stats, cfg->fail_open);
	/* Fail-open: with nobody listening, the packet goes on as accepted. */
	if (cfg->fail_open)
		verdict |= NF_VERDICT_FLAG_QUEUE_BYPASS;
	return verdict;
}

/* What one packet's verdict needs, gathered once. */
struct afw_hook_ctx {
	struct afw_net *an;
	const struct afw_config *cfg;
	struct sk_buff *skb;
	const struct nf_hook_state *state;
	struct afw_tuple t;
	struct afw_pkt p;
	struct afw_flow_key k;
	int own_queue;		/* the inspect flow's own queue, or -1 */
	u8 side;
	bool keyed;
	struct afw_exe *exe;	/* the sender's program, once looked up */
};

/*
 * Inline: every packet of a known flow builds its key here, and as a call
 * it saved and restored four registers each time (bench/hookpath.sh).
 */
static __always_inline const struct afw_flow_key *afw_hook_key(struct afw_hook_ctx *c)
{
	if (!c->keyed) {
		if (c->p.echo)
			c->side = afw_flow_key_echo(&c->t, c->p.echo_id, c->p.echo, &c->k);
		else
			c->side = afw_flow_key_from_tuple(&c->t, &c->k);
		c->keyed = true;
	}
	return &c->k;
}

/* A TCP SYN without ACK: a connection starts, maybe again on these ports. */
static bool afw_hook_syn(const struct afw_hook_ctx *c)
{
	return (c->p.tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN;
}

/* A packet that starts a flow: who it is from, or to (owner.c). */
static void afw_hook_note_owner(struct afw_hook_ctx *c, const struct afw_flow_key *k)
{
	if (c->state->hook == NF_INET_LOCAL_OUT)
		afw_owner_note(c->an, k, c->skb, c->state, afw_hook_syn(c), &c->exe);
	else if (c->state->hook == NF_INET_LOCAL_IN)
		afw_owner_note_in(c->an, k, &c->t, c->p.l4off, c->skb, c->state,
				  afw_hook_syn(c));
}

/* @action other than accept: out of line, as few packets take it. */
static noinline unsigned int afw_act_other(struct afw_hook_ctx *c,
					   enum afw_stats_source src, unsigned int action)
{
	afw_stats_decided(c->an->stats, src, action);
	switch (action) {
	case AFW_ACTION_QUEUE:
		/*
		 * A new flow goes to afwd with its sender recorded. A ping's
		 * key holds its identifier and pinger, as afwd asks for its
		 * owner (OWNER_GET with AFW_FLOW_A_ICMP_ID) and installs it;
		 * its requests and replies share that key, and so a queue.
		 */
		if (src != AFW_STATS_FLOW)
			afw_hook_note_owner(c, afw_hook_key(c));
		return afw_queue(c->an, c->cfg, afw_hook_key(c), c->own_queue);
	case AFW_ACTION_REJECT:
		/* The helpers answer neither a RST nor an ICMP error. */
		afw_reject(c->skb, c->state, &c->t);
		fallthrough;
	default:
		return NF_DROP;
	}
}

/*
 * Inline, the accept first: most packets are accepted (a known flow's
 * above all), and so they return from the hook with their decision
 * counted and no call made (bench/hookpath.sh).
 */
static __always_inline unsigned int afw_act(struct afw_hook_ctx *c,
					    enum afw_stats_source src, unsigned int action)
{
	/* Counted with a constant index: the accept's count costs one add. */
	if (likely(action == AFW_ACTION_ACCEPT)) {
		afw_stats_decided(c->an->stats, src, AFW_ACTION_ACCEPT);
		return NF_ACCEPT;
	}
	return afw_act_other(c, src, action);
}

/*
 * The resets that rejecting sends (afw's, or another firewall's) carry no
 * socket and leave through LOCAL_OUT: they pass, whatever the rules say,
 * or a reject rule that matches them would act as a silent drop. So do
 * resets that come back in over loopback: what they answer left this host
 * through LOCAL_OUT, where the rules judged it, and the one for a local
 * connection a rule rejected must reach its socket, or connect() waits
 * out its retransmissions instead of failing at once. Only this host
 * sends on loopback, and a reset it crafts itself needs CAP_NET_RAW.
 */
static bool afw_hook_own_reset(const struct afw_hook_ctx *c)
{
	if (!(c->t.flags & AFW_TUPLE_RST))
		return false;
	if (c->state->hook == NF_INET_LOCAL_OUT)
		return !c->skb->sk;
	return c->state->hook == NF_INET_LOCAL_IN && c->state->in &&
	       (c->state->in->flags & IFF_LOOPBACK);
}

/*
 * Whether the stack that takes @c's packet checks its checksum no more than
 * afwd would, were the packet queued: it is one the stack fills in, or one
 * received and verified (not one a raw socket sent unchecked over veth).
 */
static bool afw_hook_csum_trusted(const struct afw_hook_ctx *c)
{
	return c->skb->ip_summed == CHECKSUM_PARTIAL ||
	       (c->state->hook <= NF_INET_FORWARD && skb_csum_unnecessary(c->skb));
}

/*
 * The socket that serves the queue @c's packet would go to and asked to be
 * told what passes instead (AFW_A_SERVE_TELL), or 0.
 */
static u32 afw_hook_teller(struct afw_hook_ctx *c)
{
	return afw_serve_teller(c->an, afw_queue_num(c->an, c->cfg, afw_hook_key(c)));
}

/*
 * A packet of @f, which afwd allowed on its client's first bytes and which
 * waits for the server to take them (AFW_FLOW_A_CONFIRM): true when this
 * is the server's packet that shows it, which then passes by the flow, as
 * every later one (and as this one when another confirmed the flow
 * meanwhile). afwd hears of it first, with a copy as of a told
 * handshake, for it decides the flow only then: a confirmation it would
 * not hear of leaves the flow unconfirmed, its packets going to afwd.
 * Out of line: a flow's packets meet it only until then.
 */
static noinline bool afw_hook_confirm(struct afw_hook_ctx *c, struct afw_flow *f, u8 side)
{
	u32 iif = c->state->in ? c->state->in->ifindex : 0;
	u32 portid;

	if (!afw_flow_confirms(&c->an->flows, f, side, &c->p, iif) || !afw_hook_csum_trusted(c))
		return false;
	portid = afw_hook_teller(c);
	if (!portid)
		return false;
	/*
	 * Of two of the server's packets that would confirm it at once, on
	 * two CPUs, one does, and afwd is told once. The other passes by the
	 * flow if that one has confirmed it by now (the claim is fully
	 * ordered: a confirmation made before it is seen), and otherwise goes
	 * the way of a packet that confirmed nothing. A tell that fails
	 * leaves it to a later one.
	 */
	if (test_and_set_bit(AFW_FLOW_CONFIRMING, &f->state))
		return !test_bit(AFW_FLOW_UNCONFIRMED, &f->state);
	if (afw_genl_tell_confirmed(c->state, c->skb, &c->t, portid)) {
		clear_bit(AFW_FLOW_CONFIRMING, &f->state);
		return false;
	}
	afw_flow_confirm(&c->an->flows, f);
	return true;
}

/* The verdict flow @f gives the packet, sent from @side of it. */
static int afw_hook_flow_packet(struct afw_hook_ctx *c, struct afw_flow *f, u8 side)
{
	int v;

	/* Unconfirmed, it is not there for the packet: the rules and afwd are. */
	if (unlikely(test_bit(AFW_FLOW_UNCONFIRMED, &f->state)) && !afw_hook_confirm(c, f, side))
		return -ENOENT;
	v = afw_flow_packet(&c->an->flows, f, side, &c->t, &c->p, c->skb, c->skb->len);

	/*
	 * Only an inspect flow's packets go to its own queue; the QUIC
	 * Initial an accept flow sends to afwd goes where new flows go.
	 */
	if (v == AFW_VERDICT_INSPECT && f->verdict == AFW_VERDICT_INSPECT && f->own_queue)
		c->own_queue = f->queue;
	return v;
}

/* -1 when no flow decides the packet. */
static int afw_hook_flow(struct afw_hook_ctx *c)
{
	struct afw_flows *fl = &c->an->flows;
	struct afw_flow *f;
	int v;

	f = afw_flow_find(fl, afw_hook_key(c));
	if (f) {
		v = afw_hook_flow_packet(c, f, c->side);
		if (v >= 0)
			return v;
	} else if (c->p.echo) {
		/*
		 * An ICMP flow installed without an echo's identifier (FLOW_NEW
		 * without AFW_FLOW_A_ICMP_ID: "afwctl flow add proto icmp",
		 * or an afwd older than its echo flows) carries all ICMP
		 * between its two addresses, echoes too; its key is then the
		 * packet's, for its queue as for its verdict.
		 */
		struct afw_flow_key k;
		u8 side = afw_flow_key_from_tuple(&c->t, &k);

		f = afw_flow_lookup(fl, &k);
		if (f) {
			v = afw_hook_flow_packet(c, f, side);
			if (v >= 0) {
				c->k = k;
				c->side = side;
				return v;
			}
		}
	}
	/* Related: an error about a flow (PMTU above all) goes with it. */
	afw_packet_icmp(c->skb, &c->t, &c->p);
	if (!c->p.icmp_error)
		return -1;
	f = afw_flow_lookup(fl, &c->p.quoted);
	if (!f && c->p.quoted.echo) {
		/* A ping an ICMP flow without identifier carries, as above. */
		struct afw_flow_key k = c->p.quoted;

		k.pa = 0;
		k.pb = 0;
		k.echo = 0;
		f = afw_flow_lookup(fl, &k);
	}
	if (!f)
		return -1;
	v = READ_ONCE(f->verdict);
	return v == AFW_VERDICT_DROP || v == AFW_VERDICT_REJECT ? AFW_VERDICT_DROP :
								  AFW_VERDICT_ACCEPT;
}

/*
 * A rule decided a packet of a flow that has no entry; some decisions are
 * kept as the flow's, never for a RST, which ends what it belongs to:
 *  - an accept, so that the replies pass without a rule of their own, as
 *    "ct state established" would let them; only where a reply might not
 *    pass otherwise; for ICMP, of an echo request, whose replies are the
 *    ones there are;
 *  - a drop or reject of TCP by a rule on the program, for the
 *    retransmissions the stack sends later from a timer, where no program
 *    is there to name and the rules would see none (and might let them
 *    pass). A UDP program sends its own again, from its own call. For as
 *    long as a SYN is sent again by default (tcp_syn_retries 6: 127 s),
 *    not a connection's idle timeout: each try from a new port is a flow
 *    of its own.
 */
#define AFW_REFUSE_TIMEOUT 130

static void afw_hook_rule_flow(struct afw_hook_ctx *c, const struct afw_ruleset *rs,
			       const struct afw_rule *rule)
{
	struct afw_flow_new req = {
		.origin = AFW_FLOW_ORIGIN_RULE,
		.rule_id = rule->id,
		.first_t = &c->t,
		.first = &c->p,
	};

	/* An echo's flow starts with its request, as a connection with its SYN. */
	if (c->p.echo ? c->p.echo != AFW_PKT_ECHO_REQUEST :
			!(c->t.flags & AFW_TUPLE_PORTS) || (c->t.flags & AFW_TUPLE_RST))
		return;
	switch (rule->action) {
	case AFW_ACTION_ACCEPT:
		if (!rs->stateful && c->cfg->unknown == AFW_UNKNOWN_ACCEPT)
			return;
		req.verdict = AFW_VERDICT_ACCEPT;
		break;
	case AFW_ACTION_DROP:
	case AFW_ACTION_REJECT:
		if (!(rule->fields & AFW_RULE_F_EXE) || c->t.dir != AFW_DIR_OUT ||
		    c->t.proto != IPPROTO_TCP)
			return;
		req.verdict = rule->action == AFW_ACTION_REJECT ? AFW_VERDICT_REJECT :
								  AFW_VERDICT_DROP;
		req.timeout_s = AFW_REFUSE_TIMEOUT;
		break;
	default:
		return;
	}
	req.key = *afw_hook_key(c);
	req.initiator = c->side;
	if (req.verdict == AFW_VERDICT_ACCEPT)
		afw_hook_note_owner(c, &req.key);
	/* Full or out of memory: the rule still decided this packet. */
	afw_flow_insert(c->an, &req, GFP_ATOMIC | __GFP_NOWARN, NULL);
}

/*
 * A new connection of a kind afwd has decided already (learn.c): its flow
 * installed as afwd would have, afwd told afterwards. -1: none learned.
 */
static int afw_hook_learned(struct afw_hook_ctx *c)
{
	struct afw_flow_new req = {
		.origin = AFW_FLOW_ORIGIN_LEARNED,
		.first_t = &c->t,
		.first = &c->p,
	};
	struct afw_learned *e;
	struct afw_learn_key lk;

	if (!afw_learn_any(&c->an->learn) || c->t.proto != IPPROTO_TCP || !afw_hook_syn(c) ||
	    !(c->t.flags & AFW_TUPLE_PORTS))
		return -1;
	afw_learn_key_from_tuple(&c->t, &lk);
	e = afw_learn_lookup(&c->an->learn, &lk);
	if (!e)
		return -1;
	atomic64_inc(&e->hits);
	atomic64_inc(&c->an->learn.flows);
	req.key = *afw_hook_key(c);
	req.initiator = c->side;
	req.verdict = e->verdict;
	req.rule_id = e->line;
	/* A refused connection tries again from new ports, each a flow of its own. */
	if (e->verdict != AFW_VERDICT_ACCEPT)
		req.timeout_s = AFW_REFUSE_TIMEOUT;
	afw_hook_note_owner(c, &req.key);
	/* Full or out of memory: afwd's decision still holds for this packet. */
	afw_flow_insert(c->an, &req, GFP_ATOMIC | __GFP_NOWARN, NULL);
	afw_genl_tell_learned(c->an, c->state, c->skb, &c->t, &req.key, e);
	return e->verdict;
}

/*
 * A bare handshake packet of a new TCP flow, which a queue rule or the
 * unknown-flow policy would queue: no payload, and of the flags
 * only SYN, SYN and ACK, or ACK (ECE and CWR aside, which ECN sets on the
 * handshake). When the socket serving its queue asked (AFW_A_SERVE_TELL),
 * it is told there and passes: it carries no byte afwd judges, and afwd
 * learns from the copy what the receiver's TCP was given, without the
 * packet waiting for it. A FIN or RST, or any payload, still waits in the
 * queue; so does a packet whose tell fails (no memory, no room at the
 * socket). True when told.
 */
static bool afw_hook_tell(struct afw_hook_ctx *c)
{
	u8 flags = c->p.tcp_flags & ~(TCPHDR_ECE | TCPHDR_CWR);
	const struct afw_flow_key *k;
	u32 portid;

	if (c->t.proto != IPPROTO_TCP || !(c->t.flags & AFW_TUPLE_PORTS) || c->p.len ||
	    (flags != TCPHDR_SYN && flags != (TCPHDR_SYN | TCPHDR_ACK) && flags != TCPHDR_ACK) ||
	    !rcu_access_pointer(c->an->serve) || READ_ONCE(c->an->draining))
		return false;
	/*
	 * Another is queued whole, and afwd checks its checksum as its
	 * receiver will.
	 */
	if (!afw_hook_csum_trusted(c))
		return false;
	portid = afw_hook_teller(c);
	if (!portid)
		return false;
	k = afw_hook_key(c);
	/* As a queued packet's: afwd reads its sender from the message. */
	afw_hook_note_owner(c, k);
	if (afw_genl_tell_handshake(c->an, c->state, c->skb, &c->t, k, portid)) {
		atomic64_inc(&c->an->handshakes_queued);
		return false;
	}
	atomic64_inc(&c->an->handshakes_told);
	return true;
}

static u64 afw_hook_cgroup(const void *arg, u8 level)
{
	const struct afw_hook_ctx *c = arg;

	return c->t.dir == AFW_DIR_OUT ? afw_ident_cgroup(c->skb, level) : 0;
}

static unsigned int afw_hook_run(struct afw_hook_ctx *c, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	enum afw_direction dir = afw_hook_direction(state->hook);
	const struct afw_ruleset *rs;
	struct afw_rule *rule;
	bool flows, idle;
	u8 need = 0;
	int v;

	/* Netfilter runs hooks under rcu_read_lock(). */
	c->cfg = rcu_dereference(c->an->cfg);
	/*
	 * Disabled ("afwctl disable"): the off switch keeps everything else
	 * as it is, and counts nothing, as if afw were not there.
	 */
	if (unlikely(!c->cfg->enabled))
		return NF_ACCEPT;

	rs = rcu_dereference(c->an->ruleset);
	flows = atomic_read(&c->an->flows.count);
	idle = !rs && !flows && c->cfg->unknown == AFW_UNKNOWN_ACCEPT;
	afw_stats_count(c->an->stats,
			state->pf == NFPROTO_IPV6 ? AFW_STATS_IPV6 : AFW_STATS_IPV4,
			dir, skb->len, idle);
	if (idle)
		return NF_ACCEPT;

	if (rs)
		need = rs->need.flags;
	/*
	 * Flow keys, the queue fan-out and the flows accept rules (and rules
	 * on programs) install all need the ports; a ruleset whose rules
	 * need them asks itself.
	 */
	if (flows || c->cfg->unknown != AFW_UNKNOWN_ACCEPT ||
	    (rs && (rs->stateful || rs->need.exe)))
		need |= AFW_TUPLE_PORTS;
	if (afw_packet_tuple(skb, state, need, rs ? &rs->need : NULL, &c->t, &c->p)) {
		afw_stats_malformed(c->an->stats);
		return NF_DROP;
	}
	c->t.dir = dir;

	if (afw_hook_own_reset(c)) {
		afw_stats_exempt(c->an->stats);
		return NF_ACCEPT;
	}
	if (flows) {
		v = afw_hook_flow(c);
		if (v >= 0)
			return afw_act(c, AFW_STATS_FLOW, v);
	}
	if (rs) {
		if (unlikely(rs->need.exe) && dir == AFW_DIR_OUT)
			c->t.exe = afw_owner_exe_match(c->an, afw_hook_key(c), skb, state,
						       &c->exe);
		rule = afw_classify(rs, &c->t, afw_hook_cgroup, c);
		if (rule) {
			afw_rule_count(rule, skb->len);
			afw_hook_rule_flow(c, rs, rule);
			if (rule->action == AFW_ACTION_QUEUE && afw_hook_tell(c))
				return afw_act(c, AFW_STATS_RULE, AFW_ACTION_ACCEPT);
			return afw_act(c, AFW_STATS_RULE, rule->action);
		}
	}
	/* Without neighbour discovery, IPv6 dies on the link itself. */
	if (dir != AFW_DIR_FORWARD && c->t.family == AFW_FAMILY_IPV6 &&
	    c->t.proto == IPPROTO_ICMPV6) {
		if (!flows)
			afw_packet_icmp(skb, &c->t, &c->p);
		if (c->p.nd) {
			afw_stats_exempt(c->an->stats);
			return NF_ACCEPT;
		}
	}
	switch (c->cfg->unknown) {
	case AFW_UNKNOWN_QUEUE:
		v = afw_hook_learned(c);
		if (v >= 0)
			return afw_act(c, AFW_STATS_FLOW, v);
		if (afw_hook_tell(c))
			return afw_act(c, AFW_STATS_UNKNOWN, AFW_ACTION_ACCEPT);
		return afw_act(c, AFW_STATS_UNKNOWN, AFW_ACTION_QUEUE);
	case AFW_UNKNOWN_DROP:
		return afw_act(c, AFW_STATS_UNKNOWN, AFW_ACTION_DROP);
	default:
		return afw_act(c, AFW_STATS_UNKNOWN, AFW_ACTION_ACCEPT);
	}
}

static unsigned int afw_hook(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	/*
	 * Not cleared on entry, which a kernel built with INIT_STACK_ALL_ZERO
	 * (Debian's) would do to all of it for every packet: these are set
	 * here, @cfg, the tuple and the packet's fields by afw_hook_run()
	 * before any use, and the key and its side with @keyed. The packet's
	 * echo identifier and quoted flow are read only when it says they
	 * were filled in (afw_pkt.echo, .icmp_error).
	 */
	struct afw_hook_ctx c __uninitialized;
	unsigned int ret;

	c.an = priv;
	c.skb = skb;
	c.state = state;
	c.own_queue = -1;
	c.keyed = false;
	c.exe = AFW_EXE_UNSEEN;
	ret = afw_hook_run(&c, skb, state);
	afw_owner_exe_done(c.exe);
	return ret;
}

#define AFW_HOOK_OPS(_pf, _hooknum) {		\
	.hook = afw_hook,			\
	.pf = (_pf),				\
	.hooknum = (_hooknum),			\
	.priority = AFW_HOOK_PRIORITY,		\
}

static const struct nf_hook_ops afw_hook_ops[] = {
	AFW_HOOK_OPS(NFPROTO_IPV4, NF_INET_LOCAL_IN),
	AFW_HOOK_OPS(NFPROTO_IPV4, NF_INET_LOCAL_OUT),
	AFW_HOOK_OPS(NFPROTO_IPV4, NF_INET_FORWARD),
	AFW_HOOK_OPS(NFPROTO_IPV6, NF_INET_LOCAL_IN),
	AFW_HOOK_OPS(NFPROTO_IPV6, NF_INET_LOCAL_OUT),
	AFW_HOOK_OPS(NFPROTO_IPV6, NF_INET_FORWARD),
};

/*
 * The ops are copied per namespace, as the iptables tables do theirs, so
 * that each hook call gets its namespace's state as @priv.
 */
int afw_hooks_register(struct net *net, struct afw_net *an)
{
	struct nf_hook_ops *ops;
	unsigned int i;
	int ret;

	ops = kmemdup(afw_hook_ops, sizeof(afw_hook_ops), GFP_KERNEL_ACCOUNT);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(afw_hook_ops); i++)
		ops[i].priv = an;
	ret = nf_register_net_hooks(net, ops, ARRAY_SIZE(afw_hook_ops));
	if (ret) {
		kfree(ops);
		return ret;
	}
	an->hook_ops = ops;
	return 0;
}

/* The ops stay until afw_net_exit() frees them (see struct afw_net). */
void afw_hooks_unregister(struct net *net, struct afw_net *an)
{
	nf_unregister_net_hooks(net, an->hook_ops, ARRAY_SIZE(afw_hook_ops));
}
