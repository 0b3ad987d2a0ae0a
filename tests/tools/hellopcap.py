#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A capture of one TLS flow whose ClientHello offers the given ALPN ids.

  hellopcap.py OUT.pcap SNI ID...

Each ID is Python bytes syntax (escapes allowed: "a,b", "x\\x00y"), so
that ids with commas and NUL bytes can be offered.
"""
import ast
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "pcaps", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                          "make-afwd-pcaps.py"))
pcaps = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pcaps)


def ext(typ, data):
    return struct.pack(">HH", typ, len(data)) + data


def hello(sni, ids):
    name = sni.encode()
    alpn = b"".join(bytes([len(i)]) + i for i in ids)
    exts = (ext(0, struct.pack(">HBH", len(name) + 3, 0, len(name)) + name) +
            ext(16, struct.pack(">H", len(alpn)) + alpn) +
            ext(0x2b, b"\x02\x03\x04"))
    body = (b"\x03\x03" + bytes(32) + b"\x00" + b"\x00\x02\x13\x01" + b"\x01\x00" +
            struct.pack(">H", len(exts)) + exts)
    msg = b"\x01" + struct.pack(">I", len(body))[1:] + body
    return b"\x16\x03\x01" + struct.pack(">H", len(msg)) + msg


def main():
    ids = [ast.literal_eval("b" + repr(a)).decode("unicode_escape").encode("latin-1")
           for a in sys.argv[3:]]
    data = hello(sys.argv[2], ids)
    cap = pcaps.Capture()
    pcaps.flow(cap, data, [(0, data)])
    cap.write(sys.argv[1])


if __name__ == "__main__":
    main()
