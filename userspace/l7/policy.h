/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The afwd policy file: which verdict a flow gets from what the analyzers
 * learned about it (facts.h). docs/policy.md describes the syntax:
 *
 *   default allow|deny|reject|inspect|ask
 *   [ask-default allow|deny|reject] [ask-timeout SECONDS]
 *   [prio N] [l7 LIST] [reason LIST] [host LIST] [name LIST] [ech yes|no]
 *   [alpn LIST] [ja4 LIST] [proto LIST] [dport LIST] [to LIST] [uid LIST]
 *   allow|deny|reject|inspect
 *
 * A loaded policy is immutable and owns all its memory, so readers need no
 * lock. Reloading is: load the new file; if that fails keep the old policy
 * and log the error; else swap the pointer and free the old one once no
 * reader holds it (afw_policy_reload does this for a single thread).
 */
#ifndef AFW_POLICY_H
#define AFW_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "facts.h"

enum afw_decision {
	AFW_DECIDE_ALLOW,
	AFW_DECIDE_DENY,	/* drop silently */
	AFW_DECIDE_REJECT,	/* TCP RST, else ICMP port unreachable */
	AFW_DECIDE_INSPECT,	/* keep the flow queued to afwd */
	/*
	 * A person decides: the flow waits for an answer (afwd's ask.h), and
	 * the policy's ask-default decides when nobody answers. Never
	 * installed as such.
	 */
	AFW_DECIDE_ASK,
	__AFW_DECIDE_MAX
};
#define AFW_DECIDE_MAX (__AFW_DECIDE_MAX - 1)

/* Bounds on what a load accepts; beyond them it fails with a clear error. */
#define AFW_POLICY_MAX_FILE	(16u << 20)
#define AFW_POLICY_MAX_LINE	4096u
#define AFW_POLICY_MAX_RULES	200000u

struct afw_policy;

struct afw_policy_error {
	unsigned int line;	/* 1-based; 0 when the error is not about one line */
	unsigned int column;	/* 1-based byte column of @token; 0 if none */
	char token[64];		/* the offending word, possibly cut short */
	char msg[400];		/* "FILE:LINE:COL: 'token': reason", ready to print */
};

/* The outcome of a match. */
struct afw_policy_match {
	enum afw_decision verdict;
	unsigned int line;	/* of the matching rule, or of the default line */
	uint32_t prio;		/* of the matching rule; 0 for the default */
	int is_default;
	/*
	 * The flow's reason is one that only a rule naming it may decide
	 * (malformed, evasion: afw_policy_strict()), and none did: denied,
	 * whatever the default says. line is 0 then.
	 */
	int unnamed;
	/*
	 * The policy said ask, and a rule of its answers (afw_policy_set_answers())
	 * decided instead: line and prio are that rule's, in the answers file.
	 */
	int answered;
	/*
	 * afw_policy_settled() only: every rule it looked at, the deciding one
	 * too, tests nothing but the flow's protocol, direction, destination
	 * address and port, so the decision holds for every flow that shares
	 * those (afwd hands it to the module to keep: AFW_FLOW_F_LEARN).
	 */
	int keyed;
};

/* What an ask nobody answers becomes, and after how long, unless the file says. */
#define AFW_POLICY_ASK_DEFAULT	AFW_DECIDE_DENY
#define AFW_POLICY_ASK_TIMEOUT	60u
#define AFW_POLICY_ASK_TIMEOUT_MAX 86400u

/*
 * Reads and checks the file @path. Returns a new policy, or NULL with @err
 * filled in (including when memory runs out). User names in "uid" are
 * resolved here, so a user added later needs a reload.
 */
struct afw_policy *afw_policy_load(const char *path, struct afw_policy_error *err);

/* The same from memory; @name stands for the file name in messages. */
struct afw_policy *afw_policy_parse(const char *text, size_t len, const char *name,
				    struct afw_policy_error *err);

/* Frees @p; NULL is fine. */
void afw_policy_free(struct afw_policy *p);

/*
 * Decides for @f: the rule with the lowest priority that matches, file
 * order breaking ties, else the default; @m, if not NULL, says which.
 * A flow whose reason is strict (afw_policy_strict()) matches only rules
 * whose "reason" names it, and without one it is denied, not defaulted.
 * Reads @p and @f only, allocates nothing, so threads may share @p, and
 * its cost does not grow with the number of host names.
 */
enum afw_decision afw_policy_match(const struct afw_policy *p, const struct afw_facts *f,
				  struct afw_policy_match *m);

