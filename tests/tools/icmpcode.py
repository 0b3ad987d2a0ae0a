#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A ping with an echo code of its own choosing, which ping(8) cannot set.

  icmpcode.py DST ID CODE SECONDS OUT

Sends an IPv4 echo request (type 8, code CODE, identifier ID) to DST every
0.1 s for SECONDS from a raw socket, and appends one line "SEQ" to OUT for
each reply with that identifier, as it comes. Linux answers an echo whatever
its code and copies the code into the reply; conntrack keys both.
"""
import select
import socket
import struct
import sys
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff


def main():
    dst, ident, code, secs, out = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                   float(sys.argv[4]), sys.argv[5])
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    end = time.monotonic() + secs
    seq = 0
    next_send = 0.0
    with open(out, "a", buffering=1) as f:
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_send:
                seq += 1
                body = struct.pack("!HH", ident, seq) + b"afw-code"
                hdr = struct.pack("!BBH", 8, code, 0)
                pkt = struct.pack("!BBH", 8, code, csum(hdr + body)) + body
                s.sendto(pkt, (dst, 0))
                next_send = now + 0.1
            r, _, _ = select.select([s], [], [], max(0.0, min(next_send, end) - time.monotonic()))
            if not r:
                continue
            data = s.recv(2048)
            ihl = (data[0] & 0xf) * 4
            if len(data) >= ihl + 8 and data[ihl] == 0:
                rid, rseq = struct.unpack("!HH", data[ihl + 4:ihl + 8])
                if rid == ident:
                    f.write("%d\n" % rseq)


if __name__ == "__main__":
    main()
