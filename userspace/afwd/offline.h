/* SPDX-License-Identifier: GPL-2.0 */
/*
 * afwd --pcap: the live path's analysis over a capture file.
 */
#ifndef AFW_OFFLINE_H
#define AFW_OFFLINE_H

#include <stdbool.h>

#include "engine.h"
#include "policy.h"

/*
 * Runs @path through the engine with @pol and prints one record per flow to
 * stdout, JSON with @json, text otherwise. Returns the exit status: 0, or 1
 * when the capture could not be read to its end (the message, with the byte
 * offset, goes to stderr after the flows decided until then).
 */
int afw_offline_run(const char *path, const struct afw_policy *pol,
		    const struct afw_engine_opts *o, bool json);

#endif /* AFW_OFFLINE_H */
