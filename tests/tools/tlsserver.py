#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TLS server that logs every completed handshake.

  tlsserver.py ADDR PORT CERT KEY LOG [CURVE]

Each ClientHello OpenSSL parses appends "sni SNI" to LOG (the name the
server acts on, whether or not the handshake goes on); each completed
handshake appends "handshake SNI ALPN", then the server answers one
HTTP/1.1 request: "/bytes/N" gets N bytes, "/echo" a connection that
echoes every line it receives until the client closes it, anything else
"ok". A connection whose ClientHello never reached OpenSSL leaves no line,
which is what a test of a denied flow looks for. With CURVE (e.g.
prime256v1) the server takes key shares of that group only, so that a
client that offers another first gets a HelloRetryRequest.
"""
import socket
import ssl
import sys
import threading


def serve(conn, ctx, log):
    try:
        tls = ctx.wrap_socket(conn, server_side=True)
    except (ssl.SSLError, OSError):
        conn.close()
        return
    with open(log, "a") as f:
        f.write("handshake %s %s\n" % (getattr(tls, "afw_sni", None) or "-",
                                       tls.selected_alpn_protocol() or "-"))
    try:
        req = b""
        while b"\r\n\r\n" not in req and len(req) < 65536:
            chunk = tls.recv(4096)
            if not chunk:
                return
            req += chunk
        path = req.split(b" ", 2)[1] if req.count(b" ") >= 2 else b"/"
        if path == b"/echo":
            tls.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            rest = req.split(b"\r\n\r\n", 1)[1]
            while True:
                while b"\n" in rest:
                    line, rest = rest.split(b"\n", 1)
                    tls.sendall(line + b"\n")
                chunk = tls.recv(4096)
                if not chunk:
                    return
                rest += chunk
        if path.startswith(b"/bytes/"):
            n = int(path[7:])
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
            block = b"x" * 65536
            while n:
                k = min(n, len(block))
                tls.sendall(block[:k])
                n -= k
        else:
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
    except (ssl.SSLError, OSError, ValueError):
        pass
    finally:
        tls.close()


def main():
    addr, port, cert, key, log = sys.argv[1:6]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["http/1.1"])
    if len(sys.argv) > 6:
        ctx.set_ecdh_curve(sys.argv[6])

    def remember_sni(sock, name, _ctx):
        sock.afw_sni = name
        with open(log, "a") as f:
            f.write("sni %s\n" % (name or "-"))
        # Which connection it was, for a test that finds a name it did not expect.
        try:
            peer = "%s port %d" % sock.getpeername()[:2]
        except (AttributeError, OSError):
            peer = "?"
        print("tlsserver: sni %s from %s" % (name or "-", peer), file=sys.stderr, flush=True)
    ctx.sni_callback = remember_sni
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(port)))
    s.listen(64)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, ctx, log), daemon=True).start()


if __name__ == "__main__":
    main()
