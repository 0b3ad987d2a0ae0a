#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The client's first flight of the first TCP connection in a capture.

  pcap_stream.py FILE.pcap PORT OUT.bin

Reads a classic pcap (Ethernet or Linux cooked, IPv4), finds the first
connection to PORT and writes, in sequence order, the payload the client sent
before the server sent any. Prints the number of client segments used.
"""
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if linktype == 1:
            ethertype, ip = struct.unpack(">H", frame[12:14])[0], frame[14:]
        elif linktype == 113:
            ethertype, ip = struct.unpack(">H", frame[14:16])[0], frame[16:]
        else:
            sys.exit("pcap_stream: unsupported link type %d" % linktype)
        if ethertype != 0x0800 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        tcp = ip[ihl:total]
        sport, dport, seq = struct.unpack(">HHI", tcp[:8])
        flags = tcp[13]
        doff = (tcp[12] >> 4) * 4
        yield (ip[12:16], sport), (ip[16:20], dport), seq, flags, tcp[doff:]


def main():
    path, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    client = isn = None
    segs = {}
    for src, dst, seq, flags, payload in packets(path):
        if client is None:
            if dst[1] == port and flags & 0x02 and not flags & 0x10:
                client, isn = src, seq
            continue
        if src == client and dst[1] == port and payload:
            segs.setdefault((seq - isn - 1) & 0xFFFFFFFF, payload)
        elif dst == client and payload:
            break
    stream = b""
    for rel in sorted(segs):
        if rel > len(stream):
            sys.exit("pcap_stream: a client segment is missing from the capture")
        stream += segs[rel][len(stream) - rel:]
    if not stream:
        sys.exit("pcap_stream: no client payload to port %d" % port)
    with open(out, "wb") as f:
        f.write(stream)
    print(len(segs))


main()
