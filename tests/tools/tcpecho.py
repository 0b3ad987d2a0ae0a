#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP echo server and a client that picks its own source port.

  tcpecho.py server ADDR PORT
  tcpecho.py client ADDR PORT SPORT SECONDS [PROGRESS]

The client sends a line every 0.2 s for SECONDS (or until SIGTERM) and
exits 0 only if every line came back; SECONDS 0 sends one line. It exits 1
at once when the connection cannot be made within 3 s. With PROGRESS, a
file, it writes there how many lines came back so far, after each one.
"""
import os
import signal
import socket
import socketserver
import sys
import time


class Echo(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            self.wfile.write(line)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

    def __init__(self, addr):
        self.address_family = socket.AF_INET6 if ":" in addr[0] else socket.AF_INET
        super().__init__(addr, Echo)


def client(addr, port, sport, seconds, progress=None):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", sport))
    s.settimeout(3)
    try:
        s.connect((addr, port))
    except OSError:
        return 1
    f = s.makefile("rwb")
    end = time.time() + seconds
    n = 0
    while True:
        line = b"line %d\n" % n
        f.write(line)
        f.flush()
        if f.readline() != line:
            return 2
        n += 1
        if progress:
            with open(progress + ".tmp", "w") as p:
                p.write("%d\n" % n)
            os.replace(progress + ".tmp", progress)
        if time.time() >= end or stop:
            return 0
        time.sleep(0.2)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        Server((sys.argv[2], int(sys.argv[3]))).serve_forever()
    sys.exit(client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
                    sys.argv[6] if len(sys.argv) > 6 else None))
