/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * afw: application firewall, generic netlink protocol.
 *
 * This header is the only definition of the protocol; the module and the
 * userspace tools both include it.
 *
 * Family "afw", version AFW_GENL_VERSION. All state is per network namespace:
 * a request acts on the namespace of the netlink socket it arrives on.
 *
 * Commands
 * --------
 * AFW_CMD_STATUS_GET (doit, any user)
 *	request: no attributes
 *	reply:   AFW_A_MODULE_VERSION  NLA_NUL_STRING
 *	         AFW_A_COUNTERS        NLA_NESTED
 *	           AFW_COUNTERS_A_HOOK NLA_NESTED, one per (family, direction):
 *	             AFW_HOOK_A_FAMILY    NLA_U8, AFW_FAMILY_*
 *	             AFW_HOOK_A_DIRECTION NLA_U8, AFW_DIR_*
 *	             AFW_HOOK_A_PACKETS   NLA_U64
 *	             AFW_HOOK_A_BYTES     NLA_U64
 *	Counters start at zero when the namespace is created or the module is
 *	loaded, and again after AFW_CMD_COUNTERS_RESET.
 *
 * AFW_CMD_COUNTERS_RESET (doit, CAP_NET_ADMIN in the namespace's user ns)
 *	request: no attributes
 *	reply:   ack only
 *
 * Requests carrying attributes a command does not take are rejected with
 * EINVAL and an extended ack message.
 */
#ifndef _UAPI_LINUX_AFW_H
#define _UAPI_LINUX_AFW_H

#define AFW_GENL_NAME		"afw"
#define AFW_GENL_VERSION	1

enum afw_cmd {
	AFW_CMD_UNSPEC,
	AFW_CMD_STATUS_GET,
	AFW_CMD_COUNTERS_RESET,
	__AFW_CMD_MAX
};
#define AFW_CMD_MAX (__AFW_CMD_MAX - 1)

/* Address families, numerically equal to AF_INET and AF_INET6. */
enum afw_family {
	AFW_FAMILY_IPV4 = 2,
	AFW_FAMILY_IPV6 = 10,
};

/* Where a packet met the firewall. */
enum afw_direction {
	AFW_DIR_IN,		/* NF_INET_LOCAL_IN */
	AFW_DIR_OUT,		/* NF_INET_LOCAL_OUT */
	AFW_DIR_FORWARD,	/* NF_INET_FORWARD */
	__AFW_DIR_MAX
};
#define AFW_DIR_MAX (__AFW_DIR_MAX - 1)

enum afw_attr {
	AFW_A_UNSPEC,
	AFW_A_MODULE_VERSION,
	AFW_A_COUNTERS,
	__AFW_A_MAX
};
#define AFW_A_MAX (__AFW_A_MAX - 1)

enum afw_counters_attr {
	AFW_COUNTERS_A_UNSPEC,
	AFW_COUNTERS_A_HOOK,
	__AFW_COUNTERS_A_MAX
};
#define AFW_COUNTERS_A_MAX (__AFW_COUNTERS_A_MAX - 1)

enum afw_hook_attr {
	AFW_HOOK_A_UNSPEC,
	AFW_HOOK_A_PAD,
	AFW_HOOK_A_FAMILY,
	AFW_HOOK_A_DIRECTION,
	AFW_HOOK_A_PACKETS,
	AFW_HOOK_A_BYTES,
	__AFW_HOOK_A_MAX
};
#define AFW_HOOK_A_MAX (__AFW_HOOK_A_MAX - 1)

#endif /* _UAPI_LINUX_AFW_H */
