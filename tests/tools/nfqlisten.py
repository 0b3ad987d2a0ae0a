#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A test-only NFQUEUE listener: records every queued packet and answers it.

  nfqlisten.py [--verdict accept|drop|none] [--unload MODULE] LOG QUEUE[-QUEUE]...

Binds the given queue numbers in the caller's network namespace, asks for
the first bytes of each packet, and appends one line per packet to LOG:

  QUEUE PROTO SRC SPORT DST DPORT

PROTO is tcp, udp, icmp, icmpv6 or the protocol number; SPORT and DPORT are
"-" for a protocol without ports or a non-first fragment. Every packet gets
the verdict chosen (accept by default); with "none" every packet waits in
the kernel's queue until the listener goes.

--unload MODULE: after the first packet, close the socket (its queues, and
the packets waiting in them, go with it) and at once unload MODULE, as
rmmod does; then write "unloaded MODULE" or "unload: ERROR" to LOG and exit
0, or 1 if the unload failed. Between the two, the kernel has had no time
to let the closed queues' packets go: the unload meets them. LOG is created only once every queue
is bound, so a caller may wait for it to appear; each line is flushed as it
is written. SIGTERM or SIGINT ends the listener with exit 0; closing its
socket unbinds the queues. A queue that cannot be bound (another listener
holds it, or no permission) is an error: exit 1 with a message.

The layout follows include/uapi/linux/netfilter/nfnetlink_queue.h.
"""
import ctypes
import ipaddress
import os
import signal
import socket
import struct
import sys

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
NLA_TYPE_MASK = 0x3FFF

NFNL_SUBSYS_QUEUE = 3
NFNETLINK_V0 = 0
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG = 0, 1, 2
NFQA_PACKET_HDR, NFQA_VERDICT_HDR, NFQA_PAYLOAD = 1, 2, 10
NFQA_CFG_CMD, NFQA_CFG_PARAMS = 1, 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_PACKET = 2
NF_DROP, NF_ACCEPT = 0, 1
SYS_DELETE_MODULE = 176  # x86_64
O_NONBLOCK = 0o4000

# Enough for an IPv6 header, a few extension headers and the ports.
COPY_RANGE = 256
PROTO_NAMES = {socket.IPPROTO_TCP: "tcp", socket.IPPROTO_UDP: "udp",
               socket.IPPROTO_ICMP: "icmp", socket.IPPROTO_ICMPV6: "icmpv6"}
PORT_PROTOS = (socket.IPPROTO_TCP, socket.IPPROTO_UDP, 136, 132, 33)
# Hop-by-hop, routing, destination options: skipped by their length byte.
IPV6_EXT = (0, 43, 60)
IPV6_FRAG = 44


class Stop(Exception):
    pass


def attr(atype, payload):
    pad = b"\0" * ((4 - len(payload) % 4) % 4)
    return struct.pack("=HH", 4 + len(payload), atype) + payload + pad


def attrs(buf):
    """{type: payload} of a run of netlink attributes; a bad length ends it."""
    out = {}
    off = 0
    while off + 4 <= len(buf):
        length, atype = struct.unpack_from("=HH", buf, off)
        if length < 4 or off + length > len(buf):
            break
        out[atype & NLA_TYPE_MASK] = buf[off + 4:off + length]
        off += (length + 3) & ~3
    return out


def parse_ip(pkt):
    """(proto, src, sport, dst, dport) of an IP packet; ports may be "-"."""
    if len(pkt) < 1:
        return None
    version = pkt[0] >> 4
    first = True
    if version == 4 and len(pkt) >= 20:
        ihl = (pkt[0] & 0xF) * 4
        proto = pkt[9]
        first = struct.unpack_from("!H", pkt, 6)[0] & 0x1FFF == 0
        src, dst = ipaddress.IPv4Address(pkt[12:16]), ipaddress.IPv4Address(pkt[16:20])
        off = ihl
    elif version == 6 and len(pkt) >= 40:
        proto = pkt[6]
        src, dst = ipaddress.IPv6Address(pkt[8:24]), ipaddress.IPv6Address(pkt[24:40])
        off = 40
        while proto in IPV6_EXT + (IPV6_FRAG,) and off + 8 <= len(pkt):
            if proto == IPV6_FRAG:
                first = struct.unpack_from("!H", pkt, off + 2)[0] & 0xFFF8 == 0
                proto, off = pkt[off], off + 8
            else:
                proto, off = pkt[off], off + (pkt[off + 1] + 1) * 8
    else:
        return None
    sport = dport = "-"
    if proto in PORT_PROTOS and first and off + 4 <= len(pkt):
        sport, dport = struct.unpack_from("!HH", pkt, off)
    return PROTO_NAMES.get(proto, str(proto)), src, sport, dst, dport


class Listener:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        # Queued packets wait for their verdict in the kernel: a lost
        # message would leave its packet stuck, so make losses unlikely and
        # never let them abort the loop.
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        self.sock.bind((0, 0))
        self.seq = 0
        self.pending = []

    def send(self, mtype, queue, body, flags=NLM_F_REQUEST):
        self.seq += 1
        nfgen = struct.pack("=BBH", socket.AF_UNSPEC, NFNETLINK_V0, socket.htons(queue))
        payload = nfgen + body
        hdr = struct.pack("=IHHII", 16 + len(payload), NFNL_SUBSYS_QUEUE << 8 | mtype,
                          flags, self.seq, 0)
        self.sock.send(hdr + payload)

    def bind(self, queue):
        """Binds @queue in copy-packet mode; returns the errno, 0 on success.

        One request does both: a queue bound but not yet in copy mode would
        turn its packets away. Packets of queues bound earlier may arrive
        before the answer; they are kept for the main loop to answer.
        """
        self.send(NFQNL_MSG_CONFIG, queue,
                  attr(NFQA_CFG_CMD, struct.pack("=BBH", NFQNL_CFG_CMD_BIND, 0, 0)) +
                  attr(NFQA_CFG_PARAMS, struct.pack("!IB", COPY_RANGE, NFQNL_COPY_PACKET)),
                  NLM_F_REQUEST | NLM_F_ACK)
        seq = self.seq
        while True:
            for mtype, mseq, payload in messages(self.sock.recv(1 << 18)):
                if mtype == NLMSG_ERROR and mseq == seq and len(payload) >= 4:
                    return -struct.unpack_from("=i", payload)[0]
                if mtype == NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET:
                    self.pending.append(payload)

    def packets(self):
        """Payloads of queued-packet messages, the kept ones first."""
        while self.pending:
            yield self.pending.pop(0)
        while True:
            for mtype, _seq, payload in messages(self.sock.recv(1 << 18)):
                if mtype == NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET:
                    yield payload

    def verdict(self, queue, packet_id, verdict):
        self.send(NFQNL_MSG_VERDICT, queue,
                  attr(NFQA_VERDICT_HDR, struct.pack("!II", verdict, packet_id)))


def messages(buf):
    off = 0
    while off + 16 <= len(buf):
        length, mtype, _flags, seq, _pid = struct.unpack_from("=IHHII", buf, off)
        if length < 16 or off + length > len(buf):
            break
        yield mtype, seq, buf[off + 16:off + length]
        off += (length + 3) & ~3


def queues(words):
    out = []
    for w in words:
        lo, _, hi = w.partition("-")
        lo, hi = int(lo), int(hi or lo)
        if not 0 <= lo <= hi <= 65535:
            raise ValueError(w)
        out.extend(range(lo, hi + 1))
    return out


def usage():
    sys.exit("usage: nfqlisten.py [--verdict accept|drop|none] [--unload MODULE] "
             "LOG QUEUE[-QUEUE]...")


def unload(nl, module, log):
    """Closes the queues' socket and unloads @module at once."""
    libc = ctypes.CDLL(None, use_errno=True)
    if os.uname().machine != "x86_64":
        log.write("unload: delete_module's number is known for x86_64 only\n")
        return 1
    nl.sock.close()
    if libc.syscall(SYS_DELETE_MODULE, module.encode(), O_NONBLOCK) != 0:
        log.write("unload: %s\n" % os.strerror(ctypes.get_errno()))
        return 1
    log.write("unloaded %s\n" % module)
    return 0


