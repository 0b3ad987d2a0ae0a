/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The afw module, as a worker sees it: FLOW_NEW and FLOW_DEL in batches
 * (the requests of one packet batch leave in one send, and the kernel
 * answers only the ones that fail), the refusals read back, and the
 * module itself coming and going.
 *
 * The socket is opened once, as root, and kept for afwd's whole life: the
 * module may be unloaded and loaded again, but a socket opened later would
 * not have root's credentials. What changes is the family id, learned from
 * the generic netlink controller's notifications and, when a request finds
 * no family, by asking again.
 */
#ifndef AFW_KERNEL_H
#define AFW_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "afwnl.h"
#include "flow.h"

/* Requests held before a send; a batch of packets decides at most this many flows. */
#define AFW_KERN_BATCH 64
/*
 * Room a request may take in the batch, at most: a FLOW_NEW of IPv6 with
 * every attribute it can carry comes to 156 bytes; most take under 128,
 * which the batch is sized for.
 */
#define AFW_KERN_MSG_MAX 256

struct afw_kern_stats {
	uint64_t installed;		/* FLOW_NEW sent */
	uint64_t failed;		/* FLOW_NEW refused by the module */
	uint64_t deleted;		/* FLOW_DEL sent */
	uint64_t syscalls;
	uint64_t gone;			/* times the module went away */
	uint64_t back;			/* times it came (back) */
	uint64_t learned;		/* of FLOW_NEW, those that taught their decision */
	uint64_t told;			/* flows a learned decision decided, told */
	uint64_t handshakes;		/* bare handshake packets told (HANDSHAKE) */
	uint64_t confirmed;		/* packets that confirmed a flow, told (CONFIRMED) */
	uint64_t unconfirmed;		/* of FLOW_NEW, those installed unconfirmed */
	uint64_t overruns;		/* times the socket lost messages (ENOBUFS) */
};

/*
 * A flow the module decided by a decision this socket taught it
 * (AFW_CMD_LEARNED), or a new flow's bare handshake packet it passed
 * (AFW_CMD_HANDSHAKE): the packet's headers and where it was seen.
 */
struct afw_kern_told {
	bool handshake;			/* AFW_CMD_HANDSHAKE or CONFIRMED: it passed */
	bool confirmed;			/* AFW_CMD_CONFIRMED: it confirmed its flow */
	uint8_t dir;			/* AFW_DIR_* */
	uint8_t verdict;		/* AFW_VERDICT_* it was given */
	uint32_t line;
	uint32_t iif, oif;
	bool has_uid;			/* its owner's, when a local process started it */
	uint32_t uid;
	const uint8_t *packet;		/* from the IP header */
	uint16_t len;
};


/* What afw_kern_read() found, besides refusals. */
enum {
	AFW_KERN_WENT = 1,		/* the module went away */
	AFW_KERN_CAME = 2,		/* the module is there now (again, or with a new id) */
};

/* A request the module refused, as afw_kern_read() reports it. */
struct afw_kern_refusal {
	uint8_t cmd;			/* AFW_CMD_FLOW_NEW, _FLOW_DEL or _QUEUE_SERVE */
	struct afw_flow_spec flow;	/* the request's flow, verdict included */
	int error;			/* a positive errno */
	const char *msg;		/* the module's reason, or strerror() */
};

/* What afw_kern_read() hands on: refusals, and flows the module was taught to decide. */
struct afw_kern_calls {
	void (*refused)(const struct afw_kern_refusal *r, void *data);
	void (*told)(const struct afw_kern_told *t, void *data);
	void *data;
};

/*
 * A ring that sends a batch with the call that sends the verdicts, ahead
 * of them (afw_queue_send_ahead()), and that can be made to send now.
 */
struct afw_kern_ring {
	bool (*ahead)(void *ctx, int fd, const void *buf, size_t len);
	void (*submit)(void *ctx);
	void *ctx;
};

struct afw_kern {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t family_id;		/* 0 while the module is not there */
	uint32_t family_version;	/* its AFW_GENL_VERSION */
	unsigned int pending;
	size_t len;
	struct afw_kern_stats stats;
	char batch[AFW_KERN_BATCH * 128] __attribute__((aligned(8)));
	char buf[AFW_NL_BUFSIZE] __attribute__((aligned(8)));
	/* The caller's ring (afw_kern_ring()), which may carry a batch. */
	const struct afw_kern_ring *ring;
	/*
	 * A batch handed to the ring (afw_kern_flush_ahead()): its bytes,
	 * kept until afw_kern_handed(), and whether the ring has not sent
	 * it yet.
	 */
	size_t handed_len;
	bool handed_open;
	char handed[AFW_KERN_BATCH * 128] __attribute__((aligned(8)));
};

