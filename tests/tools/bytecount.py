#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One TCP connection's bytes, counted exactly at the server.

  bytecount.py sink ADDR PORT OUT     reads one connection to its end, then
                                      writes how many bytes came to OUT
  bytecount.py source ADDR PORT N     sends N bytes (zeroes) on one
                                      connection, then closes it

Each serves one connection and exits; the client is bash's /dev/tcp. Unlike
iperf3 -n, whose server reports what it had read when the client stopped
writing, the count is of every byte the connection carried.
"""
import os
import socket
import sys


def listen(addr, port):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(1)
    return s


def main():
    mode, addr, port, arg = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    conn, _ = listen(addr, port).accept()
    if mode == "sink":
        n = 0
        while True:
            b = conn.recv(1 << 16)
            if not b:
                break
            n += len(b)
        tmp = arg + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % n)
        os.rename(tmp, arg)
    elif mode == "source":
        left = int(arg)
        chunk = bytes(1 << 16)
        while left > 0:
            left -= conn.send(chunk[:min(left, len(chunk))])
        conn.shutdown(socket.SHUT_WR)
    else:
        sys.exit("bytecount.py: sink or source")
    conn.close()


if __name__ == "__main__":
    main()