def main(argv):
    verdict = NF_ACCEPT
    if argv[:1] == ["--verdict"]:
        verdicts = {"accept": NF_ACCEPT, "drop": NF_DROP, "none": None}
        if len(argv) < 2 or argv[1] not in verdicts:
            usage()
        verdict = verdicts[argv[1]]
        argv = argv[2:]
    module = None
    if argv[:1] == ["--unload"]:
        if len(argv) < 2:
            usage()
        module = argv[1]
        argv = argv[2:]
    if len(argv) < 2:
        usage()
    try:
        nums = queues(argv[1:])
    except ValueError as e:
        sys.exit("nfqlisten.py: '%s' is not a queue number or range of 0-65535" % e)

    def stop(*_):
        raise Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    try:
        nl = Listener()
        for q in nums:
            err = nl.bind(q)
            if err:
                sys.exit("nfqlisten.py: cannot bind queue %d: %s" % (q, os.strerror(err)))
        with open(argv[0], "a", buffering=1) as log:
            for payload in nl.packets():
                a = attrs(payload[4:])
                if len(payload) < 4 or len(a.get(NFQA_PACKET_HDR, b"")) < 4:
                    continue
                queue = socket.ntohs(struct.unpack_from("=H", payload, 2)[0])
                packet_id = struct.unpack_from("!I", a[NFQA_PACKET_HDR])[0]
                ip = parse_ip(a.get(NFQA_PAYLOAD, b""))
                if ip:
                    log.write("%d %s %s %s %s %s\n" % ((queue,) + ip))
                else:
                    log.write("%d unparsed\n" % queue)
                if module:
                    return unload(nl, module, log)
                if verdict is not None:
                    nl.verdict(queue, packet_id, verdict)
    except Stop:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
