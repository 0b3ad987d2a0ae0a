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

void afw_conf_free(struct afw_conf *c)
{
	afw_rule_list_free(&c->rules);
	memset(c, 0, sizeof(*c));
}

int afw_conf_read(FILE *f, const char *name, struct afw_conf *c, char *msg, size_t len)
{
	struct afw_conf_id *ids = NULL, *grown;
	size_t lineno = 0, linecap = 0, nids = 0, idcap = 0, i;
	char *line = NULL, *words[AFW_CONF_MAX_WORDS], *tok;
	struct afw_rule_spec r;
	struct afw_perr e;
	ssize_t n;
	int nw;

	memset(c, 0, sizeof(*c));
	while ((n = getline(&line, &linecap, f)) != -1) {
		lineno++;
		if (memchr(line, '\0', (size_t)n)) {
			snprintf(msg, len, "%s:%zu: a NUL byte; this is not a text file", name, lineno);
			goto err;
		}
		e.word = -1;
		nw = afw_split_words(line, words, AFW_CONF_MAX_WORDS, &tok);
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
		if (afw_rule_parse_words(nw, words, &r, &e))
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
	if (ferror(f)) {
		snprintf(msg, len, "%s: read error: %s", name, strerror(errno));
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
	free(line);
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
	free(line);
	afw_conf_free(c);
	return -1;
}
