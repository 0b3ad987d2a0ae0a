/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading captures for afwd --pcap: classic pcap (either byte order,
 * microsecond or nanosecond timestamps) and pcapng (sections in either
 * byte order, any number of interfaces with their own link type and
 * timestamp resolution; EPB, SPB and the obsolete PB; other blocks are
 * skipped), from a FILE * or from memory, one packet at a time.
 *
 * The caller owns the reader and the record buffer; nothing is allocated.
 * A packet's data points into that buffer until the next call. A damaged
 * file yields -1 and a message naming the byte offset and the fault.
 */
#ifndef AFW_PCAP_H
#define AFW_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A record buffer this large holds any packet tcpdump or dumpcap writes. */
#define AFW_PCAP_BUF_SIZE (262144 + 64)
#define AFW_PCAP_MAX_IFACES 32

struct afw_pcap_pkt {
	uint64_t ts_ns;		/* since the epoch; 0 for a pcapng SPB, which has none */
	unsigned int linktype;	/* AFW_LINK_* / LINKTYPE_* */
	uint32_t iface;		/* pcapng interface id; 0 for pcap */
	uint32_t caplen;	/* bytes at data */
	uint32_t origlen;	/* bytes on the wire */
	const uint8_t *data;
};

struct afw_pcap_iface {
	uint16_t linktype;
	uint32_t snaplen;
	uint8_t tsresol;	/* as the if_tsresol option: 10^-n, or 2^-n with bit 7 */
	int64_t tsoffset;	/* seconds */
};

struct afw_pcap {
	FILE *f;			/* or, when NULL: */
	const uint8_t *mem;
	size_t memlen;
	uint64_t off;			/* file offset of the next byte to read */
	uint8_t pend[24];		/* FILE: bytes read by open, read again */
	uint8_t pend_len, pend_pos;
	uint8_t *buf;
	size_t bufsize;
	int ng;				/* pcapng rather than pcap */
	int swap;			/* file byte order differs from ours */
	int nsec;			/* pcap: nanosecond timestamps */
	uint32_t snaplen;		/* pcap */
	unsigned int linktype;		/* pcap */
	unsigned int nifaces;		/* pcapng: in the current section */
	struct afw_pcap_iface ifaces[AFW_PCAP_MAX_IFACES];
	char err[160];
};

/*
 * Reads the file header. Both return 0, or -1 with the reason in pc->err.
 * @buf holds one record (one pcapng block); AFW_PCAP_BUF_SIZE is enough for
 * ordinary captures, a larger record is reported as an error.
 */
int afw_pcap_open_file(struct afw_pcap *pc, FILE *f, uint8_t *buf, size_t bufsize);
int afw_pcap_open_mem(struct afw_pcap *pc, const uint8_t *mem, size_t len, uint8_t *buf,
		      size_t bufsize);

/* 1: a packet in @pkt; 0: clean end of file; -1: error, reason in pc->err. */
int afw_pcap_next(struct afw_pcap *pc, struct afw_pcap_pkt *pkt);

#endif /* AFW_PCAP_H */
