// SPDX-License-Identifier: GPL-2.0
/*
 * What afwd says of the flows it decided: the host name, and the policy
 * line or reader that decided each. The module keeps neither (a flow entry
 * stays small), so flow list asks afwd over its control socket ("flows",
 * one JSON line per flow) and joins the answer to the module's flows.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <linux/afw.h>

#include "afwctl.h"

/* afwd answers while its workers list their flows: a busy one takes a while. */
#define AFWCTL_DECIDED_WAIT_MS 5000

/*
 * Reads "key":VALUE at *@p, where VALUE is a number or a JSON string
 * (returned with its quotes and escapes as they are), and moves *@p past
 * it and a following comma. The keys come in the order afwd writes them.
 */
static int afwctl_json_next(const char **p, const char *key, const char **val, size_t *len)
{
	size_t klen = strlen(key);
	const char *s = *p, *v;

	if (*s != '"' || strncmp(s + 1, key, klen) || s[klen + 1] != '"' || s[klen + 2] != ':')
		return -1;
	v = s + klen + 3;
	s = v;
	if (*s == '"') {
		for (s++; *s && *s != '"'; s++)
			if (*s == '\\' && !*++s)
				return -1;
		if (*s++ != '"')
			return -1;
	} else {
		while (*s >= '0' && *s <= '9')
			s++;
		if (s == v)
			return -1;
	}
	*val = v;
	*len = (size_t)(s - v);
	if (*s == ',')
		s++;
	*p = s;
	return 0;
}

/* Skips to the next "key": at the top level of the object, or fails at its end. */
static int afwctl_json_find(const char **p, const char *key)
{
	size_t klen = strlen(key);
	const char *s = *p;
	bool in = false;

	for (; *s && *s != '\n'; s++) {
		if (in) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				in = false;
			continue;
		}
		if (*s != '"')
			continue;
		if (!strncmp(s + 1, key, klen) && s[klen + 1] == '"' && s[klen + 2] == ':') {
			*p = s;
			return 0;
		}
		in = true;
	}
	return -1;
}

static char *afwctl_dup(const char *v, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, v, len);
		s[len] = '\0';
	}
	return s;
}

static void afwctl_decided_clear(struct afwctl_decided *d)
{
	free(d->decision);
	free(d->by);
	free(d->host);
	memset(d, 0, sizeof(*d));
}

/* "key":N with N at most @max. */
static int afwctl_json_num(const char **p, const char *key, unsigned long max, unsigned long *n)
{
	const char *v;
	size_t len;

	if (afwctl_json_next(p, key, &v, &len) || *v == '"')
		return -1;
	*n = strtoul(v, NULL, 10);
	return *n > max ? -1 : 0;
}

/* "key":"ADDR", an address of @af. */
static int afwctl_json_addr(const char **p, const char *key, int af, uint8_t *addr)
{
	char text[INET6_ADDRSTRLEN + 2];
	const char *v;
	size_t len;

	if (afwctl_json_next(p, key, &v, &len) || *v != '"' || len > sizeof(text))
		return -1;
	snprintf(text, sizeof(text), "%.*s", (int)len - 2, v + 1);
	return inet_pton(af, text, addr) == 1 ? 0 : -1;
}

/* "key":"...", found further on, copied with its quotes. */
static int afwctl_json_text(const char **p, const char *key, char **out)
{
	const char *v;
	size_t len;

	if (afwctl_json_find(p, key) || afwctl_json_next(p, key, &v, &len) || *v != '"')
		return -1;
	*out = afwctl_dup(v, len);
	return *out ? 0 : -1;
}

static int afwctl_decided_fields(const char *line, struct afwctl_decided *d)
{
	const char *p = line, *v;
	unsigned long n, sport, dport;
	size_t len;
	int af;

	memset(d, 0, sizeof(*d));
	if (*p++ != '{' || afwctl_json_num(&p, "queue", 65535, &n) ||
	    afwctl_json_next(&p, "family", &v, &len))
		return -1;
	if (len == 6 && !strncmp(v, "\"ipv4\"", 6))
		d->family = AFW_FAMILY_IPV4;
	else if (len == 6 && !strncmp(v, "\"ipv6\"", 6))
		d->family = AFW_FAMILY_IPV6;
	else
		return -1;
	af = d->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	if (afwctl_json_num(&p, "proto", 255, &n) || afwctl_json_addr(&p, "src", af, d->src) ||
	    afwctl_json_num(&p, "sport", 65535, &sport) ||
	    afwctl_json_addr(&p, "dst", af, d->dst) ||
	    afwctl_json_num(&p, "dport", 65535, &dport))
		return -1;
	d->proto = (uint8_t)n;
	d->sport = (uint16_t)sport;
	d->dport = (uint16_t)dport;
	/* A ping's: its identifier, its pinger as src. */
	v = p;
	if (!afwctl_json_find(&v, "icmp_id")) {
		if (afwctl_json_num(&v, "icmp_id", 65535, &n))
			return -1;
		d->echo = true;
		d->icmp_id = (uint16_t)n;
	}
	return afwctl_json_text(&p, "decision", &d->decision) || afwctl_json_text(&p, "by", &d->by) ||
	       afwctl_json_text(&p, "host", &d->host) ? -1 : 0;
}

