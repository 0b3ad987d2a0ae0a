// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file: settings and rules, checked whole before anything
 * is sent, every error with its line, column and word.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define AFW_CONF_MAX_WORDS 64

/* Where each rule came from, to name both lines of a duplicate id. */
struct afw_conf_id {
	uint32_t id;
	size_t line;
	size_t col;
};

static int afw_conf_id_cmp(const void *a, const void *b)
{
	const struct afw_conf_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * The file's lines, read a megabyte at a time: getline() copies each line
 * out of stdio's 4 kB buffer, a read() a page, and a ruleset runs to
 * millions of lines.
 */
struct afw_conf_lines {
	FILE *f;
	char *buf;
	size_t cap;
	size_t start;		/* the next line's first byte */
	size_t end;		/* past the last byte read */
	bool eof;
};

#define AFW_CONF_CHUNK	(1 << 20)

/*
 * The next line, its '\n' (if any) made a NUL, and its length without
 * it; NULL at the end of the file, or on an error with errno set.
 */
static char *afw_conf_line(struct afw_conf_lines *l, size_t *len)
{
	char *nl, *line, *grown;
	size_t n;

	if (!l->buf) {
		l->buf = malloc(AFW_CONF_CHUNK);
		if (!l->buf)
			return NULL;
		l->cap = AFW_CONF_CHUNK;
	}
	for (;;) {
		line = l->buf + l->start;
		nl = l->start < l->end ? memchr(line, '\n', l->end - l->start) : NULL;
		if (nl || (l->eof && l->start < l->end)) {
			/* The last line may lack its '\n': the read keeps a byte for its NUL. */
			if (!nl)
				nl = l->buf + l->end;
			*nl = '\0';
			*len = (size_t)(nl - line);
			l->start = l->end > (size_t)(nl - l->buf) ? (size_t)(nl - l->buf) + 1 : l->end;
			return line;
		}
		if (l->eof)
			return NULL;
		/* A partial line moves to the front; one longer than the buffer grows it. */
		memmove(l->buf, line, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
		if (l->cap - l->end < AFW_CONF_CHUNK / 2) {
			grown = realloc(l->buf, l->cap * 2);
			if (!grown)
				return NULL;
			l->buf = grown;
			l->cap *= 2;
		}
		n = fread(l->buf + l->end, 1, l->cap - l->end - 1, l->f);
		l->end += n;
		if (!n) {
			if (ferror(l->f))
				return NULL;
			l->eof = true;
		}
	}
}

void afw_conf_free(struct afw_conf *c)
{
	afw_rule_list_free(&c->rules);
	memset(c, 0, sizeof(*c));
}

int afw_conf_read(FILE *f, const char *name, struct afw_conf *c, char *msg, size_t len)
{
	struct afw_conf_lines lines = { .f = f };
	size_t lineno = 0, nids = 0, idcap = 0, i, n, lens[AFW_CONF_MAX_WORDS];
	char *line, *words[AFW_CONF_MAX_WORDS], *tok;
	struct afw_conf_id *ids = NULL, *grown;
	struct afw_rule_spec r;
	struct afw_perr e;
	int nw;

	memset(c, 0, sizeof(*c));
	errno = 0;
	while ((line = afw_conf_line(&lines, &n))) {
		lineno++;
		if (strlen(line) != n) {
			snprintf(msg, len, "%s:%zu: a NUL byte; this is not a text file", name, lineno);
			goto err;
		}
		e.word = -1;
		nw = afw_split_words_len(line, n, words, lens, AFW_CONF_MAX_WORDS, &tok);
		if (nw < 0) {
			char why[64];

			snprintf(msg, len, "%s:%zu:%zu: %s", name, lineno, (size_t)(tok - line) + 1,
				 afw_split_error(nw, AFW_CONF_MAX_WORDS, why, sizeof(why)));
			goto err;
		}
		if (!nw)
			continue;
		if (afw_word_is(words[0], "set")) {
			if (nw == 1) {
				snprintf(msg, len, "%s:%zu:%zu: 'set': missing KEY VALUE", name, lineno,
					 (size_t)(words[0] - line) + 1);
				goto err;
			}
			if (afw_config_parse_words(nw - 1, words + 1, &c->cfg, &c->has, &e)) {
				e.word = e.word >= 0 ? e.word + 1 : 0;
				goto perr;
			}
			continue;
		}
		if (afw_rule_parse_words_len(nw, words, lens, &r, &e))
			goto perr;
		if (afw_rule_list_add(&c->rules, &r))
			goto oom;
		if (r.has & AFW_R_ID) {
			if (r.id > c->max_id)
				c->max_id = r.id;
			if (nids == idcap) {
				idcap = idcap ? idcap * 2 : 256;
				grown = realloc(ids, idcap * sizeof(*ids));
				if (!grown)
					goto oom;
				ids = grown;
			}
			/* "id" is a keyword: its value's word is found again for the column. */
			for (i = 0; i + 1 < (size_t)nw && strcmp(words[i], "id"); i++)
				;
			ids[nids++] = (struct afw_conf_id){ r.id, lineno,
							    (size_t)(words[i + 1] - line) + 1 };
		}
	}
	if (!lines.eof) {
		snprintf(msg, len, "%s: %s: %s", name, ferror(f) ? "read error" : "reading",
			 strerror(errno ? errno : ENOMEM));
		goto err;
	}
	/* The kernel would refuse a ruleset that names one id twice: say where. */
	if (nids)
		qsort(ids, nids, sizeof(*ids), afw_conf_id_cmp);
	for (i = 1; i < nids; i++) {
		if (ids[i].id == ids[i - 1].id) {
			snprintf(msg, len, "%s:%zu:%zu: 'id %u': given on line %zu already", name,
				 ids[i].line, ids[i].col, (unsigned int)ids[i].id, ids[i - 1].line);
			goto err;
		}
	}
	free(ids);
	free(lines.buf);
	return 0;

perr:
	if (e.word >= 0)
		snprintf(msg, len, "%s:%zu:%zu: %s", name, lineno,
			 (size_t)(words[e.word] - line) + 1, e.msg);
	else
		snprintf(msg, len, "%s:%zu: %s", name, lineno, e.msg);
	goto err;
oom:
	snprintf(msg, len, "%s:%zu: %s", name, lineno,
		 errno == EFBIG ? "more rules than one file may hold" : "out of memory");
err:
	free(ids);
	free(lines.buf);
	afw_conf_free(c);
	return -1;
}
