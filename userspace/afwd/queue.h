/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One NFQUEUE, read and answered in batches: many packets per receive
 * call, and one send carrying the verdicts of a whole batch, runs of equal
 * verdicts folded into one batch verdict. A second queue may share the
 * socket: one that copies only the first bytes of each packet, for flows
 * whose headers are all afwd still reads.
 */
#ifndef AFW_QUEUE_H
#define AFW_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Packets taken from the socket per receive call, and at most per batch. */
#define AFW_QUEUE_BATCH 64

enum afw_queue_io {
	AFW_QUEUE_IO_AUTO,		/* io_uring where it works, else poll() */
	AFW_QUEUE_IO_URING,		/* io_uring, or fail to open */
	AFW_QUEUE_IO_POLL,		/* poll(), recvmmsg(), send() */
};

struct afw_queue_opts {
	enum afw_queue_io io;
	uint32_t maxlen;		/* packets the kernel holds for us */
	uint32_t rcvbuf;		/* socket receive buffer, bytes */
	bool fail_open;			/* NFQA_CFG_F_FAIL_OPEN */
};

/* What the headers queue copies of a packet: IPv6, extension headers, TCP. */
#define AFW_QUEUE_HEAD_BYTES 256

/* One queued packet; data points into the queue's receive buffer. */
struct afw_qpkt {
	uint32_t id;
	uint16_t queue;			/* the queue it came from */
	bool head;			/* from the headers queue: data holds the first bytes */
	uint16_t hw_proto;		/* ETH_P_IP or ETH_P_IPV6, host order */
	uint8_t hook;
	bool has_uid;
	uint32_t uid, gid;
	uint32_t mark;
	uint32_t skbinfo;		/* NFQA_SKB_*: checksum state, GSO */
	uint32_t indev;			/* input interface; 0 when sent by this host */
	uint32_t outdev;		/* output interface; 0 when for this host */
	const uint8_t *data;		/* from the IP header */
	uint32_t len;			/* bytes at data */
	uint32_t orig_len;		/* the packet's length, when truncated */
};

struct afw_queue_stats {
	uint64_t packets;		/* packet messages received */
	uint64_t batches;		/* receive rounds that found packets */
	uint64_t verdict_msgs;		/* verdict messages sent */
	uint64_t syscalls;		/* every call into the kernel for this queue */
	uint64_t polls;			/* waits for packets, local work or time */
	uint64_t waits;			/* of those, gatherings that ran their course */
	uint64_t errors;		/* malformed messages, failed sends */
	uint64_t ring_failed;		/* io_uring_enter() calls that failed or left entries */
	uint64_t setup_dropped;		/* came while a queue was being bound: dropped */
	bool io_fell_back;		/* io_uring had no multishot receive: poll() now */
};

struct afw_queue;

/*
 * Binds queue @num, and with @head >= 0 queue @head on the same socket,
 * copying only the first AFW_QUEUE_HEAD_BYTES of each packet (its packets
 * come with head set). Returns NULL with errno set and a message in @err
 * when @num cannot be bound; a headers queue that cannot be is left out,
 * and afw_queue_head() tells why.
 */
struct afw_queue *afw_queue_open(uint16_t num, int head, const struct afw_queue_opts *o,
				 char *err, size_t errlen);
/* 0 when the headers queue is bound; otherwise the errno binding it gave (or ENOENT). */
int afw_queue_head(const struct afw_queue *q);
void afw_queue_close(struct afw_queue *q);
int afw_queue_fd(const struct afw_queue *q);

/* Watches @fd for local work too; returns its bit in afw_queue_wait()'s *ready. */
int afw_queue_watch(struct afw_queue *q, int fd);
/*
 * While watch @bit rests, its fd being readable does not end a wait: the
 * caller reads it on a timer of its own instead, a batch at a time. A poll
 * armed already may still report it once.
 */
void afw_queue_rest(struct afw_queue *q, int bit, bool rest);

/*
 * Sends the verdicts flushed so far, if they have not gone yet, then waits
 * and takes packets, up to AFW_QUEUE_BATCH:
 *  - @gather_ns 0: until a packet comes, a watched fd is readable, or
 *    @timeout_ns (0: take what is there, without waiting);
 *  - otherwise: for @gather_ns however many packets come, unless a batch
 *    fills or a watched fd is readable; *gathered tells it ran its course.
 * Returns the packets' number, or -1 on an error. They stay valid until the
 * next call. *ready gets the bits of the watched fds that are readable.
 */
int afw_queue_wait(struct afw_queue *q, struct afw_qpkt *pkts, uint64_t timeout_ns,
		   uint64_t gather_ns, unsigned int *ready, bool *gathered);

/* "io_uring" or "poll": how the queue waits. */
const char *afw_queue_io_name(const struct afw_queue *q);

/*
 * Appends a verdict (NF_ACCEPT, NF_DROP, NF_REPEAT) for packet @p. Verdicts
 * must come in the order the packets were received, one per packet.
 */
/*
 * A packet kept waiting for its verdict past its round (ask.h): while any
 * is, verdicts go one by one, for a batch verdict would answer every
 * packet up to its id, the waiting one too. afw_queue_release() after the
 * waiting packet's verdict.
 */
void afw_queue_hold(struct afw_queue *q);
void afw_queue_release(struct afw_queue *q);

void afw_queue_verdict(struct afw_queue *q, const struct afw_qpkt *p, uint32_t verdict,
		       uint32_t mark, bool set_mark);

/* Sends every appended verdict in one call. Returns 0 or -1. */
int afw_queue_flush(struct afw_queue *q);

/*
 * With io_uring, before any verdict is queued: @len bytes at @buf go out
 * on @fd (a netlink socket: the send is done within the call) with the
 * next afw_queue_wait() or afw_queue_submit(), and the verdicts queued
 * after them go after that send (the kernel issues entries in order).
 * @buf must stay as it is until a call has taken the send, which
 * afw_queue_ahead_pending() tells; afw_queue_ahead_err() then says
 * whether it failed.
 * False without a ring, with verdicts queued, or with no room on it: the
 * caller sends the bytes itself.
 */
bool afw_queue_send_ahead(struct afw_queue *q, int fd, const void *buf, size_t len);

/* The send ahead's failure (a negative errno) since the last call, or 0. */
int afw_queue_ahead_err(struct afw_queue *q);

/*
 * The send ahead is still queued: the call that was to carry it failed
 * before the kernel took it, and the next call will. Its buffer is still
 * in use.
 */
bool afw_queue_ahead_pending(const struct afw_queue *q);

/*
 * Submits what is queued on the ring now, without waiting for packets,
 * until the kernel has taken all of it.
 */
void afw_queue_submit(struct afw_queue *q);

const struct afw_queue_stats *afw_queue_stats(const struct afw_queue *q);

#endif /* AFW_QUEUE_H */
