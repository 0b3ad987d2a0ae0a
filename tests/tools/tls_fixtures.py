#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Crafted ClientHellos, and the expected result of every fixture.

  tls_fixtures.py DIR

Writes DIR/crafted-*.bin (well-formed hellos in unusual shapes),
DIR/bad-*.bin (one lie or violation each), DIR/more-*.bin (cannot be told
from an incomplete stream) and DIR/not-tls.bin, then DIR/expected.txt: one
line per .bin in DIR,

  FILE ok SNI ALPN VERSION JA4     (values by tests/tools/ja4.py)
  FILE bad|more|not-tls REASON...  (REASON: words the parser's reason must contain)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ja4  # noqa: E402

CIPHERS = [0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8,
           0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035]
SIGS = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601]


def u8(v):
    return struct.pack(">B", v)


def u16(v):
    return struct.pack(">H", v)


def vec8(b):
    return u8(len(b)) + b


def vec16(b):
    return u16(len(b)) + b


def ext(typ, data):
    return u16(typ) + vec16(data)


def sni_ext(*names):
    return ext(0, vec16(b"".join(u8(0) + vec16(n) for n in names)))


def alpn_ext(*names):
    return ext(16, vec16(b"".join(vec8(n) for n in names)))


def std_exts(sni=b"crafted.afw.test", alpn=(b"h2", b"http/1.1")):
    out = []
    if sni is not None:
        out.append(sni_ext(sni))
    out += [ext(0x0017, b""), ext(0xff01, b"\x00"), ext(0x000a, vec16(u16(0x001d) + u16(0x0017))),
            ext(0x000b, b"\x01\x00"), ext(0x0023, b"")]
    if alpn:
        out.append(alpn_ext(*alpn))
    out += [ext(0x000d, vec16(b"".join(u16(s) for s in SIGS))),
            ext(0x002b, vec8(u16(0x0304) + u16(0x0303))),
            ext(0x002d, b"\x01\x01"),
            ext(0x0033, vec16(u16(0x001d) + vec16(bytes(range(32)))))]
    return out


def hello(exts=None, ciphers=CIPHERS, sid=bytes(32), version=0x0303, cipher_bytes=None,
          ext_block=None, compression=b"\x00"):
    if exts is None:
        exts = std_exts()
    cs = cipher_bytes if cipher_bytes is not None else b"".join(u16(c) for c in ciphers)
    body = u16(version) + bytes(range(32)) + vec8(sid) + vec16(cs) + vec8(compression)
    if ext_block is not None:
        body += ext_block
    elif exts != []:
        body += vec16(b"".join(exts))
    return handshake(body)


def handshake(body, typ=1):
    return u8(typ) + struct.pack(">I", len(body))[1:] + body


def records(msg, sizes=None, typ=22, version=0x0301):
    """The message in TLS records; @sizes: payload size of each but the last (0: an empty record)."""
    out, off = b"", 0
    for n in (sizes or []):
        out += u8(typ) + u16(version) + vec16(msg[off:off + n])
        off += n
    return out + u8(typ) + u16(version) + vec16(msg[off:])


def ech_ext(enc=32, payload=200, typ=0):
    """encrypted_client_hello: outer (cipher suite, config id, enc, payload) or inner (empty)."""
    if typ == 1:
        return ext(0xfe0d, u8(1))
    return ext(0xfe0d, u8(0) + u16(0x0001) + u16(0x0001) + u8(7) + vec16(bytes(enc)) +
               vec16(bytes(payload)))


