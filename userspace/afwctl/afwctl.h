/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AFWCTL_H
#define AFWCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "afwnl.h"
#include "conf.h"
#include "flow.h"
#include "rule.h"

/*
 * One invocation, parsed whole before the kernel is asked anything: a typo
 * is a usage error, never "module not loaded".
 */
struct afwctl_req {
	bool json;
	bool yes;			/* enable, config set, load: --yes */
	int sub;			/* the command's own subcommand enum */
	const char *file;		/* load, check */
	uint32_t id;			/* rule del */
	struct afw_rule_spec rule;	/* rule add */
	struct afw_flow_spec flow;	/* flow add, del */
	struct afw_config cfg;		/* config set */
	unsigned int has;		/* AFW_CFG_HAS_* for config set */
	struct afw_conf conf;		/* load, check */
	const char *afwd;		/* afwd's control socket; NULL: do not ask */
	char ask[192];			/* ask: the request line for afwd */
	struct {			/* log */
		const char *db;
		long long since_ms;	/* -1: from the first */
		const char *host;	/* a glob, or NULL */
		const char *verdict;	/* afwd's word, or NULL */
		const char *exe;	/* a glob of the program, or NULL */
		long long limit;	/* the last N; -1: all */
		bool follow;		/* monitor: then new decisions as they are stored */
	} log;
};

/* afwd's control socket, as afwd's --ctl defaults to it. */
#define AFWCTL_AFWD_SOCK "/run/afw/afwd.sock"

/* A flow afwd decided, as its control socket tells it (decided.c). */
struct afwctl_decided {
	uint8_t family, proto;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	bool echo;			/* a ping's flow: icmp_id, its pinger as src */
	uint16_t icmp_id;
	char *decision;			/* afwd's word: allow, deny, reject, inspect */
	char *by;			/* JSON strings, quotes and escapes kept */
	char *host;
};

struct afwctl_decided_set {
	struct afwctl_decided *v;
	size_t n, cap;
};

/*
 * Asks the afwd at @path for the flows it decided; returns 0 or -errno
 * (-EACCES: only root and the group afw may ask; -ENOENT or -ECONNREFUSED:
 * no afwd there). Lines it cannot read are left out.
 */
int afwctl_decided_fetch(const char *path, struct afwctl_decided_set *set);
/* afwd's answer @text (modified) into @set, one flow a line; 0 or -ENOMEM. */
int afwctl_decided_read(char *text, struct afwctl_decided_set *set);
/*
 * One line of afwd's answer into @d (free its strings, as
 * afwctl_decided_free() does); -1, @d empty, if it is not a line afwd writes.
 */
int afwctl_decided_parse(const char *line, struct afwctl_decided *d);
/* afwd's record of @f, in either direction; NULL if none. */
const struct afwctl_decided *afwctl_decided_find(const struct afwctl_decided_set *set,
						 const struct afw_flow_spec *f);
void afwctl_decided_free(struct afwctl_decided_set *set);

/*
 * Rules as fetched from the kernel (free v when done), or a file's as
 * @list, which the SSH guard decodes into v when it has a session to
 * judge. The kernel takes them by prio, then id, whatever the order of v;
 * a file's rule without an id gets the next one above @auto_id, in the
 * order of v, as the commit numbers them (the kernel's all have one).
 */
struct afwctl_rules {
	struct afw_rule_spec *v;
	size_t n, cap;
	uint32_t auto_id;
	const struct afw_rule_list *list;
};

/* Fetches the whole ruleset consistently; returns 0 or -errno. */
int afwctl_rules_fetch(struct afw_nl *nl, struct afwctl_rules *rules);

/* Reports a failed netlink call for @what in one line; returns the exit code. */
int afwctl_fail(const char *what, int err, const struct afw_nl *nl);

/* A usage error: "afwctl: " and the message on stderr; returns 2. */
int afwctl_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Each command: parse returns 0 or the exit code; run gets a NULL nl if offline (check, log). */
#define AFWCTL_CMD(name) \
	int afwctl_##name##_parse(struct afwctl_req *rq, int argc, char **argv); \
	int afwctl_##name##_run(struct afw_nl *nl, struct afwctl_req *rq)

AFWCTL_CMD(status);
AFWCTL_CMD(stats);
AFWCTL_CMD(reset_counters);
AFWCTL_CMD(rule);
AFWCTL_CMD(load);
AFWCTL_CMD(check);
AFWCTL_CMD(save);
AFWCTL_CMD(flow);
AFWCTL_CMD(config);
AFWCTL_CMD(enable);
AFWCTL_CMD(disable);
AFWCTL_CMD(log);
AFWCTL_CMD(monitor);
AFWCTL_CMD(ask);
AFWCTL_CMD(top);
AFWCTL_CMD(learned);

/* Whether @w is the guard's override, --yes or -y (enable, config set, load). */
bool afwctl_is_yes(const char *w);

/*
 * Before @cmd puts @c in force, with @rules (in the kernel's order) or,
 * when NULL, the rules in force: 0 if no open SSH session would be cut by
 * it (or rq->yes, or the user said yes on the terminal), else the exit
 * code, having said which session, why, and that nothing changed.
 */
int afwctl_ssh_guard(struct afw_nl *nl, struct afwctl_req *rq, const struct afw_config *c,
		     const struct afwctl_rules *rules, const char *cmd);

/*
 * afwctl_ssh_guard() for the settings in force with the @has fields of @set
 * over them (only those that can cut: unknown, fail, enabled), when afw
 * would then be on, and, with the rules in force (@rules NULL), with an
 * unknown policy other than accept.
 */
int afwctl_settings_guard(struct afw_nl *nl, struct afwctl_req *rq, const struct afw_config *set,
			  unsigned int has, const struct afwctl_rules *rules, const char *cmd);

/* Parses a "FILE" argument and reads the whole configuration file. */
int afwctl_read_conf(struct afwctl_req *rq, const char *cmd, int argc, char **argv);

void afwctl_json_str(FILE *f, const char *s);
/*
 * The value of @key in one of afwd's JSON lines, as written (a string
 * without its quotes, escapes kept); "" if absent or null. The first
 * occurrence counts: afwd's lines name each key once.
 */
void afwctl_json_field(const char *line, const char *key, char *out, size_t len);
/*
 * A connection to afwd's control socket at @path, @req sent (a line); -1
 * with errno if afwd is not there, and, with @say, a line on stderr.
 */
int afwctl_afwd_connect(const char *path, const char *req, bool say);
/* One of afwd's questions in words: "PROGRAM pid N uid N wants tcp DST:PORT host NAME". */
void afwctl_ask_describe(const char *line, char *buf, size_t len);

#endif /* AFWCTL_H */
