#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Many short TCP connections and UDP exchanges, each from its own port.

  echoflows.py server ADDR PORT
  echoflows.py client ADDR PORT SPORT COUNT

The server echoes on TCP and UDP port PORT. The client opens COUNT TCP
connections, then makes COUNT UDP exchanges, from source ports SPORT to
SPORT+COUNT-1; each sends one message and waits up to 3 s for its echo. It
prints "tcp OK/COUNT udp OK/COUNT" and exits 0 only if every echo came back.
"""
import socket
import socketserver
import sys
import threading


class TcpEcho(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            self.wfile.write(line)


class UdpEcho(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        sock.sendto(data, self.client_address)


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def server(addr, port):
    class Tcp(socketserver.ThreadingTCPServer):
        allow_reuse_address = True
        daemon_threads = True
        address_family = family(addr)

    class Udp(socketserver.UDPServer):
        allow_reuse_address = True
        address_family = family(addr)

    udp = Udp((addr, port), UdpEcho)
    threading.Thread(target=udp.serve_forever, daemon=True).start()
    Tcp((addr, port), TcpEcho).serve_forever()


def one(addr, port, sport, kind):
    s = socket.socket(family(addr), kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(3)
    msg = b"flow %d\n" % sport
    try:
        s.bind(("", sport))
        if kind == socket.SOCK_STREAM:
            s.connect((addr, port))
            s.sendall(msg)
            got = s.makefile("rb").readline()
        else:
            s.sendto(msg, (addr, port))
            got = s.recv(len(msg) + 1)
    except OSError:
        return False
    finally:
        s.close()
    return got == msg


def client(addr, port, sport, count):
    ports = range(sport, sport + count)
    tcp = sum(one(addr, port, p, socket.SOCK_STREAM) for p in ports)
    udp = sum(one(addr, port, p, socket.SOCK_DGRAM) for p in ports)
    print("tcp %d/%d udp %d/%d" % (tcp, count, udp, count))
    return 0 if tcp == udp == count else 1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "client":
        sys.exit(client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])))
    sys.exit("usage: echoflows.py server ADDR PORT | client ADDR PORT SPORT COUNT")
