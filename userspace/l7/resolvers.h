/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name servers this host is configured to ask: what the policy's
 * "to resolvers" stands for, read when the policy is loaded.
 */
#ifndef AFW_RESOLVERS_H
#define AFW_RESOLVERS_H

#include <stddef.h>
#include <stdint.h>

/* Where they are listed, in resolv.conf(5) syntax, unless AFW_RESOLV_CONF names others. */
#define AFW_RESOLV_CONF_DEFAULT "/etc/resolv.conf:/run/systemd/resolve/resolv.conf"

/* At most this many, over all the files. */
#define AFW_RESOLVERS_MAX 32

struct afw_resolver {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];
};

/*
 * Reads the "nameserver ADDR" lines of every file of AFW_RESOLV_CONF (a
 * colon-separated list; AFW_RESOLV_CONF_DEFAULT when unset) into @out,
 * each address once, an IPv6 one without its "%scope". The first file
 * lists what the host's programs ask (with systemd-resolved, its stub on
 * 127.0.0.53); the second, where systemd-resolved itself sends their
 * questions. A missing file or an unreadable line lists nothing. Returns
 * how many, at most @max.
 */
size_t afw_resolvers_read(struct afw_resolver *out, size_t max);

#endif /* AFW_RESOLVERS_H */
