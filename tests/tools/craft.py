#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Crafts IPv4 and IPv6 packets, well formed or not, and sends them as
Ethernet frames on one interface; or captures what arrives on one.

  craft.py send [OPTIONS] IFACE DMAC SRC DST
  craft.py capture IFACE SRC SECONDS
  craft.py serve

send builds one TCP or UDP packet from SRC to DST (the family follows from
the addresses) with correct checksums, then spoils it as the options ask:

  --proto tcp|udp|none  L4 protocol (udp); none: IPv6 No Next Header
  --sport P --dport P ports (40000, 7777)
  --payload N         bytes of data after the L4 header (8)
  --l4len N           cut the packet after N bytes of L4 header and data
  --ihl N             IPv4 header length in 32-bit words; 6..15 adds NOP options
  --tot-len N         IPv4 total length field, whatever the real length
  --ext LIST          IPv6 extension headers before L4: hbh,dst,rt in any order
  --cut               IPv6: the last extension header names a destination
                      options header that is not there, and no L4 follows
  --frag N            fragment the L4 datagram: the first fragment carries its
                      first N bytes (a multiple of 8), the second the rest
  --send first|later|both   which fragments to send (both)
  --count N           send it N times (1)
  --flags LETTERS     TCP flags from S, A, F, R, P (S)
  --seq N --ack N     TCP sequence and acknowledgment numbers (1, 0)

It prints the IP length (IPv4 total length, IPv6 40 + payload length) of
each frame it sends, one line per frame. TCP is a SYN unless --flags says
otherwise. DMAC is the next
hop's MAC address; the source MAC is IFACE's own.

serve reads send commands ("send [OPTIONS] IFACE DMAC SRC DST"), one per
line on stdin, and answers each with its frames' lengths, then "done" (or
"error MESSAGE", then "done"): one Python start for a whole scenario, which
costs seconds on an emulated debug kernel.

