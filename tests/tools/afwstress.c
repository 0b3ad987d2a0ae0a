// SPDX-License-Identifier: GPL-2.0
/*
 * afwstress: the load generators of the stress scenario that a shell loop
 * would run too slowly under emulation.
 *
 *   afwstress flows SECONDS [SEED [PER_SECOND]]
 *	FLOW_NEW and FLOW_DEL for SECONDS in the namespace it runs in, as fast
 *	as the module answers or at most PER_SECOND requests a second. Keys come from a pool of a few thousand
 *	(IPv4 and IPv6, TCP, UDP, ICMP), so that deletes find flows and adds
 *	replace them; one in 500 requests flushes. When the module goes away
 *	(rmmod) it reopens the family until it is back. Prints
 *	"flows: added N deleted N ...".
 *   afwstress fill N
 *	N flows installed in the namespace it runs in, one after another,
 *	none that the benchmarks' own packets belong to (IPv4 UDP from
 *	100.64.0.0/10, accepted for an hour): the table a lookup meets when
 *	that many flows are live. Prints "fill: added OK of N in S s"; exits
 *	1 at the first refusal (max_flows reached), saying it.
 *   afwstress newflows ADDR N PER_SECOND
 *	N UDP datagrams of 32 bytes to the IPv4 ADDR, each the first packet
 *	of a flow of its own (source ports 1024 to 61023, then the next
 *	destination port from 9 up), at most PER_SECOND a second: a flood of
 *	new flows for whatever decides them. Prints "newflows: sent OK of N
 *	in S s"; exits 1 if any send failed.
 *   afwstress echo ADDR PORT
 *	TCP and UDP echo server on ADDR PORT, until killed.
 *   afwstress conns ADDR PORT SECONDS [PER_SECOND]
 *	Short connections to an echo server for SECONDS, at most PER_SECOND
 *	TCP connections (and as many UDP exchanges) a second: each connection
 *	sends one line, waits up to 1 s for its echo and closes (one in four
 *	with a reset); each UDP exchange sends one datagram and waits up to
 *	0.5 s. Prints "conns: tcp OK/N udp OK/N". Failures are counted, not
 *	fatal: the firewall under test may drop some on purpose.
 *   afwstress connrate ADDR PORT N [REQUEST]
 *	N new TCP connections to an echo server, one after another, each
 *	timed from socket() to its echo: connect, send REQUEST (a line by
 *	default; "\r\n" in it is CRLF, for an HTTP request), read the echo,
 *	close. Blocking calls, no poll: the fewest system calls a connection
 *	can take, so that a firewall's cost is not hidden by the client's.
 *	Prints "connrate: OK/N ok, R conn/s, p50 A us, p99 B us"; exits 1 if
 *	any connection failed, and dies by SIGALRM if the run outlasts a
 *	second a connection and a minute.
 *   afwstress rtt ADDR COUNT INTERVAL_MS
 *	COUNT ICMP echo requests to the IPv4 ADDR, as ping sends them (56
 *	bytes of data) INTERVAL_MS apart, each timed as ping times it, from
 *	just before its send to the kernel's receive timestamp of its reply,
 *	but to the nanosecond where ping prints microseconds. Needs a raw socket (root). Prints "rtt:
 *	OK/N replies, min A avg B max C us"; exits 1 if any reply was lost
 *	(a second each).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/afw.h>

#include "afwnl.h"
#include "flow.h"

static double afws_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps so that the @n-th event since @start is not before n / @rate seconds. */
static void afws_pace(double start, uint64_t n, double rate)
{
	double ahead;

	if (rate <= 0)
		return;
	ahead = start + n / rate - afws_now();
	if (ahead > 0)
		usleep((useconds_t)(ahead * 1e6));
}

static uint64_t afws_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------ */
/* flows */

