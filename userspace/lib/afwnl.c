// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing shared by afwctl and afwd.
 */

#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/afw.h>

#include "afwnl.h"

struct afw_nl_call {
	struct afw_nl *nl;
	mnl_cb_t cb;
	void *data;
};

static int afw_nl_extack_attr(const struct nlattr *attr, void *data)
{
	struct afw_nl *nl = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0) {
		strncpy(nl->ext_msg, mnl_attr_get_str(attr), sizeof(nl->ext_msg) - 1);
		nl->ext_msg[sizeof(nl->ext_msg) - 1] = '\0';
	}
	return MNL_CB_OK;
}

/*
 * libmnl's own error handler keeps only errno; this one also keeps the text
 * the kernel put in the extended ack, which is what a user needs to see.
 */
static int afw_nl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct afw_nl_call *call = data;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (err->error == 0)
		return MNL_CB_STOP;

	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += err->msg.nlmsg_len - sizeof(err->msg);
		if (off <= mnl_nlmsg_get_payload_len(nlh))
			mnl_attr_parse(nlh, off, afw_nl_extack_attr, call->nl);
	}
	errno = err->error < 0 ? -err->error : err->error;
	return MNL_CB_ERROR;
}

/*
 * With a control array, libmnl runs no default handler for the types left
 * empty: the end of a dump must be caught here. A dump that failed midway
 * carries its error in the DONE message.
 */
static int afw_nl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct afw_nl_call *call = data;
	int err;

	/* A change after the last part of a dump flags only its end. */
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		call->nl->dump_intr = true;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err)) {
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
		if (err < 0) {
			errno = -err;
			return MNL_CB_ERROR;
		}
	}
	return MNL_CB_STOP;
}

static int afw_nl_overrun_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	errno = ENOSPC;
	return MNL_CB_ERROR;
}

static int afw_nl_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct afw_nl_call *call = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		call->nl->dump_intr = true;
	return call->cb ? call->cb(nlh, call->data) : MNL_CB_OK;
}

int afw_nl_talk(struct afw_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = afw_nl_error_cb,
		[NLMSG_DONE] = afw_nl_done_cb,
		[NLMSG_OVERRUN] = afw_nl_overrun_cb,
	};
	struct afw_nl_call call = { .nl = nl, .cb = cb, .data = data };
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	nl->ext_msg[0] = '\0';
	nl->dump_intr = false;
	nl->syscalls++;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		nl->syscalls++;
		len = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (len < 0)
			return -errno;
		ret = mnl_cb_run2(nl->buf, len, seq, nl->portid, afw_nl_data_cb,
				  &call, ctl, NLMSG_MIN_TYPE);
		if (ret < 0)
			return -errno;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static struct nlmsghdr *afw_nl_put_header(struct afw_nl *nl, uint16_t type,
					  uint8_t cmd, uint8_t version,
					  uint16_t flags)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;

	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

struct nlmsghdr *afw_nl_request(struct afw_nl *nl, uint8_t cmd, uint16_t flags)
{
	return afw_nl_put_header(nl, nl->family_id, cmd, AFW_GENL_VERSION, flags);
}

/* One of CTRL_ATTR_MCAST_GROUPS: the flows group's id, if it is that. */
static int afw_nl_mcgrp_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr *a, *name = NULL, *id = NULL;
	struct afw_nl *nl = data;

	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_ERROR;
	mnl_attr_for_each_nested(a, attr) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			name = a;
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			id = a;
	}
	if (name && id && !strcmp(mnl_attr_get_str(name), AFW_MCGRP_FLOWS))
		nl->mcgrp_flows = mnl_attr_get_u32(id);
	return MNL_CB_OK;
}

static int afw_nl_family_attr(const struct nlattr *attr, void *data)
{
	struct afw_nl *nl = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_MCAST_GROUPS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		return mnl_attr_parse_nested(attr, afw_nl_mcgrp_attr, nl);
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		nl->family_id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		nl->version = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int afw_nl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), afw_nl_family_attr, data);
}

int afw_nl_socket(struct afw_nl *nl)
{
	int one = 1, ret;

	memset(nl, 0, offsetof(struct afw_nl, buf));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		mnl_socket_close(nl->sock);
		nl->sock = NULL;
		return ret;
	}
	/* Both are best effort: old kernels simply send plainer errors. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (unsigned int)time(NULL);
	return 0;
}

int afw_nl_open(struct afw_nl *nl)
{
	struct nlmsghdr *nlh;
	int ret;

	ret = afw_nl_socket(nl);
	if (ret)
		return ret;
	nlh = afw_nl_put_header(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, AFW_GENL_NAME);
	ret = afw_nl_talk(nl, nlh, afw_nl_family_cb, nl);
	if (ret)
		goto err_close;
	if (!nl->family_id) {
		ret = -EBADMSG;
		goto err_close;
	}
	return 0;

err_close:
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return ret;
}

void afw_nl_rcvbuf(struct mnl_socket *sock, int bytes)
{
	int fd = mnl_socket_get_fd(sock);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

int afw_nl_join_flows(struct afw_nl *nl)
{
	int grp = (int)nl->mcgrp_flows;

	if (!grp)
		return -EOPNOTSUPP;
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		return -errno;
	/* A collector's walk tells up to AFW_FLOW_COUNTS_PER_WALK flows at once. */
	afw_nl_rcvbuf(nl->sock, AFW_NL_FLOWS_RCVBUF);
	return 0;
}

void afw_nl_close(struct afw_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}