def crafted():
    grease_exts = [ext(0x0a0a, b"")] + std_exts() + [ext(0xfafa, b"\x00")]
    grease_exts[-4] = ext(0x002b, vec8(u16(0x7a7a) + u16(0x0304) + u16(0x0303)))
    pad = std_exts() + [ext(0x0015, bytes(1400))]
    ok = {
        "crafted-one-record": records(hello()),
        "crafted-two-records": records(hello(), [100]),
        "crafted-header-split": records(hello(), [2, 1]),
        "crafted-many-records": records(hello(), [1] * 20 + [50]),
        "crafted-grease": records(hello(grease_exts, [0x2a2a] + CIPHERS)),
        "crafted-no-extensions": records(hello([], version=0x0303)),
        "crafted-no-sni": records(hello(std_exts(sni=None))),
        "crafted-alpn-hex": records(hello(std_exts(alpn=(b"\xab\x30", b"h2")))),
        "crafted-padding-1700": records(hello(pad)),
        "crafted-padding-two-records": records(hello(pad), [1000]),
        # The rest of the record may be another message: the hello is whole, that is enough.
        "crafted-record-longer": b"\x16\x03\x01" + u16(len(hello()) + 20) + hello(),
        # OpenSSL 3.0 takes any record version 3.x before a version is agreed,
        # and skips up to 32 empty handshake records in a row.
        "crafted-record-version-0305": records(hello(), version=0x0305),
        "crafted-record-version-03ff-two-records": records(hello(), [100], version=0x03ff),
        "crafted-record-version-0300": records(hello(), version=0x0300),
        "crafted-empty-records": records(hello(), [0] * 32 + [60, 0, 0] + [0] * 30),
        "crafted-ech": records(hello(std_exts(sni=b"public.afw.test") + [ech_ext()])),
        "crafted-ech-inner": records(hello(std_exts() + [ech_ext(typ=1)])),
    }
    h = hello()
    long_ext_block = h[4 + 2 + 32 + 1 + 32 + 2 + 30 + 2:]
    bad = {
        "bad-sni-256": (records(hello(std_exts(sni=b"a" * 256))), "longer than 255"),
        "bad-sni-empty": (records(hello(std_exts(sni=b""))), "empty SNI"),
        "bad-sni-nul": (records(hello(std_exts(sni=b"evil.test\x00good.test"))), "no host name has"),
        "bad-sni-duplicate": (records(hello([sni_ext(b"a.test", b"b.test")] + std_exts(None))),
                              "duplicate SNI"),
        "bad-ext-duplicate": (records(hello(std_exts() + [ext(0x0017, b"")])),
                              "duplicate extension"),
        "bad-two-sni-extensions": (records(hello([sni_ext(b"a.test")] + std_exts(b"b.test"))),
                                   "duplicate extension"),
        "bad-sni-list-len": (records(hello([ext(0, u16(20) + u8(0) + vec16(b"a.test"))] +
                                           std_exts(None))), "server_name list length"),
        "bad-sni-name-len": (records(hello([ext(0, vec16(u8(0) + u16(40) + b"a.test"))] +
                                           std_exts(None))), "server_name entry overruns"),
        "bad-alpn-list-len": (records(hello(std_exts(alpn=None) + [ext(16, u16(9) + vec8(b"h2"))])),
                              "ALPN list length"),
        "bad-alpn-name-len": (records(hello(std_exts(alpn=None) + [ext(16, vec16(u8(7) + b"h2"))])),
                              "ALPN name overruns"),
        "bad-alpn-empty-name": (records(hello(std_exts(alpn=(b"",)))), "empty ALPN name"),
        "bad-versions-len": (records(hello([ext(0x002b, u8(6) + u16(0x0304))])),
                             "supported_versions length"),
        "bad-sigalgs-len": (records(hello([ext(0x000d, u16(30) + u16(0x0403))])),
                            "signature_algorithms length"),
        "bad-ext-len": (records(hello(ext_block=vec16(u16(0x0017) + u16(50)))),
                        "extension overruns"),
        "bad-ext-block-len": (records(hello(ext_block=u16(len(long_ext_block) + 10) +
                                            long_ext_block[2:])), "extensions length"),
        "bad-cipher-len": (records(handshake(u16(0x0303) + bytes(32) + vec8(b"") + u16(200) +
                                             b"\x13\x01")), "cipher_suites overrun"),
        "bad-cipher-odd": (records(hello(cipher_bytes=b"\x13\x01\x13")), "zero or odd"),
        "bad-session-id": (records(hello(sid=bytes(33))), "session_id"),
        "bad-no-compression": (records(hello(compression=b"")), "compression_methods"),
        "bad-hs-len-short": (records(h[:1] + struct.pack(">I", len(h) - 14)[1:] + h[4:]),
                             "extensions length"),
        "bad-record-len-short": (records(h, [len(h) - 20])[:5] + h, "not handshake"),
        "bad-continuation-type": (records(h, [100])[:105] + b"\x17\x03\x03" + vec16(h[100:]),
                                  "not handshake"),
        "bad-server-hello": (records(b"\x02" + h[1:]), "not a ClientHello"),
        "bad-record-16385": (b"\x16\x03\x01\x40\x01" + h, "longer than 16384"),
        "bad-empty-records-33": (records(h, [0] * 33), "more than 32 empty"),
        "bad-ech-len": (records(hello(std_exts() + [ext(0xfe0d, u8(0) + u16(1) + u16(1) + u8(7) +
                                                          u16(40) + bytes(10))])),
                        "encrypted_client_hello overruns"),
        "bad-ech-type": (records(hello(std_exts() + [ext(0xfe0d, u8(2))])), "unknown type"),
        "bad-fragmented-too-big": (b"\x16\x03\x01\x00\x10\x01\x01\x00\x00" + bytes(12),
                                   "larger than the scratch"),
    }
    # Indistinguishable from a stream that stops early: the parser must wait.
    more = {
        "more-hs-len-long": records(h[:1] + struct.pack(">I", len(h) + 6)[1:] + h[4:]),
    }
    not_tls = {"not-tls": b"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n",
               "not-tls-version": b"\x16\x02\x00\x00\x10" + h,
               # OpenSSL 3.0 refuses a hello behind an alert record: so a leading
               # alert is not the start of a TLS stream.
               "not-tls-alert": b"\x15\x03\x01\x00\x02\x01\x70" + records(h)}
    return ok, bad, more, not_tls


def main():
    d = sys.argv[1]
    ok, bad, more, not_tls = crafted()
    expected = {}
    for name, data in ok.items():
        open(os.path.join(d, name + ".bin"), "wb").write(data)
    for name, (data, why) in bad.items():
        open(os.path.join(d, name + ".bin"), "wb").write(data)
        expected[name + ".bin"] = "bad " + why
    for name, data in more.items():
        open(os.path.join(d, name + ".bin"), "wb").write(data)
        expected[name + ".bin"] = "more"
    for name, data in not_tls.items():
        open(os.path.join(d, name + ".bin"), "wb").write(data)
        expected[name + ".bin"] = "not-tls"
    lines = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".bin"):
            continue
        if f not in expected:
            expected[f] = "ok " + ja4.describe(open(os.path.join(d, f), "rb").read())
        lines.append(f + " " + expected[f])
    with open(os.path.join(d, "expected.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