capture prints "ready", then one line "LEN PROTO" for every IPv4 or IPv6
packet from SRC that arrives on IFACE within SECONDS (PROTO is the IPv4
protocol or IPv6 next header field), then exits.
"""
import argparse
import ipaddress
import shlex
import random
import select
import socket
import struct
import sys
import time

from inet import csum

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
# "none" is IPv6's No Next Header (59): the packet ends with its headers.
PROTOS = {"tcp": socket.IPPROTO_TCP, "udp": socket.IPPROTO_UDP, "none": 59}
TCP_FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10}
# IPv6 extension header numbers.
EXT_HBH, EXT_RT, EXT_FRAG, EXT_DST = 0, 43, 44, 60
EXTS = {"hbh": EXT_HBH, "dst": EXT_DST, "rt": EXT_RT}


def l4_datagram(args, src, dst):
    """The whole TCP or UDP datagram, with its checksum over the pseudo-header."""
    proto = PROTOS[args.proto]
    data = bytes(range(args.payload))
    if proto == 59:
        return b""
    if proto == socket.IPPROTO_TCP:
        flags = sum(TCP_FLAGS[c] for c in args.flags)
        hdr = struct.pack("!HHIIBBHHH", args.sport, args.dport, args.seq & 0xFFFFFFFF,
                          args.ack & 0xFFFFFFFF, 5 << 4, flags, 65535, 0, 0)
    else:
        hdr = struct.pack("!HHHH", args.sport, args.dport, 8 + len(data), 0)
    seg = hdr + data
    if src.version == 4:
        pseudo = src.packed + dst.packed + struct.pack("!BBH", 0, proto, len(seg))
    else:
        pseudo = src.packed + dst.packed + struct.pack("!IxxxB", len(seg), proto)
    c = csum(pseudo + seg)
    if proto == socket.IPPROTO_UDP and c == 0:
        c = 0xFFFF
    off = 16 if proto == socket.IPPROTO_TCP else 6
    return seg[:off] + struct.pack("!H", c) + seg[off + 2:]


def ipv4_packet(args, src, dst, proto, body, frag_off, more, ident):
    ihl = args.ihl
    opts = b"\x01" * (ihl * 4 - 20) if ihl > 5 else b""
    tot = args.tot_len if args.tot_len is not None else 20 + len(opts) + len(body)
    flags = (frag_off // 8) | (0x2000 if more else 0)
    hdr = struct.pack("!BBHHHBBH4s4s", 4 << 4 | (ihl & 0xF), 0, tot & 0xFFFF, ident,
                      flags, 64, proto, 0, src.packed, dst.packed) + opts
    # The kernel checks the sum over IHL words; bad IHL values still get a
    # correct sum over what is there, so that only the IHL is wrong.
    c = csum(hdr)
    hdr = hdr[:10] + struct.pack("!H", c) + hdr[12:]
    return hdr + body


def ipv6_exts(names, last_next):
    """The extension headers, in the order given, each 8 bytes of padding."""
    out = b""
    for i, name in enumerate(names):
        nxt = EXTS[names[i + 1]] if i + 1 < len(names) else last_next
        if name == "rt":
            # Type 0 with no segments left: a node only reads past it.
            out += struct.pack("!BBBB4x", nxt, 0, 0, 0)
        else:
            out += struct.pack("!BB", nxt, 0) + b"\x01\x04\0\0\0\0"  # PadN
    return out


def ipv6_packet(src, dst, first_next, body):
    hdr = struct.pack("!IHBB16s16s", 6 << 28, len(body), first_next, 64,
                      src.packed, dst.packed)
    return hdr + body


def build(args, src, dst):
    """The IP packets to send, in order."""
    proto = PROTOS[args.proto]
    seg = l4_datagram(args, src, dst)
    if args.l4len is not None:
        seg = seg[:args.l4len]
    pieces = [(0, seg, False)]
    if args.frag is not None:
        if args.frag % 8 or not 0 < args.frag < len(seg):
            sys.exit("craft.py: --frag must be a multiple of 8 inside the datagram")
        pieces = [(0, seg[:args.frag], True), (args.frag, seg[args.frag:], False)]
        pieces = {"first": pieces[:1], "later": pieces[1:], "both": pieces}[args.send]
    # A fresh identification, so that fragments of one run never join
    # those of another in a reassembly queue.
    ident = random.getrandbits(16 if src.version == 4 else 32)
    out = []
    for off, body, more in pieces:
        if src.version == 4:
            out.append(ipv4_packet(args, src, dst, proto, body, off, more, ident))
            continue
        names = [e for e in args.ext.split(",") if e] if args.ext else []
        if args.cut:
            if not names:
                sys.exit("craft.py: --cut needs --ext")
            exts, body = ipv6_exts(names, EXT_DST), b""
        elif args.frag is not None:
            frag = struct.pack("!BxHI", proto, off | more, ident)
            exts = ipv6_exts(names, EXT_FRAG) + frag
        else:
            exts = ipv6_exts(names, proto)
        first = EXTS[names[0]] if names else (EXT_FRAG if args.frag is not None else proto)
        out.append(ipv6_packet(src, dst, first, exts + body))
    return out


def send(args):
    src = ipaddress.ip_address(args.src)
    dst = ipaddress.ip_address(args.dst)
    if src.version != dst.version:
        sys.exit("craft.py: SRC and DST are not of one family")
    if src.version == 6 and (args.ihl != 5 or args.tot_len is not None):
        sys.exit("craft.py: --ihl and --tot-len are IPv4 fields")
    if src.version == 4 and (args.ext or args.cut):
        sys.exit("craft.py: --ext and --cut are IPv6 headers")
    with open("/sys/class/net/%s/address" % args.iface) as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    dmac = bytes.fromhex(args.dmac.replace(":", ""))
    if len(dmac) != 6:
        sys.exit("craft.py: DMAC is not a MAC address: %s" % args.dmac)
    etype = ETH_P_IP if src.version == 4 else ETH_P_IPV6
    packets = build(args, src, dst)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((args.iface, 0))
    for _ in range(args.count):
        for p in packets:
            s.send(dmac + smac + struct.pack("!H", etype) + p)
            print(len(p))
    return 0


def capture(args):
    srcs = {ipaddress.ip_address(a).packed for a in args.src.split(",")}
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((args.iface, 0))
    print("ready", flush=True)
    end = time.monotonic() + args.seconds
    while True:
        left = end - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        frame, addr = s.recvfrom(65535)
        if addr[2] == socket.PACKET_OUTGOING or len(frame) < 14:
            continue
        etype, ip = struct.unpack("!H", frame[12:14])[0], frame[14:]
        if etype == ETH_P_IP and len(ip) >= 20 and ip[12:16] in srcs:
            print(struct.unpack("!H", ip[2:4])[0], ip[9], flush=True)
        elif etype == ETH_P_IPV6 and len(ip) >= 40 and ip[8:24] in srcs:
            print(40 + struct.unpack("!H", ip[4:6])[0], ip[6], flush=True)
    return 0


def main():
    p = argparse.ArgumentParser(description="Craft packets, well formed or not.")
    sub = p.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("--proto", choices=PROTOS, default="udp")
    ps.add_argument("--sport", type=int, default=40000)
    ps.add_argument("--dport", type=int, default=7777)
    ps.add_argument("--payload", type=int, default=8)
    ps.add_argument("--l4len", type=int)
    ps.add_argument("--ihl", type=int, default=5, choices=range(0, 16))
    ps.add_argument("--tot-len", type=int)
    ps.add_argument("--ext", default="")
    ps.add_argument("--cut", action="store_true")
    ps.add_argument("--frag", type=int)
    ps.add_argument("--send", choices=("first", "later", "both"), default="both")
    ps.add_argument("--count", type=int, default=1)
    ps.add_argument("--flags", default="S")
    ps.add_argument("--seq", type=int, default=1)
    ps.add_argument("--ack", type=int, default=0)
    ps.add_argument("iface")
    ps.add_argument("dmac")
    ps.add_argument("src")
    ps.add_argument("dst")
    pc = sub.add_parser("capture")
    pc.add_argument("iface")
    pc.add_argument("src")
    pc.add_argument("seconds", type=float)
    sub.add_parser("serve")
    args = p.parse_args()
    if args.cmd == "serve":
        for line in sys.stdin:
            try:
                run_send(p, p.parse_args(shlex.split(line)))
            except SystemExit as e:
                print("error", e, flush=True)
            print("done", flush=True)
        return 0
    if args.cmd == "send":
        return run_send(p, args)
    return capture(args)


def run_send(p, args):
    if args.cmd != "send":
        sys.exit("craft.py: serve runs send commands only")
    for name in (args.ext.split(",") if args.ext else []):
        if name not in EXTS:
            p.error("--ext: unknown header '%s'; use hbh, dst or rt" % name)
    return send(args)


if __name__ == "__main__":
    sys.exit(main())