/* Key number @k of the pool: family, protocol, addresses and ports from its bits. */
static void afws_flow_key(uint32_t k, struct afw_flow_spec *f)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };

	memset(f, 0, sizeof(*f));
	f->family = k & 1 ? AFW_FAMILY_IPV6 : AFW_FAMILY_IPV4;
	f->proto = protos[(k >> 1) % 3];
	if (f->family == AFW_FAMILY_IPV6 && f->proto == IPPROTO_ICMP)
		f->proto = IPPROTO_ICMPV6;
	if (f->family == AFW_FAMILY_IPV4) {
		/* The scenario's client and server subnets, so packets meet these flows. */
		f->src[0] = 192; f->src[2] = 2; f->src[3] = (uint8_t)(2 + (k >> 3) % 4);
		f->dst[0] = 198; f->dst[1] = 51; f->dst[2] = 100; f->dst[3] = 2;
	} else {
		f->src[0] = 0x20; f->src[1] = 0x01; f->src[2] = 0x0d; f->src[3] = 0xb8;
		memcpy(f->dst, f->src, 16);
		f->src[5] = 1; f->src[15] = (uint8_t)(2 + (k >> 3) % 4);
		f->dst[5] = 2; f->dst[15] = 2;
	}
	if (f->proto == IPPROTO_TCP || f->proto == IPPROTO_UDP) {
		f->sport = (uint16_t)(32768 + (k >> 5) % 2048);
		f->dport = (uint16_t)(7000 + (k >> 16) % 4);
	}
}

static int afws_reopen(struct afw_nl *nl, bool *open, double deadline)
{
	int ret;

	if (*open)
		afw_nl_close(nl);
	*open = false;
	while (afws_now() < deadline) {
		ret = afw_nl_open(nl);
		if (!ret) {
			*open = true;
			return 0;
		}
		usleep(20000);
	}
	return -ETIMEDOUT;
}

static int afws_flows(int argc, char **argv)
{
	uint64_t added = 0, deleted = 0, missing = 0, refused = 0, failed = 0, flushes = 0;
	uint64_t reopens = 0, seed;
	struct afw_flow_spec fs;
	double start = afws_now(), deadline, rate;
	struct afw_nl *nl;
	bool open = false;
	uint64_t n = 0;
	uint32_t k;
	int ret;

	if (argc < 1)
		return 2;
	deadline = start + strtod(argv[0], NULL);
	seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)getpid();
	rate = argc > 2 ? strtod(argv[2], NULL) : 0;
	nl = malloc(sizeof(*nl));
	if (!nl)
		return 2;
	while (afws_now() < deadline) {
		if (!open) {
			if (afws_reopen(nl, &open, deadline))
				break;
			reopens++;
		}
		afws_pace(start, n++, rate);
		k = (uint32_t)afws_rand(&seed) % (1U << 18);
		afws_flow_key(k, &fs);
		if (afws_rand(&seed) % 500 == 0) {
			ret = afw_flow_flush(nl);
			flushes += !ret;
		} else if (afws_rand(&seed) % 3) {
			/*
			 * Port 7000 (the echo servers) and ICMP are the scenario's own
			 * traffic and stay accepted; the other ports get any verdict.
			 */
			fs.verdict = (fs.dport == 7000 || !fs.dport) ? AFW_VERDICT_ACCEPT :
				     (uint8_t)(afws_rand(&seed) % (AFW_VERDICT_MAX + 1));
			fs.timeout = 1 + (uint32_t)(afws_rand(&seed) % 30);
			ret = afw_flow_add(nl, &fs);
			if (!ret)
				added++;
			else if (ret == -ENOSPC)
				refused++;
		} else {
			ret = afw_flow_del(nl, &fs);
			if (!ret)
				deleted++;
			else if (ret == -ENOENT && nl->ext_msg[0])
				missing++;	/* "no such flow": the family answered */
		}
		if (ret && ret != -ENOSPC && !(ret == -ENOENT && nl->ext_msg[0])) {
			/* The module went away, or came back under a new family id. */
			failed++;
			if (afws_reopen(nl, &open, deadline))
				break;
			reopens++;
		}
	}
	if (open)
		afw_nl_close(nl);
	free(nl);
	printf("flows: added %" PRIu64 " deleted %" PRIu64 " missing %" PRIu64 " refused %" PRIu64
	       " flushes %" PRIu64 " failed %" PRIu64 " reopens %" PRIu64 "\n",
	       added, deleted, missing, refused, flushes, failed, reopens);
	return 0;
}

