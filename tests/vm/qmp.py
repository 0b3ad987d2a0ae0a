#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Human monitor commands to a running qemu, over its QMP socket.

  qmp.py SOCKET COMMAND...

Sends each COMMAND (as typed at the qemu monitor, e.g. "info registers -a"
or "sendkey alt-sysrq-w"; "sleep N" waits N seconds here) in turn and
prints what the monitor answers. boot.sh uses it to look inside a guest
that shows no sign of life before it stops it.
"""
import json
import socket
import sys
import time


def main():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(sys.argv[1])
    stream = sock.makefile("rw")

    def call(cmd, args=None):
        msg = {"execute": cmd}
        if args is not None:
            msg["arguments"] = args
        stream.write(json.dumps(msg) + "\n")
        stream.flush()
        # Events may come before the answer; the answer has "return" or "error".
        while True:
            line = stream.readline()
            if not line:
                raise EOFError("qemu closed the socket")
            reply = json.loads(line)
            if "return" in reply or "error" in reply:
                return reply

    stream.readline()       # the greeting
    call("qmp_capabilities")
    for cmd in sys.argv[2:]:
        if cmd.startswith("sleep "):
            time.sleep(float(cmd.split()[1]))
            continue
        reply = call("human-monitor-command", {"command-line": cmd})
        if "error" in reply:
            print("%s: %s" % (cmd, reply["error"].get("desc", reply["error"])))
        else:
            sys.stdout.write(reply["return"])


if __name__ == "__main__":
    main()
