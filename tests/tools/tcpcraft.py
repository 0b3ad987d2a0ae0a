#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP client that writes its own segments, to show a middlebox one stream
and a server another: TLS ClientHellos from this host's OpenSSL (python
ssl), sent over a handshake this script does itself with raw sockets.

  tcpcraft.py [OPTIONS] HOW IFACE SRC DST

HOW says what precedes the real hello (naming --real) at the same stream
offsets: a fake hello naming --fake that the server's stack never takes.

  plain    the real hello only
  ttl      the fake with a TTL of 1: it dies at the first router
  csum     the fake with a bad TCP checksum
  noack    the fake without the ACK flag
  badack   the fake acknowledging data the server never sent
  syndata  the fake as data on the SYN, without a Fast Open cookie
  reuse    a whole connection with the fake, acknowledged by the server,
           reset; then a new one (new ISN, same ports) with the real hello
  frag     the real hello in a segment cut into two IP fragments, the
           first with the TCP header and 12 bytes of the hello
  resume   the real hello (which a firewall drops), then a reset the
           server ignores (in the window, not at its next byte: RFC 5961),
           a pause of --pause seconds, --flood acknowledgements on other
           ports, none with a SYN, and the real hello again, in the middle
           of the connection as a firewall that forgot it sees it

With --tls12 the hellos offer no more than TLS 1.2, so that no answer of
the server's is needed to settle them: only its acknowledgement.

Packets go out through a raw IP socket, so they cross this host's
netfilter OUTPUT hook like any other; they carry the mark 0x100, so that a
rule can drop this host's own resets for the connection (its kernel has no
socket for it) and only those. Replies are read on IFACE. Prints what the
server acknowledged, one line per event.
"""
import argparse
import os
import random
import select
import socket
import ssl
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inet import csum  # noqa: E402

FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10
ETH_P_IP = 0x0800
MARK = 0x100


def client_hello(name, tls12):
    """The ClientHello this host's OpenSSL sends for @name, as TLS records;
    with @tls12, offering no more than TLS 1.2."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if tls12:
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname=name)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


class Conn:
    def __init__(self, args, sport, isn):
        self.a = args
        self.src = socket.inet_aton(args.src)
        self.dst = socket.inet_aton(args.dst)
        self.sport, self.dport, self.isn = sport, args.dport, isn
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.raw.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, MARK)
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
        self.rx.bind((args.iface, 0))
        self.sisn = None
        self.acked = 0  # the server's highest ACK, as a stream offset
        self.server_data = 0

    def send(self, off, flags, data=b"", ack=None, ttl=64, bad_csum=False, seq=None,
             opts=b"", frag=False):
        seq = self.isn + 1 + off if seq is None else seq
        if ack is None:
            ack = (self.sisn + 1 + self.server_data) if self.sisn is not None else 0
        opts += b"\0" * (-len(opts) % 4)
        tcp = struct.pack("!HHIIBBHHH", self.sport, self.dport, seq & 0xFFFFFFFF,
                          ack & 0xFFFFFFFF, (5 + len(opts) // 4) << 4, flags, 64240, 0, 0)
        tcp += opts + data
        c = csum(self.src + self.dst + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
        if bad_csum:
            c ^= 0x5555
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        ident = random.getrandbits(16)
        if frag:
            # Two fragments: 32 bytes (the TCP header and 12 of data), then the rest.
            for fo, piece, more in ((0, tcp[:32], 0x2000), (4, tcp[32:], 0)):
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(piece), ident, more | fo,
                                 ttl, 6, 0, self.src, self.dst)
                self.raw.sendto(ip + piece, (self.a.dst, 0))
            return
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ident,
                         0x4000, ttl, 6, 0, self.src, self.dst)
        self.raw.sendto(ip + tcp, (self.a.dst, 0))

    def segments(self, off, data, **kw):
        for o in range(0, len(data), 1200):
            self.send(off + o, PSH | ACK, data[o:o + 1200], **kw)

    def wait(self, until, seconds):
        """Reads the server's segments until @until(self) or @seconds pass."""
        end = time.monotonic() + seconds
        while not until(self):
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.rx], [], [], left)[0]:
                return False
            frame = self.rx.recv(65535)
            ip = frame[14:]
            if len(ip) < 40 or ip[9] != 6 or ip[12:16] != self.dst:
                continue
            hl = (ip[0] & 15) * 4
            tcp = ip[hl:]
            sport, dport, seq, ack, off, flags = struct.unpack("!HHIIBB", tcp[:14])
            if sport != self.dport or dport != self.sport:
                continue
            payload = len(ip) - hl - (off >> 4) * 4
            payload = min(payload, struct.unpack("!H", ip[2:4])[0] - hl - (off >> 4) * 4)
            if flags & RST:
                print("reset", flush=True)
                return False
            if flags & SYN and flags & ACK:
                if self.sisn is None:
                    self.sisn = seq
                    print("synack acks %d" % ((ack - self.isn - 1) & 0xFFFFFFFF), flush=True)
                continue
            if self.sisn is None:
                continue
            if flags & ACK:
                a = (ack - self.isn - 1) & 0xFFFFFFFF
                if a > self.acked and a < 1 << 30:
                    self.acked = a
                    print("acked %d" % a, flush=True)
            if payload > 0:
                end_off = (seq - self.sisn - 1 + payload) & 0xFFFFFFFF
                if end_off > self.server_data and end_off < 1 << 30:
                    self.server_data = end_off
                    print("server data %d" % end_off, flush=True)
        return True

    def handshake(self, syn_data=b""):
        self.send(-1, SYN, syn_data, ack=0, opts=b"\x02\x04\x05\xb4")
        if not self.wait(lambda c: c.sisn is not None, 3):
            sys.exit("tcpcraft.py: no SYN-ACK")
        self.send(0, ACK)


