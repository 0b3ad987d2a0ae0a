#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ClientHellos whose names carry bytes that must never reach a log raw:
a quote, a newline followed by a forged log line, an escape sequence, an
overlong NUL and a NUL.

  evil_names.py pcap OUT.pcap          both hellos, one TCP flow each
  evil_names.py send ADDR PORT WHICH   one hello (sni or alpn) over a real
                                       connection, which then waits 2 s

"sni": the SNI holds the bytes (a reader must refuse it as malformed).
"alpn": the SNI is evil.afw.test and the ALPN values hold the bytes.
"""
import importlib.util
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tls_fixtures as t  # noqa: E402

BAD = b'q"x\nafwd: tcp 1.2.3.4:1 -> 5.6.7.8:443 tls: allow (forged)\x1b[31m\xc0\x80'
ALPN = (b'h2"x', b"a\nafwd: forged line", b"\x1b[31mred", b"\xc0\x80", b"nul\x00after")


def hello(which):
    if which == "sni":
        return t.records(t.hello(t.std_exts(sni=BAD)))
    return t.records(t.hello(t.std_exts(sni=b"evil.afw.test", alpn=ALPN)))


def main():
    if sys.argv[1] == "pcap":
        spec = importlib.util.spec_from_file_location(
            "pcaps", os.path.join(HERE, "..", "fixtures", "make-afwd-pcaps.py"))
        pcaps = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(pcaps)
        cap = pcaps.Capture()
        pcaps.flow(cap, hello("sni"), [(0, hello("sni"))], sport=40001)
        pcaps.flow(cap, hello("alpn"), [(0, hello("alpn"))], sport=40002)
        cap.write(sys.argv[2])
        return
    addr, port, which = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    s = socket.create_connection((addr, port), timeout=3)
    s.sendall(hello(which))
    time.sleep(2)
    s.close()


if __name__ == "__main__":
    main()
