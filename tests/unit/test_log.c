// SPDX-License-Identifier: GPL-2.0
/*
 * The log's writer and the workers' lazy wake-ups: a worker's records reach
 * stderr once 8 wait or the oldest has lingered, and a stop writes what
 * still waits. stderr is a pipe here, read with a deadline.
 */

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "log.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Appends to @buf what the pipe @fd gives within @ms; returns the bytes read. */
static size_t take(int fd, char *buf, size_t cap, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t have = strlen(buf), start = have;
	ssize_t n;

	while (have < cap - 1 && poll(&pfd, 1, ms) == 1) {
		n = read(fd, buf + have, cap - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		ms = 20;	/* the rest of a write comes at once */
	}
	return have - start;
}

/* Waits until the writer says it sleeps, then a while more for its poll(). */
static int asleep(struct afw_log *l)
{
	int i;

	for (i = 0; i < 1000 && !afw_log_writer_asleep(l); i++)
		usleep(10000);
	usleep(100000);
	return afw_log_writer_asleep(l);
}

static unsigned int lines(const char *buf)
{
	unsigned int n = 0;

	for (; *buf; buf++)
		n += *buf == '\n';
	return n;
}

int main(void)
{
	static char out[1 << 16];
	struct afw_log_ring *r;
	struct afw_log *l;
	char err[128];
	int pipefd[2], saved, failed = 0, i;
	uint64_t t;

	if (pipe(pipefd) || (saved = dup(2)) < 0 || dup2(pipefd[1], 2) < 0)
		return 1;
	l = afw_log_new(1, false);
	if (!l || afw_log_start(l, err, sizeof(err))) {
		dup2(saved, 2);
		CHECK(failed, "the writer starts", 0);
		return 1;
	}
	r = afw_log_ring(l, 0);
	CHECK(failed, "nothing waits: nothing is due", afw_log_due(r) == UINT64_MAX);

	CHECK(failed, "the writer sleeps when there is nothing to write", asleep(l));
	t = now_ns();
	afw_log_printf(r, "one\n");
	CHECK(failed, "a record is due within the linger",
	      afw_log_due(r) >= t && afw_log_due(r) <= now_ns() + AFW_LOG_LINGER_NS);
	afw_log_kick_lazy(r, now_ns());
	CHECK(failed, "a lone new record does not wake the sleeping writer",
	      take(pipefd[0], out, sizeof(out), 200) == 0 && afw_log_writer_asleep(l));
	afw_log_kick_lazy(r, afw_log_due(r));
	CHECK(failed, "once it has lingered, it does",
	      take(pipefd[0], out, sizeof(out), 5000) && !strcmp(out, "one\n"));
	CHECK(failed, "and nothing is due any more", afw_log_due(r) == UINT64_MAX);

	out[0] = '\0';
	CHECK(failed, "the writer sleeps again", asleep(l));
	for (i = 0; i < AFW_LOG_KICK_RECORDS - 1; i++)
		afw_log_printf(r, "batch %d\n", i);
	afw_log_kick_lazy(r, now_ns());
	CHECK(failed, "7 young records wait", take(pipefd[0], out, sizeof(out), 200) == 0);
	afw_log_printf(r, "batch %d\n", i);
	/* Within the linger (the 200 ms above passed it): the count alone wakes. */
	afw_log_kick_lazy(r, afw_log_due(r) - 1);
	take(pipefd[0], out, sizeof(out), 5000);
	CHECK(failed, "the 8th wakes the writer, which writes all 8 in order",
	      lines(out) == AFW_LOG_KICK_RECORDS && !strncmp(out, "batch 0\n", 8) &&
	      strstr(out, "batch 7\n"));

	out[0] = '\0';
	afw_log_printf(r, "last\n");
	afw_log_stop(l, 2000000000ull);
	take(pipefd[0], out, sizeof(out), 5000);
	CHECK(failed, "a stop writes what still waits, kicked or not", !strcmp(out, "last\n"));
	afw_log_free(l);
	dup2(saved, 2);
	return failed;
}
