#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A long-lived TLS connection that says whether it still passes.

  tlsping.py ADDR PORT NAME CAFILE LOG [INTERVAL]

Connects to ADDR:PORT with SNI NAME, asks tlsserver.py for "/echo", then
every INTERVAL seconds (default 0.2) sends "ping N" and waits up to a second
for it to come back. LOG gets one line per ping, flushed at once:
"pong N" when the echo came back, "lost N" when it did not, and a last
"closed REASON" when the connection ends. The first line is "port P",
the client's own port. Runs until the connection ends or it is killed.
"""
import socket
import ssl
import sys
import time


def main():
    addr, port, name, cafile, log = sys.argv[1:6]
    interval = float(sys.argv[6]) if len(sys.argv) > 6 else 0.2
    out = open(log, "a", buffering=1)
    ctx = ssl.create_default_context(cafile=cafile)
    raw = socket.create_connection((addr, int(port)), timeout=5)
    out.write("port %d\n" % raw.getsockname()[1])
    tls = ctx.wrap_socket(raw, server_hostname=name)
    tls.sendall(b"GET /echo HTTP/1.1\r\nHost: %s\r\n\r\n" % name.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = tls.recv(4096)
        if not chunk:
            out.write("closed before the echo began\n")
            return
        head += chunk
    rest = head.split(b"\r\n\r\n", 1)[1]
    tls.settimeout(1.0)
    n = 0
    while True:
        n += 1
        want = b"ping %d\n" % n
        try:
            tls.sendall(want)
            deadline = time.monotonic() + 1.0
            while want not in rest and time.monotonic() < deadline:
                chunk = tls.recv(4096)
                if not chunk:
                    out.write("closed by the peer\n")
                    return
                rest += chunk
        except socket.timeout:
            pass
        except (ssl.SSLError, OSError) as e:
            out.write("closed %s\n" % e.__class__.__name__)
            return
        if want in rest:
            rest = rest.split(want, 1)[1]
            out.write("pong %d\n" % n)
        else:
            out.write("lost %d\n" % n)
        time.sleep(interval)


if __name__ == "__main__":
    main()