/*
 * N flows that no packet of the benchmark's belongs to, each accepted for an
 * hour: IPv4 UDP from 100.64.0.0/10 (shared address space, never the
 * topology's), source address and port counted up from @i, to the
 * server's discard port.
 */
static int afws_fill(int argc, char **argv)
{
	struct afw_flow_spec fs;
	struct afw_nl nl;
	unsigned long n, i, added = 0;
	double start;
	int ret = 0;

	if (argc < 1)
		return 2;
	n = strtoul(argv[0], NULL, 10);
	if (!n || n > (1UL << 22) || afw_nl_open(&nl)) {
		fprintf(stderr, "afwstress: fill needs 1 to %lu flows and the afw family\n",
			1UL << 22);
		return 2;
	}
	memset(&fs, 0, sizeof(fs));
	fs.family = AFW_FAMILY_IPV4;
	fs.proto = IPPROTO_UDP;
	fs.verdict = AFW_VERDICT_ACCEPT;
	fs.timeout = 3600;
	fs.dst[0] = 198; fs.dst[1] = 51; fs.dst[2] = 100; fs.dst[3] = 2;
	fs.dport = 9;
	start = afws_now();
	for (i = 0; i < n; i++) {
		uint32_t a = (100U << 24 | 64U << 16) + (uint32_t)(i >> 10);

		fs.src[0] = (uint8_t)(a >> 24); fs.src[1] = (uint8_t)(a >> 16);
		fs.src[2] = (uint8_t)(a >> 8); fs.src[3] = (uint8_t)a;
		fs.sport = (uint16_t)(1024 + (i & 1023));
		ret = afw_flow_add(&nl, &fs);
		if (ret)
			break;
		added++;
	}
	afw_nl_close(&nl);
	printf("fill: added %lu of %lu in %.1f s%s%s\n", added, n, afws_now() - start,
	       ret ? ", then: " : "", ret ? strerror(-ret) : "");
	return added == n ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* newflows */

/*
 * One raw socket with our own IPv4 header, the kernel filling in the source
 * address, the id and the checksum (raw(7)): a UDP socket a flow would cost
 * the sender more than the firewall under test spends on the packet.
 */
static int afws_newflows(int argc, char **argv)
{
	static const char payload[32] = "afw newflows, not a protocol!!!";
	unsigned long n, i, sent = 0, failed = 0;
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint8_t pkt[20 + 8 + sizeof(payload)];
	double pps, start;
	int fd;

	if (argc < 3)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	pps = strtod(argv[2], NULL);
	if (inet_pton(AF_INET, argv[0], &to.sin_addr) != 1 || !n || n > (1UL << 24) ||
	    pps <= 0) {
		fprintf(stderr, "afwstress: newflows needs an IPv4 address, 1 to %lu flows "
			"and a rate\n", 1UL << 24);
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		fprintf(stderr, "afwstress: raw socket: %s\n", strerror(errno));
		return 2;
	}
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;				/* IPv4, 20-byte header */
	pkt[2] = sizeof(pkt) >> 8;
	pkt[3] = sizeof(pkt) & 0xff;
	pkt[8] = 64;				/* TTL */
	pkt[9] = IPPROTO_UDP;
	memcpy(pkt + 16, &to.sin_addr, 4);
	pkt[24] = (8 + sizeof(payload)) >> 8;
	pkt[25] = (8 + sizeof(payload)) & 0xff;	/* UDP checksum 0: none */
	memcpy(pkt + 28, payload, sizeof(payload));
	start = afws_now();
	for (i = 0; i < n; i++) {
		uint16_t sport = (uint16_t)(1024 + i % 60000);
		uint16_t dport = (uint16_t)(9 + i / 60000);

		pkt[20] = sport >> 8;
		pkt[21] = sport & 0xff;
		pkt[22] = dport >> 8;
		pkt[23] = dport & 0xff;
		if (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			failed++;
		else
			sent++;
		if (i % 100 == 99)
			afws_pace(start, i + 1, pps);
	}
	close(fd);
	printf("newflows: sent %lu of %lu in %.1f s\n", sent, n, afws_now() - start);
	return failed ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* echo and conns */

static int afws_addr(const char *addr, const char *port, struct sockaddr_storage *ss,
		     socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)atoi(port));
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)atoi(port));
		*len = sizeof(*a6);
		return 0;
	}
	fprintf(stderr, "afwstress: bad address %s\n", addr);
	return -1;
}