int afwctl_decided_parse(const char *line, struct afwctl_decided *d)
{
	if (!afwctl_decided_fields(line, d))
		return 0;
	afwctl_decided_clear(d);
	return -1;
}

static int afwctl_decided_cmp(const void *a, const void *b)
{
	const struct afwctl_decided *x = a, *y = b;
	int c;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if (x->proto != y->proto)
		return x->proto < y->proto ? -1 : 1;
	if (x->sport != y->sport)
		return x->sport < y->sport ? -1 : 1;
	if (x->dport != y->dport)
		return x->dport < y->dport ? -1 : 1;
	if (x->echo != y->echo)
		return x->echo < y->echo ? -1 : 1;
	if (x->icmp_id != y->icmp_id)
		return x->icmp_id < y->icmp_id ? -1 : 1;
	c = memcmp(x->src, y->src, 16);
	return c ? c : memcmp(x->dst, y->dst, 16);
}

void afwctl_decided_free(struct afwctl_decided_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		afwctl_decided_clear(&set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* afwd's whole answer, NUL-terminated; NULL with errno. */
static char *afwctl_decided_ask(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd = { .events = POLLIN };
	size_t len = 0, cap = 0;
	char *buf = NULL, *grown;
	ssize_t n;
	int fd, saved;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    send(fd, "flows\n", 6, MSG_NOSIGNAL) != 6)
		goto err;
	pfd.fd = fd;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (!grown)
				goto err;
			buf = grown;
		}
		n = poll(&pfd, 1, AFWCTL_DECIDED_WAIT_MS);
		if (n == 0)
			errno = ETIMEDOUT;
		if (n <= 0)
			goto err;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0)
			goto err;
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
err:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

int afwctl_decided_read(char *text, struct afwctl_decided_set *set)
{
	struct afwctl_decided d, *grown;
	char *line, *end, *next;

	memset(set, 0, sizeof(*set));
	for (line = text; *line; line = next) {
		end = strchrnul(line, '\n');
		next = *end ? end + 1 : end;
		*end = '\0';
		if (afwctl_decided_parse(line, &d))
			continue;
		if (set->n == set->cap) {
			set->cap = set->cap ? set->cap * 2 : 64;
			grown = realloc(set->v, set->cap * sizeof(*grown));
			if (!grown) {
				afwctl_decided_clear(&d);
				afwctl_decided_free(set);
				return -ENOMEM;
			}
			set->v = grown;
		}
		set->v[set->n++] = d;
	}
	if (set->n)
		qsort(set->v, set->n, sizeof(*set->v), afwctl_decided_cmp);
	return 0;
}

int afwctl_decided_fetch(const char *path, struct afwctl_decided_set *set)
{
	char *text;
	int ret;

	memset(set, 0, sizeof(*set));
	text = afwctl_decided_ask(path);
	if (!text)
		return -errno;
	ret = strncmp(text, "error", 5) ? afwctl_decided_read(text, set) : -EPROTO;
	free(text);
	return ret;
}

const struct afwctl_decided *afwctl_decided_find(const struct afwctl_decided_set *set,
						 const struct afw_flow_spec *f)
{
	struct afwctl_decided key = { .family = f->family, .proto = f->proto };
	const struct afwctl_decided *hit;

	if (!set->n)
		return NULL;
	memcpy(key.src, f->src, 16);
	memcpy(key.dst, f->dst, 16);
	key.sport = f->sport;
	key.dport = f->dport;
	key.echo = f->echo;
	key.icmp_id = f->icmp_id;
	hit = bsearch(&key, set->v, set->n, sizeof(*set->v), afwctl_decided_cmp);
	/* A ping's flow names its pinger first, in the module and in afwd alike. */
	if (hit || f->echo)
		return hit;
	/* An entry the other way round is the same flow. */
	memcpy(key.src, f->dst, 16);
	memcpy(key.dst, f->src, 16);
	key.sport = f->dport;
	key.dport = f->sport;
	return bsearch(&key, set->v, set->n, sizeof(*set->v), afwctl_decided_cmp);
}