def main():
    p = argparse.ArgumentParser(description="A TCP client that crafts its segments.")
    p.add_argument("how", choices=("plain", "ttl", "csum", "noack", "badack", "syndata",
                                   "reuse", "resume", "frag"))
    p.add_argument("iface")
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--dport", type=int, default=443)
    p.add_argument("--sport", type=int, default=0)
    p.add_argument("--fake", default="allowed.test")
    p.add_argument("--real", default="denied.test")
    p.add_argument("--wait", type=float, default=1.5)
    p.add_argument("--pause", type=float, default=1.5)
    p.add_argument("--flood", type=int, default=0)
    p.add_argument("--tls12", action="store_true")
    a = p.parse_args()
    sport = a.sport or random.randint(20000, 60000)
    fake, real = client_hello(a.fake, a.tls12), client_hello(a.real, a.tls12)

    print("sport %d" % sport, flush=True)
    k = Conn(a, sport, random.getrandbits(32))
    if a.how == "syndata":
        k.handshake(syn_data=fake)
    else:
        k.handshake()
    if a.how == "reuse":
        k.segments(0, fake)
        k.wait(lambda c: c.server_data > 0 and c.acked >= len(fake), a.wait)
        k.send(len(fake), RST | ACK)
        time.sleep(0.2)
        k = Conn(a, sport, (k.isn + 12345678) & 0xFFFFFFFF)
        k.handshake()
    elif a.how == "ttl":
        k.segments(0, fake, ttl=1)
    elif a.how == "csum":
        k.segments(0, fake, bad_csum=True)
    elif a.how == "noack":
        for o in range(0, len(fake), 1200):
            k.send(o, PSH, fake[o:o + 1200], ack=0)
    elif a.how == "badack":
        k.segments(0, fake, ack=k.sisn + 1 + 100000)
    elif a.how == "frag":
        k.send(0, PSH | ACK, real, frag=True)
        k.wait(lambda c: c.server_data > 0, a.wait)
        k.send(max(len(real), k.acked), RST | ACK)
        return 0
    elif a.how == "resume":
        k.segments(0, real)
        k.wait(lambda c: c.acked > 0, 0.3)
        k.send(5, RST | ACK)
        time.sleep(a.pause)
        for i in range(a.flood):
            other = Conn(a, (sport + 1 + i) % 65536 or 1, random.getrandbits(32))
            other.send(0, ACK, ack=random.getrandbits(32))
        time.sleep(0.2)
    time.sleep(0.05)
    k.segments(0, real)
    k.wait(lambda c: c.server_data > 0, a.wait)
    k.send(max(len(real), k.acked), RST | ACK)
    return 0


if __name__ == "__main__":
    sys.exit(main())