#define AFWS_CLIENTS 256

static int afws_echo(int argc, char **argv)
{
	struct pollfd pfd[AFWS_CLIENTS + 2];
	struct sockaddr_storage ss, peer;
	socklen_t len, plen;
	unsigned int n = 2, i, oldest = 2;
	char buf[2048];
	ssize_t got;
	int one = 1, fd;

	if (argc < 2 || afws_addr(argv[0], argv[1], &ss, &len))
		return 2;
	pfd[0].fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	pfd[1].fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (pfd[0].fd < 0 || pfd[1].fd < 0)
		return 1;
	setsockopt(pfd[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(pfd[0].fd, (struct sockaddr *)&ss, len) || listen(pfd[0].fd, 512) ||
	    bind(pfd[1].fd, (struct sockaddr *)&ss, len)) {
		perror("afwstress: echo");
		return 1;
	}
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pfd[1].revents & POLLIN) {
			plen = sizeof(peer);
			got = recvfrom(pfd[1].fd, buf, sizeof(buf), 0, (struct sockaddr *)&peer, &plen);
			if (got > 0)
				sendto(pfd[1].fd, buf, (size_t)got, 0, (struct sockaddr *)&peer, plen);
		}
		for (i = 2; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			got = read(pfd[i].fd, buf, sizeof(buf));
			if (got > 0 && write(pfd[i].fd, buf, (size_t)got) == got)
				continue;
			if (got < 0 && errno == EAGAIN)
				continue;
			close(pfd[i].fd);
			pfd[i--] = pfd[--n];
		}
		if (pfd[0].revents & POLLIN) {
			fd = accept4(pfd[0].fd, NULL, NULL, SOCK_NONBLOCK);
			if (fd < 0)
				continue;
			/* Clients whose end vanished under a drop rule are let go, oldest first. */
			if (n == AFWS_CLIENTS + 2) {
				oldest = 2 + (oldest - 2 + 1) % AFWS_CLIENTS;
				close(pfd[oldest].fd);
				pfd[oldest].fd = fd;
				continue;
			}
			pfd[n].fd = fd;
			pfd[n].events = POLLIN;
			n++;
		}
	}
}

static bool afws_wait(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, ms) == 1 && (p.revents & events);
}

static bool afws_tcp_once(const struct sockaddr_storage *ss, socklen_t len, bool reset)
{
	static const char line[] = "afwstress short connection\n";
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char buf[64];
	bool ok = false;
	int fd, err = 0;
	socklen_t elen = sizeof(err);

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	if (connect(fd, (const struct sockaddr *)ss, len) && errno != EINPROGRESS)
		goto out;
	if (!afws_wait(fd, POLLOUT, 1000) ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err)
		goto out;
	if (write(fd, line, sizeof(line) - 1) != sizeof(line) - 1)
		goto out;
	ok = afws_wait(fd, POLLIN, 1000) && read(fd, buf, sizeof(buf)) == sizeof(line) - 1;
out:
	if (reset)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	return ok;
}

static bool afws_udp_once(const struct sockaddr_storage *ss, socklen_t len)
{
	static const char msg[] = "afwstress datagram";
	char buf[64];
	bool ok = false;
	int fd;

	fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	if (!connect(fd, (const struct sockaddr *)ss, len) &&
	    send(fd, msg, sizeof(msg), 0) == sizeof(msg))
		ok = afws_wait(fd, POLLIN, 500) && recv(fd, buf, sizeof(buf), 0) == sizeof(msg);
	close(fd);
	return ok;
}

