/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's queue settings against what afwd serves: a module that
 * queues (unknown flows, rules whose action is queue) to queues no afwd
 * thread reads loses every such flow
 * without a word (dropped when it fails closed, let through unjudged when
 * it fails open), so afwd says so, loudly, at start and on reload.
 */
#ifndef AFW_SETTINGS_H
#define AFW_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "flow.h"

/*
 * Compares the module's settings @mod with afwd's queues @first to
 * @first + @count - 1 and its --fail-open @fail_open. Writes one line per
 * disagreement to @out (@len bytes, NUL-terminated, cut short if need be)
 * and returns how many there are: 0 when they agree.
 */
unsigned int afw_settings_compare(const struct afw_config *mod, unsigned int first,
				  unsigned int count, bool fail_open, char *out, size_t len);

#endif /* AFW_SETTINGS_H */
