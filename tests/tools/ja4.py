#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A second, independent reading of a ClientHello, to check the C parser.

  ja4.py FILE...   prints "FILE SNI ALPN VERSION JA4" for each client stream

Written from the JA4 description (FoxIO, "JA4: TLS Client Fingerprint") and
RFC 8446, in the plainest way, with no attempt at validation: it is meant to
be run on well-formed hellos only.
"""
import hashlib
import struct
import sys

VERSIONS = {0x0304: "13", 0x0303: "12", 0x0302: "11", 0x0301: "10", 0x0300: "s3",
            0x0002: "s2", 0xfeff: "d1", 0xfefd: "d2", 0xfefc: "d3"}


def grease(v):
    return (v & 0x0f0f) == 0x0a0a and (v >> 8) == (v & 0xff)


def handshake_from_records(stream):
    body = b""
    off = 0
    while True:
        typ, _, length = struct.unpack(">BHH", stream[off:off + 5])
        assert typ == 22
        body += stream[off + 5:off + 5 + length]
        off += 5 + length
        if len(body) >= 4 and len(body) >= 4 + int.from_bytes(body[1:4], "big"):
            return body[:4 + int.from_bytes(body[1:4], "big")]


def u16list(b):
    return [struct.unpack(">H", b[i:i + 2])[0] for i in range(0, len(b), 2)]


def parse(msg):
    """Returns a dict of the fields JA4 and the tests need."""
    h = {"sni": None, "alpn": [], "sigs": [], "versions": []}
    p = 4
    h["legacy"] = struct.unpack(">H", msg[p:p + 2])[0]
    p += 34
    p += 1 + msg[p]
    n = struct.unpack(">H", msg[p:p + 2])[0]
    h["ciphers"] = u16list(msg[p + 2:p + 2 + n])
    p += 2 + n
    p += 1 + msg[p]
    h["exts"] = []
    if p < len(msg):
        end = p + 2 + struct.unpack(">H", msg[p:p + 2])[0]
        p += 2
        while p < end:
            typ, n = struct.unpack(">HH", msg[p:p + 4])
            data = msg[p + 4:p + 4 + n]
            p += 4 + n
            h["exts"].append(typ)
            if typ == 0:
                h["sni"] = data[5:5 + struct.unpack(">H", data[3:5])[0]].decode()
            elif typ == 16:
                q = 2
                while q < len(data):
                    h["alpn"].append(data[q + 1:q + 1 + data[q]])
                    q += 1 + data[q]
            elif typ == 13:
                h["sigs"] = u16list(data[2:])
            elif typ == 43:
                h["versions"] = u16list(data[1:])
    vs = [v for v in h["versions"] if not grease(v)]
    h["version"] = max(vs) if vs else h["legacy"]
    return h


def alpn_chars(alpn):
    if not alpn or not alpn[0]:
        return "00"
    a = alpn[0]
    if chr(a[0]).isascii() and chr(a[0]).isalnum() and chr(a[-1]).isascii() and chr(a[-1]).isalnum():
        return chr(a[0]) + chr(a[-1])
    x = a.hex()
    return x[0] + x[-1]


def sha12(text):
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def ja4(h, transport="t"):
    ciphers = [c for c in h["ciphers"] if not grease(c)]
    exts = [e for e in h["exts"] if not grease(e)]
    sigs = [s for s in h["sigs"] if not grease(s)]
    a = "%s%s%s%02d%02d%s" % (transport, VERSIONS.get(h["version"], "00"),
                              "d" if h["sni"] is not None else "i",
                              min(len(ciphers), 99), min(len(exts), 99), alpn_chars(h["alpn"]))
    b = sha12(",".join("%04x" % c for c in sorted(ciphers))) if ciphers else "0" * 12
    hashed = sorted(e for e in exts if e not in (0, 16))
    text = ",".join("%04x" % e for e in hashed)
    if sigs:
        text += "_" + ",".join("%04x" % s for s in sigs)
    c = sha12(text) if hashed else "0" * 12
    return "%s_%s_%s" % (a, b, c)


def describe(stream):
    h = parse(handshake_from_records(stream))
    alpn = "-"
    if h["alpn"]:
        first = h["alpn"][0]
        printable = all(0x21 <= c <= 0x7e for c in first)
        alpn = first.decode() if printable else "0x" + first.hex()
    return "%s %s %04x %s" % (h["sni"] or "-", alpn, h["version"], ja4(h))


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            print(path, describe(f.read()))