/*
 * Opens the socket and, with @news, listens to the controller's news of
 * families (a socket nobody reads should not), then looks for the module.
 * Returns 0 whether or not the module is there (see afw_kern_up()), or a
 * negative errno when there is no socket.
 */
int afw_kern_open(struct afw_kern *k, bool news);
void afw_kern_close(struct afw_kern *k);
int afw_kern_fd(const struct afw_kern *k);

static inline bool afw_kern_up(const struct afw_kern *k)
{
	return k->family_id != 0;
}

/* Whether the module holds flows unconfirmed (AFW_FLOW_A_CONFIRM, version 5). */
static inline bool afw_kern_confirms(const struct afw_kern *k)
{
	return k->family_id != 0 && k->family_version >= 5;
}

/*
 * Asks the controller for the family (a round trip; not on the packet
 * path). Returns 0 when the module is there, -ENOENT when it is not.
 */
int afw_kern_resolve(struct afw_kern *k);

/*
 * Queue FLOW_NEW (or FLOW_DEL) for @f; the batch is sent first when full.
 * Nothing is queued while the module is not there: they return false.
 */
bool afw_kern_add(struct afw_kern *k, const struct afw_flow_spec *f);
/*
 * FLOW_NEW with AFW_FLOW_F_LEARN: the module keeps the decision for every
 * new connection in direction @dir (AFW_DIR_*) to @f's destination, and
 * tells this socket of each (afw_kern_read()). @line is the policy's.
 */
bool afw_kern_learn(struct afw_kern *k, const struct afw_flow_spec *f, uint8_t dir,
		    uint32_t line);
/* LEARN_FLUSH with the batch: the module forgets every decision it was taught. */
bool afw_kern_forget(struct afw_kern *k);
bool afw_kern_del(struct afw_kern *k, const struct afw_flow_spec *f);

/*
 * Queues QUEUE_SERVE for queue @num: this socket serves it, for as long as
 * it is open, so the module can count what it sends to queues nobody
 * serves; with @tell, it is told the bare handshakes of the queue's new
 * TCP flows (AFW_CMD_HANDSHAKE) in place of their packets. With the batch;
 * false while the module is not there.
 */
bool afw_kern_serve(struct afw_kern *k, uint16_t num, bool tell);

/*
 * Sends the queued requests in one call. When the send itself fails,
 * @refused is called for each request, as if the module had refused it.
 */
int afw_kern_flush(struct afw_kern *k, void (*refused)(const struct afw_kern_refusal *r,
						       void *data), void *data);

/* Batches may go with @ring's calls (afw_kern_flush_ahead()); NULL: never. */
void afw_kern_ring(struct afw_kern *k, const struct afw_kern_ring *ring);

/*
 * As afw_kern_flush(), but the batch is handed to the ring, to go out
 * with its next call, ahead of the verdicts: no call of its own. Sent at
 * once, as afw_kern_flush() does, when there is no ring or it has no
 * room. Any later send of this socket's goes after it (the ring is made
 * to send first), so requests keep their order.
 */
int afw_kern_flush_ahead(struct afw_kern *k,
			 void (*refused)(const struct afw_kern_refusal *r, void *data), void *data);

/*
 * The ring's call that carried the handed batch has returned, its send
 * failed with @err (a negative errno) or not (0): on failure @refused is
 * called for each of its requests, as afw_kern_flush() does.
 */
void afw_kern_handed(struct afw_kern *k, int err,
		     void (*refused)(const struct afw_kern_refusal *r, void *data), void *data);

/*
 * Reads what the kernel sent, without blocking: @c->refused is called for
 * each refused request, @c->told for each flow a learned decision decided;
 * news of the module's family is acted on. Returns AFW_KERN_WENT and
 * AFW_KERN_CAME bits (both when it went and came back between two reads).
 */
int afw_kern_read(struct afw_kern *k, const struct afw_kern_calls *c);

/* FLOW_FLUSH, waiting for the module's answer. 0 or a negative errno. */
int afw_kern_flow_flush(struct afw_kern *k);

#endif /* AFW_KERNEL_H */