/*
 * Whether @p decides @f whatever its bytes turn out to be, from what its
 * first packet shows alone (@f's protocol, addresses, ports, direction,
 * interfaces and user; its l7 and reason are not looked at): the first
 * rule in evaluation order that those match tests nothing the bytes tell
 * and does not inspect, or none can match and the default is deny. Then
 * @m says which, as afw_policy_match() would, and the flow needs no
 * reading: unread, it is never found malformed or misleading, so a rule
 * that matches it decides it. A rule testing the user of a flow without
 * one may match once one shows: that flow is not settled. @m->keyed says
 * whether the decision is one of the flow's key alone. Looks at no
 * more than @budget rules: past that, false, and the flow is read as any
 * other.
 */
bool afw_policy_settled(const struct afw_policy *p, const struct afw_facts *f, size_t budget,
			struct afw_policy_match *m);

/*
 * Whether @p lets every TCP client's SYN through: no flow's ends alone
 * can settle it (afw_policy_settled()) to deny or reject, so each SYN is
 * either allowed by its ends or let through to be read. Then a new
 * connection's bare handshake may pass before afwd sees it (the module's
 * told handshakes): afwd would have passed it all the same. False when
 * unsure.
 */
bool afw_policy_passes_syns(const struct afw_policy *p);

/*
 * The budget afwd gives afw_policy_settled(): a bound on what each new flow
 * (and each flow a reload judges again) costs, about that of one match
 * over host-less rules.
 */
#define AFW_POLICY_SETTLE_RULES 1024

/*
 * Loads @path and, only if that succeeds, frees *@slot and stores the new
 * policy there; otherwise *@slot stays as it was. For single-threaded
 * callers such as a SIGHUP handled in the main loop. Returns 0 or -1.
 */
int afw_policy_reload(struct afw_policy **slot, const char *path, struct afw_policy_error *err);

/*
 * Gives @p the answers people gave for good to its asks (a policy of
 * their own, afwd's answers file, whose default is ask): where @p says
 * ask, the answers' first matching rule decides instead, the same in
 * afw_policy_match() and afw_policy_settled(). @p owns @answers from here
 * on, also on reload, where the new policy gets the new answers.
 */
void afw_policy_set_answers(struct afw_policy *p, struct afw_policy *answers);
const struct afw_policy *afw_policy_answers(const struct afw_policy *p);

/* What a flow no rule matches gets. */
enum afw_decision afw_policy_default(const struct afw_policy *p);

/* What an unanswered ask becomes (allow, deny or reject), and after how many seconds. */
enum afw_decision afw_policy_ask_default(const struct afw_policy *p);
unsigned int afw_policy_ask_timeout(const struct afw_policy *p);
/* Whether any rule, or the default, says ask. */
bool afw_policy_asks(const struct afw_policy *p);

/* Number of rules, not counting the default. */
size_t afw_policy_rules(const struct afw_policy *p);

/*
 * Writes the policy in evaluation order, the default line first, one rule
 * per line in the file syntax with user names as numbers. Parsing the
 * output gives a policy that decides the same.
 */
void afw_policy_print(const struct afw_policy *p, FILE *out);

/*
 * "afwd --check FILE": loads @path, prints "FILE: N rules, default ACTION"
 * and a line for each rule that never decides a flow (afw_policy_unreachable)
 * to @out, or the error to @errout, and returns the exit status: 1 for an
 * error, else 0. A rule that never decides is a warning, not an error: the
 * policy is valid, and afwd.service runs --check before it starts afwd.
 */
int afw_policy_check(const char *path, FILE *out, FILE *errout);

/* A rule that never decides a flow, and the earlier rule that takes all of its flows. */
struct afw_policy_shadow {
	unsigned int line;
	uint32_t prio;
	unsigned int by_line;
	uint32_t by_prio;
};

/*
 * Calls @fn for each rule of @p, in evaluation order, that an earlier rule
 * covers: one with a lower priority, or the same higher in the file, that
 * matches every flow it matches (keyword by keyword; a rule covered only
 * by several together is not found). At most @budget comparisons of two
 * rules: returns how many rules, from the first in evaluation order, were
 * looked at whole, all of them if the budget sufficed.
 */
size_t afw_policy_unreachable(const struct afw_policy *p, size_t budget,
			      void (*fn)(void *ctx, const struct afw_policy_shadow *s), void *ctx);

const char *afw_decision_name(enum afw_decision v);

/*
 * True for the reasons a "default allow" must never let through: the flow
 * tried to mislead a reader (evasion), or is a protocol afwd reads but
 * broken in a way real clients never are (malformed).
 */
static inline int afw_policy_strict(enum afw_reason r)
{
	return r == AFW_REASON_MALFORMED || r == AFW_REASON_EVASION;
}

/* The policy word for @r ("timeout", "mid-stream"...); "" for AFW_REASON_NONE. */
const char *afw_reason_name(enum afw_reason r);

#endif /* AFW_POLICY_H */
