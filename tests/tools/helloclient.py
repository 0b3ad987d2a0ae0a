#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TLS client over this host's own TCP stack, sending its ClientHello in
ways a real client may: after urgent data, a byte per segment, 16,380
bytes long, late, with a pause inside it, or after keepalives.

  helloclient.py HOW ADDR NAME [PORT [tls12]]

  oob       one byte of urgent data (MSG_OOB), then a full TLS handshake
  onebyte   the ClientHello a byte per segment (TCP_NODELAY, 2 ms apart)
  big       the ClientHello grown to a 16,380-byte message with padding
  late      a full TLS handshake 2.3 s after the TCP handshake
  pause     the ClientHello's first 10 bytes, 2.3 s of silence, the rest
  keepalive a full TLS handshake after 12 s of keepalives, one a second

tls12: offer no more than TLS 1.2.

Prints "handshake" when a full handshake completes, "answered" when the
server answered a hello sent by hand; exits 0 either way, 1 when the
server never answered.
"""
import socket
import ssl
import struct
import sys
import time

TLS12 = len(sys.argv) > 5 and sys.argv[5] == "tls12"


def context():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if TLS12:
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def hello(name):
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = context().wrap_bio(incoming, outgoing, server_hostname=name)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def padded(rec, size):
    """@rec (one TLS record holding a ClientHello) with its padding extension
    grown, or one added, so that the handshake message is @size bytes."""
    body = bytearray(rec[9:])
    off = 2 + 32
    off += 1 + body[off]
    off += 2 + struct.unpack("!H", body[off:off + 2])[0]
    off += 1 + body[off]
    exts, pos = off + 2, off + 2
    while pos < len(body):
        typ, n = struct.unpack("!HH", body[pos:pos + 4])
        if typ == 0x0015:
            del body[pos:pos + 4 + n]
            break
        pos += 4 + n
    pad = size - 4 - len(body) - 4
    body += struct.pack("!HH", 0x0015, pad) + bytes(pad)
    body[off:off + 2] = struct.pack("!H", len(body) - exts)
    msg = b"\x01" + struct.pack("!I", len(body))[1:] + bytes(body)
    return b"\x16\x03\x01" + struct.pack("!H", len(msg)) + msg


def answered(s):
    s.settimeout(3)
    try:
        return len(s.recv(1)) > 0
    except OSError:
        return False


def main():
    how, addr, name = sys.argv[1:4]
    port = int(sys.argv[4]) if len(sys.argv) > 4 else 443
    s = socket.create_connection((addr, port), timeout=5)
    if how in ("oob", "late", "keepalive"):
        if how == "oob":
            s.send(b"!", socket.MSG_OOB)
        elif how == "keepalive":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
            time.sleep(12.5)
        else:
            time.sleep(2.3)
        try:
            context().wrap_socket(s, server_hostname=name).do_handshake()
        except (ssl.SSLError, OSError):
            return 1
        print("handshake")
        return 0
    data = hello(name)
    if how == "big":
        data = padded(data, 16380)
        s.sendall(data)
    elif how == "pause":
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(data[:10])
        time.sleep(2.3)
        s.sendall(data[10:])
    else:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(data)):
            s.send(data[i:i + 1])
            time.sleep(0.002)
    if not answered(s):
        return 1
    print("answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
