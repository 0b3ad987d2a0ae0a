#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A tiny DNS responder and client, for afwd's DNS tests.

  dnsserver.py server ADDR PORT LOG
      answers every query on UDP and TCP with an A record 192.0.2.1 and
      logs "udp NAME" or "tcp NAME" for each, NAME as it parsed it. It
      follows compression pointers anywhere, as a lenient resolver would,
      so that a query afwd refuses for one would still name what it asks.
  dnsserver.py query ADDR PORT udp|tcp NAME [pointer]
      sends one query for NAME (type A) and prints the answer's address;
      exits 1 without an answer within 1 s. "pointer": the last label of
      NAME is sent as a compression pointer to a copy after the question.
"""
import socket
import socketserver
import struct
import sys
import threading


def read_name(msg, off):
    labels, jumps, end = [], 0, None
    while True:
        n = msg[off]
        if n & 0xC0 == 0xC0:
            if end is None:
                end = off + 2
            off = ((n & 0x3F) << 8) | msg[off + 1]
            jumps += 1
            if jumps > 16:
                raise ValueError("pointer loop")
            continue
        off += 1
        if n == 0:
            break
        labels.append(msg[off:off + n].decode("latin-1"))
        off += n
    return ".".join(labels), end if end is not None else off


def answer(msg, log, transport):
    name, off = read_name(msg, 12)
    with LOCK:
        with open(log, "a") as f:
            f.write("%s %s\n" % (transport, name))
    question = msg[12:off + 4]
    head = struct.pack("!HHHHHH", struct.unpack("!H", msg[:2])[0], 0x8180, 1, 1, 0, 0)
    rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton("192.0.2.1")
    return head + question + rr


LOCK = threading.Lock()


def server(addr, port, log):
    class Udp(socketserver.BaseRequestHandler):
        def handle(self):
            data, sock = self.request
            try:
                sock.sendto(answer(data, log, "udp"), self.client_address)
            except (ValueError, IndexError):
                pass

    class Tcp(socketserver.StreamRequestHandler):
        def handle(self):
            head = self.rfile.read(2)
            if len(head) < 2:
                return
            data = self.rfile.read(struct.unpack("!H", head)[0])
            try:
                out = answer(data, log, "tcp")
            except (ValueError, IndexError):
                return
            self.wfile.write(struct.pack("!H", len(out)) + out)

    socketserver.UDPServer.allow_reuse_address = True
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    u = socketserver.UDPServer((addr, port), Udp)
    t = socketserver.ThreadingTCPServer((addr, port), Tcp)
    t.daemon_threads = True
    threading.Thread(target=u.serve_forever, daemon=True).start()
    t.serve_forever()


def query(addr, port, transport, name, pointer):
    labels = [l.encode() for l in name.split(".")]
    head = labels[:-1] if pointer else labels
    wire = b"".join(bytes([len(l)]) + l for l in head)
    extra = b""
    if pointer:
        # The last label lives after the question, reached by a pointer.
        wire += struct.pack("!H", 0xC000 | (12 + len(wire) + 2 + 4))
        extra = bytes([len(labels[-1])]) + labels[-1] + b"\0"
    else:
        wire += b"\0"
    msg = struct.pack("!HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0) + wire + b"\0\x01\0\x01" + extra
    if transport == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(1)
        s.sendto(msg, (addr, port))
        try:
            resp = s.recv(4096)
        except OSError:
            return 1
    else:
        s = socket.create_connection((addr, port), timeout=1)
        try:
            s.sendall(struct.pack("!H", len(msg)) + msg)
            head = s.recv(2)
            if len(head) < 2:
                return 1
            want, resp = struct.unpack("!H", head)[0], b""
            while len(resp) < want:
                chunk = s.recv(want - len(resp))
                if not chunk:
                    return 1
                resp += chunk
        except OSError:
            return 1
    print(socket.inet_ntoa(resp[-4:]))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    sys.exit(query(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5],
                   len(sys.argv) > 6 and sys.argv[6] == "pointer"))
