// SPDX-License-Identifier: GPL-2.0
/*
 * afwd's board of questions: an answer kept for a while covers the flows
 * of the program and host (or destination) it was given for, and no
 * others; an answer that cannot be kept exactly is refused with a reason
 * and changes nothing.
 */

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ask.h"
#include "check.h"
#include "result.h"

#define S 1000000000ull

static struct afw_result flow(const char *exe, const char *host)
{
	struct afw_result r = t_result(host, 40000, AFW_DECIDE_ASK);

	if (exe) {
		r.has_owner = true;
		r.owner_pid = 4242;
		snprintf(r.owner_exe, sizeof(r.owner_exe), "%s", exe);
	}
	return r;
}

/* Asks about @r, answers with @how ("allow minutes 5", ...): 0, or -1 with @msg. */
static int ask_answer(struct afw_ask *a, const struct afw_result *r, const char *how,
		      char *msg, size_t msglen)
{
	struct afw_ask_prompt *pr = afw_ask_add(a, 0, r, 0, 60 * S);
	char args[128], rule[512];

	if (!pr)
		return -2;
	snprintf(args, sizeof(args), "%llu %s", (unsigned long long)pr->id, how);
	return afw_ask_answer(a, args, rule, sizeof(rule), msg, msglen) < 0 ? -1 : 0;
}

static enum afw_decision kept(struct afw_ask *a, struct afw_result r)
{
	return afw_ask_kept_match(a, &r, 1 * S);
}

int main(void)
{
	struct afw_result r, cut;
	struct afw_ask a;
	char msg[256], long_exe[300];
	int failed = 0, ret;

	if (afw_ask_init(&a, msg, sizeof(msg))) {
		printf("not ok - afw_ask_init: %s\n", msg);
		return 1;
	}

	r = flow("/usr/bin/curl", "a.test");
	ret = ask_answer(&a, &r, "allow minutes 5", msg, sizeof(msg));
	CHECK(failed, "allow for 5 minutes is kept", ret == 0);
	CHECK(failed, "it covers the program's next flow to the host",
	      kept(&a, flow("/usr/bin/curl", "a.test")) == AFW_DECIDE_ALLOW);
	CHECK(failed, "not another program's", kept(&a, flow("/usr/bin/wget", "a.test")) ==
	      AFW_DECIDE_ASK);
	CHECK(failed, "nor a flow with no program", kept(&a, flow(NULL, "a.test")) ==
	      AFW_DECIDE_ASK);
	CHECK(failed, "nor another host", kept(&a, flow("/usr/bin/curl", "b.test")) ==
	      AFW_DECIDE_ASK);

	/* A path longer than afwd keeps: cut, and shared by every path that begins so. */
	memset(long_exe, 'x', sizeof(long_exe) - 1);
	long_exe[0] = '/';
	long_exe[sizeof(long_exe) - 1] = '\0';
	cut = flow(NULL, "c.test");
	cut.has_owner = true;
	cut.owner_pid = 4243;
	memcpy(cut.owner_exe, long_exe, sizeof(cut.owner_exe) - 4);
	memcpy(cut.owner_exe + sizeof(cut.owner_exe) - 4, "...", 4);
	cut.owner_exe_cut = true;
	msg[0] = '\0';
	ret = ask_answer(&a, &cut, "allow minutes 5", msg, sizeof(msg));
	CHECK(failed, "a program whose path was cut: allow for a while is refused", ret == -1);
	CHECK(failed, "saying why", strstr(msg, "path is longer than afwd keeps answers by"));
	CHECK(failed, "and nothing was kept for it", kept(&a, cut) == AFW_DECIDE_ASK);
	CHECK(failed, "nor for any program to its host", kept(&a, flow("/bin/sh", "c.test")) ==
	      AFW_DECIDE_ASK);
	CHECK(failed, "until exit, refused too",
	      ask_answer(&a, &cut, "allow exit", msg, sizeof(msg)) == -1);
	CHECK(failed, "always, refused too",
	      ask_answer(&a, &cut, "allow always", msg, sizeof(msg)) == -1);
	CHECK(failed, "once is taken", ask_answer(&a, &cut, "allow once", msg, sizeof(msg)) == 0);
	CHECK(failed, "and keeps nothing", kept(&a, cut) == AFW_DECIDE_ASK);

	CHECK(failed, "any host, for a flow with no program, is refused",
	      ask_answer(&a, &(struct afw_result){ 0 }, "deny minutes 5 any", msg,
			 sizeof(msg)) == -1 && strstr(msg, "names no program"));
	ret = ask_answer(&a, &r, "deny minutes 5 any", msg, sizeof(msg));
	CHECK(failed, "deny for a while, any host, by the program", ret == 0);
	CHECK(failed, "covers its flows to other hosts",
	      kept(&a, flow("/usr/bin/curl", "d.test")) == AFW_DECIDE_DENY);

	/* Until the process exits: its pid alone, and only while it lives. */
	{
		struct afw_result e = flow("/usr/bin/fetcher", "e.test");
		pid_t pid = fork();

		if (pid == 0) {
			pause();
			_exit(0);
		}
		e.owner_pid = (uint32_t)pid;
		CHECK(failed, "allow until exit is kept",
		      pid > 0 && ask_answer(&a, &e, "allow exit", msg, sizeof(msg)) == 0);
		CHECK(failed, "it covers the process's next flow", kept(&a, e) == AFW_DECIDE_ALLOW);
		e.owner_pid++;
		CHECK(failed, "not another process of the program", kept(&a, e) == AFW_DECIDE_ASK);
		e.owner_pid--;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		/* As if a new process had taken the pid before the timer's sweep. */
		CHECK(failed, "once it has exited, not its pid's next owner, sweep or not",
		      kept(&a, e) == AFW_DECIDE_ASK);
	}

	{
		/* A question about a ping holds that ping's packets, no other ICMP. */
		struct afw_result pr = t_result("", 0, AFW_DECIDE_ASK);
		struct afw_pkt p;

		pr.l4proto = IPPROTO_ICMP;
		pr.dport = 0;
		pr.echo = AFW_PKT_ECHO_REQUEST;
		pr.icmp_id = 4711;
		memset(&p, 0, sizeof(p));
		p.ipver = 4;
		p.proto = IPPROTO_ICMP;
		p.has_l4 = 1;
		p.echo = AFW_PKT_ECHO_REPLY;
		p.echo_id = 4711;
		memcpy(p.src, pr.dst, 16);
		memcpy(p.dst, pr.src, 16);
		CHECK(failed, "ping: a question about a ping is found by its reply",
		      afw_ask_add(&a, 1, &pr, 0, 60 * S) && afw_ask_find(&a, 1, &p));
		p.echo = AFW_PKT_ECHO_REQUEST;
		CHECK(failed, "ping: not by the other host's ping, same identifier",
		      !afw_ask_find(&a, 1, &p));
		memcpy(p.src, pr.src, 16);
		memcpy(p.dst, pr.dst, 16);
		p.echo_id = 4712;
		CHECK(failed, "ping: nor by another identifier", !afw_ask_find(&a, 1, &p));
		p.echo = AFW_PKT_ECHO_NONE;
		p.echo_id = 0;
		p.icmp_type = 13;
		CHECK(failed, "ping: nor by other ICMP of the two hosts", !afw_ask_find(&a, 1, &p));
	}

	afw_ask_destroy(&a);
	return failed;
}