static int afws_conns(int argc, char **argv)
{
	uint64_t tcp = 0, tcp_ok = 0, udp = 0, udp_ok = 0;
	struct sockaddr_storage ss;
	double start = afws_now(), deadline, rate;
	socklen_t len;

	if (argc < 3 || afws_addr(argv[0], argv[1], &ss, &len))
		return 2;
	deadline = start + strtod(argv[2], NULL);
	rate = argc > 3 ? strtod(argv[3], NULL) : 0;
	while (afws_now() < deadline) {
		afws_pace(start, tcp, rate);
		tcp_ok += afws_tcp_once(&ss, len, tcp % 4 == 3);
		tcp++;
		udp_ok += afws_udp_once(&ss, len);
		udp++;
	}
	printf("conns: tcp %" PRIu64 "/%" PRIu64 " udp %" PRIu64 "/%" PRIu64 "\n",
	       tcp_ok, tcp, udp_ok, udp);
	return 0;
}

static int afws_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One connection of afws_connrate: its time in seconds, or -1 on failure. */
static double afws_connect_once(const struct sockaddr_storage *ss, socklen_t len,
				const char *req, size_t rlen, char *buf)
{
	double t0 = afws_now(), t = -1;
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = socket(ss->ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)ss, len) ||
	    write(fd, req, rlen) != (ssize_t)rlen)
		goto out;
	while (got < rlen) {
		n = read(fd, buf + got, rlen - got);
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	t = afws_now() - t0;
out:
	close(fd);
	return t;
}

static int afws_connrate(int argc, char **argv)
{
	const char *req = "afwstress connection rate\n";
	struct sockaddr_storage ss;
	char rbuf[512], *buf;
	double *t, start, wall;
	unsigned long n, i, ok = 0;
	size_t rlen = 0;
	const char *p;
	socklen_t len;

	if (argc < 3 || afws_addr(argv[0], argv[1], &ss, &len))
		return 2;
	n = strtoul(argv[2], NULL, 10);
	if (argc > 3)
		req = argv[3];
	/* "\r\n" spelt out in the argument is CRLF. */
	for (p = req; *p && rlen < sizeof(rbuf) - 1; p++) {
		if (p[0] == '\\' && p[1] == 'r' && p[2] == '\\' && p[3] == 'n') {
			rbuf[rlen++] = '\r';
			rbuf[rlen++] = '\n';
			p += 3;
			continue;
		}
		rbuf[rlen++] = *p;
	}
	t = calloc(n ? n : 1, sizeof(*t));
	buf = malloc(rlen);
	if (!n || !t || !buf || !rlen)
		return 2;
	/*
	 * A connection the firewall drops would block for minutes: one alarm
	 * for the whole run, at a second a connection and a minute more,
	 * rather than timeouts set on every socket (two more calls each).
	 */
	alarm((unsigned int)(n < 100000 ? n : 100000) + 60);
	start = afws_now();
	for (i = 0; i < n; i++) {
		double d = afws_connect_once(&ss, len, rbuf, rlen, buf);

		if (d >= 0)
			t[ok++] = d;
	}
	wall = afws_now() - start;
	qsort(t, ok, sizeof(*t), afws_cmp_double);
	printf("connrate: %lu/%lu ok, %.1f conn/s, p50 %.1f us, p99 %.1f us\n", ok, n,
	       ok / wall, ok ? t[(ok - 1) / 2] * 1e6 : 0, ok ? t[(ok * 99 + 99) / 100 - 1] * 1e6 : 0);
	free(buf);
	free(t);
	return ok == n ? 0 : 1;
}

#define AFWS_ICMP_HLEN 8
#define AFWS_ICMP_ECHOREPLY 0
#define AFWS_ICMP_ECHO 8

