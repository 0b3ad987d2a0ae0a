// SPDX-License-Identifier: GPL-2.0
/*
 * afwtlsrate: TLS handshakes one after another, timed, for the benchmark's
 * "TLS handshake" column.
 *
 *   afwtlsrate ADDR PORT N NAME CAFILE
 *	N new connections to ADDR:PORT, each timed from socket() until
 *	OpenSSL's handshake is done: the TCP connect, then the TLS handshake
 *	with NAME as SNI and the server's certificate verified against
 *	CAFILE (a firewall that passes a handshake the client then refuses
 *	would be timed for nothing). Each is closed at once (no session
 *	resumption: every handshake is a full one, as a new client's is).
 *	Prints "tlsrate: OK/N ok, R hs/s, p50 A us, p99 B us"; exits 1 if
 *	any failed, and dies by SIGALRM if the run outlasts a second a
 *	handshake and a minute.
 *
 * C and blocking calls, like afwstress connrate: Python's or curl's own
 * costs per connection would hide a firewall's under emulation.
 */

#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static double afwtls_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int afwtls_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One handshake: its time in seconds, or -1 on failure (said on stderr once). */
static double afwtls_once(SSL_CTX *ctx, const struct addrinfo *ai, const char *name)
{
	static int told;
	double t0 = afwtls_now(), t = -1;
	SSL *ssl = NULL;
	int fd;

	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0) {
		if (!told++)
			perror("afwtlsrate: socket");
		return -1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		if (!told++)
			perror("afwtlsrate: connect");
		goto out;
	}
	ssl = SSL_new(ctx);
	if (!ssl || !SSL_set_fd(ssl, fd) || !SSL_set_tlsext_host_name(ssl, name) ||
	    !SSL_set1_host(ssl, name))
		goto out;
	if (SSL_connect(ssl) != 1)
		goto out;
	t = afwtls_now() - t0;
out:
	if (t < 0 && !told++) {
		fprintf(stderr, "afwtlsrate: a handshake failed: ");
		ERR_print_errors_fp(stderr);
		fputc('\n', stderr);
	}
	SSL_free(ssl);
	close(fd);
	return t;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST };
	struct addrinfo *ai = NULL;
	unsigned long n, i, ok = 0;
	SSL_CTX *ctx = NULL;
	double *t = NULL, start, wall;
	int ret = 2;

	if (argc != 6) {
		fprintf(stderr, "usage: afwtlsrate ADDR PORT N NAME CAFILE\n");
		return 2;
	}
	n = strtoul(argv[3], NULL, 10);
	if (!n || getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "afwtlsrate: bad address %s port %s or count %s\n", argv[1],
			argv[2], argv[3]);
		return 2;
	}
	t = calloc(n, sizeof(*t));
	ctx = SSL_CTX_new(TLS_client_method());
	if (!t || !ctx)
		goto out;
	if (SSL_CTX_load_verify_locations(ctx, argv[5], NULL) != 1) {
		fprintf(stderr, "afwtlsrate: cannot read %s\n", argv[5]);
		goto out;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* Every handshake full: no ticket or session is offered again. */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	/* A server that resets mid-handshake fails that handshake, not the run. */
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned int)(n < 100000 ? n : 100000) + 60);
	start = afwtls_now();
	for (i = 0; i < n; i++) {
		double d = afwtls_once(ctx, ai, argv[4]);

		if (d >= 0)
			t[ok++] = d;
	}
	wall = afwtls_now() - start;
	qsort(t, ok, sizeof(*t), afwtls_cmp);
	printf("tlsrate: %lu/%lu ok, %.1f hs/s, p50 %.1f us, p99 %.1f us\n", ok, n, ok / wall,
	       ok ? t[(ok - 1) / 2] * 1e6 : 0, ok ? t[(ok * 99 + 99) / 100 - 1] * 1e6 : 0);
	ret = ok == n ? 0 : 1;
out:
	SSL_CTX_free(ctx);
	free(t);
	freeaddrinfo(ai);
	return ret;
}
