#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TLS client that writes its ClientHellos by hand, over an ordinary TCP
socket, to show a server a name afwd did not judge.

  hellocraft.py HOW ADDR PORT FIRST SECOND

  hrr        a TLS 1.3 hello naming FIRST with an empty key_share list, so
             that the server must answer with a HelloRetryRequest; then, if
             it did, the second hello (a key share for the group it asked
             for) naming SECOND
  hrr-ccs    the same, with a change_cipher_spec record before the second
             hello, as clients in middlebox compatibility mode send
  hrr-early  both hellos at once, in one segment, before the server answers
  tls12      a TLS 1.2 only hello naming FIRST, then, whatever the server
             answered, a second hello naming SECOND

Prints one word per server message it read: "hrr", "server-hello",
"alert", "other", then "closed" or "silent".
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_fixtures import CIPHERS, SIGS, ext, hello, records, u16, vec8, vec16  # noqa: E402

X25519 = 0x001d
HRR_RANDOM = bytes.fromhex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")


def sni(name):
    return ext(0, vec16(b"\x00" + vec16(name.encode())))


def tls13_hello(name, share):
    """A TLS 1.3 hello; @share: the key_share list (b"" for none)."""
    exts = [sni(name), ext(0x000a, vec16(u16(X25519) + u16(0x0017))), ext(0x000b, b"\x01\x00"),
            ext(0x000d, vec16(b"".join(u16(s) for s in SIGS))),
            ext(0x002b, vec8(u16(0x0304))), ext(0x002d, b"\x01\x01"),
            ext(0x0033, vec16(share))]
    return records(hello(exts, CIPHERS, sid=bytes(range(32))))


def tls12_hello(name):
    exts = [sni(name), ext(0x000a, vec16(u16(X25519) + u16(0x0017))), ext(0x000b, b"\x01\x00"),
            ext(0x000d, vec16(b"".join(u16(s) for s in SIGS)))]
    return records(hello(exts, [0xc02f, 0xc030, 0x009c], sid=b""))


def x25519_share():
    return u16(X25519) + vec16(os.urandom(32))


def read_messages(c, seconds):
    """The server's records until it stops: a word for each."""
    words, buf, end = [], b"", time.monotonic() + seconds
    c.settimeout(0.2)
    while time.monotonic() < end:
        try:
            d = c.recv(65536)
        except socket.timeout:
            if words:
                break
            continue
        except OSError:
            words.append("closed")
            return words, True
        if not d:
            words.append("closed")
            return words, True
        buf += d
        while len(buf) >= 5 and len(buf) >= 5 + struct.unpack("!H", buf[3:5])[0]:
            n = struct.unpack("!H", buf[3:5])[0]
            typ, body = buf[0], buf[5:5 + n]
            buf = buf[5 + n:]
            if typ == 22 and body[:1] == b"\x02":
                words.append("hrr" if body[6:38] == HRR_RANDOM else "server-hello")
            elif typ == 21:
                words.append("alert")
            elif typ != 20:
                words.append("other")
    return words, False


def main():
    how, addr, port, first, second = sys.argv[1:6]
    c = socket.create_connection((addr, int(port)), timeout=3)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out = []
    if how == "tls12":
        c.sendall(tls12_hello(first))
        words, closed = read_messages(c, 1.2)
        out += words
        if not closed:
            c.sendall(tls12_hello(second))
            words, closed = read_messages(c, 1.2)
            out += words
    elif how == "hrr-early":
        c.sendall(tls13_hello(first, b"") + tls13_hello(second, x25519_share()))
        words, closed = read_messages(c, 1.2)
        out += words
    else:
        c.sendall(tls13_hello(first, b""))
        words, closed = read_messages(c, 1.2)
        out += words
        if "hrr" in words and not closed:
            ccs = b"\x14\x03\x03\x00\x01\x01" if how == "hrr-ccs" else b""
            c.sendall(ccs + tls13_hello(second, x25519_share()))
            words, closed = read_messages(c, 1.2)
            out += words
    if not out or not closed:
        out.append("silent" if not out else "open")
    print(" ".join(out))
    c.close()


if __name__ == "__main__":
    main()