static uint16_t afws_csum(const void *data, size_t len)
{
	const uint8_t *b = data;
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* CLOCK_REALTIME, the clock of the kernel's receive timestamps. */
static double afws_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The reply to request @seq of @id, within a second: when the kernel took
 * it in (SO_TIMESTAMPNS), as ping reads its replies' times, so that the
 * wake-up of this process is not part of the round trip; < 0 if none.
 */
static double afws_echo_reply(int fd, uint16_t id, uint16_t seq)
{
	double deadline = afws_now() + 1;
	uint8_t buf[1500];
	union {
		char b[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl;

	while (afws_now() < deadline) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.b, .msg_controllen = sizeof(ctl.b),
		};
		const struct cmsghdr *cm;
		struct timespec ts;
		const uint8_t *h;
		unsigned int ihl;
		ssize_t n;

		if (!afws_wait(fd, POLLIN, 100))
			continue;
		n = recvmsg(fd, &msg, 0);
		if (n < 20)
			continue;
		/* A raw IPv4 socket reads the IP header too. */
		ihl = (buf[0] & 0x0f) * 4u;
		if ((size_t)n < ihl + AFWS_ICMP_HLEN)
			continue;
		h = buf + ihl;
		if (h[0] != AFWS_ICMP_ECHOREPLY || (h[4] << 8 | h[5]) != id ||
		    (h[6] << 8 | h[7]) != seq)
			continue;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, (struct cmsghdr *)cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
				memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
				return ts.tv_sec + ts.tv_nsec / 1e9;
			}
		}
		return afws_wall();
	}
	return -1;
}

static int afws_rtt(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	double min = 0, max = 0, sum = 0, t0, t1;
	unsigned long n, i, ok = 0, gap_ms;
	uint8_t pkt[AFWS_ICMP_HLEN + 56];
	uint16_t id = (uint16_t)getpid(), c;
	int fd;

	if (argc != 3 || inet_pton(AF_INET, argv[0], &dst.sin_addr) != 1) {
		fprintf(stderr, "rtt: ADDR (IPv4) COUNT INTERVAL_MS\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	gap_ms = strtoul(argv[2], NULL, 10);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		perror("rtt: raw socket");
		return 2;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int)) < 0) {
		perror("rtt: SO_TIMESTAMPNS");
		return 2;
	}
	for (i = AFWS_ICMP_HLEN; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	for (i = 0; i < n; i++) {
		/* Type, code, checksum, identifier, sequence number. */
		memset(pkt, 0, AFWS_ICMP_HLEN);
		pkt[0] = AFWS_ICMP_ECHO;
		pkt[4] = id >> 8;
		pkt[5] = id & 0xff;
		pkt[6] = (i >> 8) & 0xff;
		pkt[7] = i & 0xff;
		c = afws_csum(pkt, sizeof(pkt));
		memcpy(pkt + 2, &c, 2);
		t0 = afws_wall();
		if (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			perror("rtt: sendto");
			return 1;
		}
		t1 = afws_echo_reply(fd, id, (uint16_t)i);
		if (t1 >= 0) {
			t1 -= t0;
			min = !ok || t1 < min ? t1 : min;
			max = t1 > max ? t1 : max;
			sum += t1;
			ok++;
		}
		usleep((useconds_t)(gap_ms * 1000));
	}
	close(fd);
	printf("rtt: %lu/%lu replies, min %.2f avg %.2f max %.2f us\n", ok, n, min * 1e6,
	       ok ? sum / ok * 1e6 : 0, max * 1e6);
	return ok == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "flows"))
		return afws_flows(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "fill"))
		return afws_fill(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "newflows"))
		return afws_newflows(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "echo"))
		return afws_echo(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "conns"))
		return afws_conns(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "connrate"))
		return afws_connrate(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "rtt"))
		return afws_rtt(argc - 2, argv + 2);
	fprintf(stderr, "usage: afwstress flows SECONDS [SEED [PER_SECOND]]\n"
			"       afwstress fill N\n"
			"       afwstress newflows ADDR N PER_SECOND\n"
			"       afwstress echo ADDR PORT\n"
			"       afwstress conns ADDR PORT SECONDS [PER_SECOND]\n"
			"       afwstress connrate ADDR PORT N [REQUEST]\n"
			"       afwstress rtt ADDR COUNT INTERVAL_MS\n");
	return 2;
}
