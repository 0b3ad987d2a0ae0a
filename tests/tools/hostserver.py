#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Python's http.server, as it is, logging the Host of each request it serves.

  hostserver.py ADDR PORT LOG

Each request that http.server parses and hands to a method appends
"METHOD HOST" to LOG; a request it refuses leaves no line.
"""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def serve(self):
        with open(self.server.log, "a") as f:
            f.write("%s %s\n" % (self.command, self.headers.get("Host", "-")))
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def __getattr__(self, name):
        # Any method the client names is served, as a proxy would pass it on.
        if name.startswith("do_"):
            return self.serve
        raise AttributeError(name)


def main():
    srv = http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
    srv.log = sys.argv[3]
    srv.serve_forever()


if __name__ == "__main__":
    main()
