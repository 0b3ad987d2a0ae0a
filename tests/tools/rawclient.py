#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sends bytes a server should read as it reads them, and says what came back.

  rawclient.py http ADDR PORT HEX [HEX2]
                                      send the bytes, print the status line
                                      of the answer ("-" for none); with
                                      HEX2, then send those on the same
                                      connection and print the next one
  rawclient.py eof ADDR PORT HEX      send the bytes, then end the stream
                                      (shutdown, a FIN), and print the
                                      status line of the answer
  rawclient.py split ADDR PORT HEX...  send each piece as a segment of its
                                      own, 50 ms apart, then print the
                                      status line of the answer
  rawclient.py tls ADDR PORT SNI VERSION [EMPTY]
                                      a real TLS 1.3 handshake (python ssl)
                                      whose first record carries the record
                                      version VERSION (hex, e.g. 0305),
                                      after EMPTY empty handshake records;
                                      prints "ok" once the handshake is done,
                                      "-" if the server never answers

Each waits at most 3 seconds, or $AFW_RAW_WAIT.
"""
import os
import socket
import ssl
import struct
import sys
import time

WAIT = float(os.environ.get("AFW_RAW_WAIT", "3"))


def answer(c):
    """The status line of the next answer; its body (Content-Length) is read too."""
    got = b""
    try:
        while b"\r\n\r\n" not in got:
            d = c.recv(1)
            if not d:
                break
            got += d
        for line in got.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                n = int(line.split(b":")[1])
                while n > 0:
                    n -= len(c.recv(n))
    except (OSError, ValueError):
        pass
    return got.split(b"\r\n")[0].decode(errors="replace") or "-"


def http(addr, port, data, more):
    c = socket.create_connection((addr, port), timeout=WAIT)
    c.sendall(data)
    print(answer(c))
    if more is not None:
        try:
            c.sendall(more)
        except OSError:
            pass
        print(answer(c))
    c.close()


def eof(addr, port, data):
    c = socket.create_connection((addr, port), timeout=WAIT)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    print(answer(c))
    c.close()


def split(addr, port, pieces):
    c = socket.create_connection((addr, port), timeout=WAIT)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        for p in pieces:
            c.sendall(p)
            time.sleep(0.05)
    except OSError:
        pass
    print(answer(c))
    c.close()


def tls(addr, port, sni, version, empty):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    s = ctx.wrap_bio(inc, out, server_hostname=sni)
    c = socket.create_connection((addr, port), timeout=WAIT)
    first = True
    try:
        while True:
            try:
                s.do_handshake()
                done = True
            except ssl.SSLWantReadError:
                done = False
            data = out.read()
            if first and data:
                # The record layer is not part of the transcript: a record
                # version or empty records change nothing the handshake hashes.
                body = data[5:5 + struct.unpack(">H", data[3:5])[0]]
                data = (b"\x16\x03\x01\x00\x00" * empty + b"\x16" + struct.pack(">H", version) +
                        struct.pack(">H", len(body)) + body + data[5 + len(body):])
                first = False
            if data:
                c.sendall(data)
            if done:
                print("ok")
                return
            d = c.recv(65536)
            if not d:
                break
            inc.write(d)
    except (OSError, ssl.SSLError):
        pass
    print("-")


def main():
    if sys.argv[1] == "split":
        split(sys.argv[2], int(sys.argv[3]), [bytes.fromhex(h) for h in sys.argv[4:]])
    elif sys.argv[1] == "eof":
        eof(sys.argv[2], int(sys.argv[3]), bytes.fromhex(sys.argv[4]))
    elif sys.argv[1] == "http":
        http(sys.argv[2], int(sys.argv[3]), bytes.fromhex(sys.argv[4]),
             bytes.fromhex(sys.argv[5]) if len(sys.argv) > 5 else None)
    else:
        tls(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5], 16),
            int(sys.argv[6]) if len(sys.argv) > 6 else 0)


if __name__ == "__main__":
    main()
