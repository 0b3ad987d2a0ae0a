/* SPDX-License-Identifier: GPL-2.0 */
/* A decided TLS flow's result, 10.0.0.1:@sport to 10.0.0.2:443, for afwd's parts. */
#ifndef AFW_TEST_RESULT_H
#define AFW_TEST_RESULT_H

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "engine.h"

static inline struct afw_result t_result(const char *host, uint16_t sport, enum afw_decision d)
{
	struct afw_result r;

	memset(&r, 0, sizeof(r));
	r.family = AF_INET;
	r.l4proto = IPPROTO_TCP;
	inet_pton(AF_INET, "10.0.0.1", r.src);
	inet_pton(AF_INET, "10.0.0.2", r.dst);
	r.sport = sport;
	r.dport = 443;
	r.l7 = AFW_L7_TLS;
	r.decision = d;
	snprintf(r.host, sizeof(r.host), "%s", host);
	return r;
}

#endif /* AFW_TEST_RESULT_H */
