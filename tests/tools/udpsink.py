#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A UDP server that never answers: it logs each datagram it receives as
"SOURCE_PORT LENGTH FIRST_BYTE_HEX", one line each, flushed at once.

    udpsink.py ADDRESS PORT LOGFILE
"""
import socket
import sys


def main():
    addr, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    # A burst of datagrams must wait here, not be dropped for want of room.
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
    except OSError:
        pass
    s.bind((addr, port))
    with open(path, "a", buffering=1) as log:
        while True:
            data, peer = s.recvfrom(65535)
            log.write("%d %d %02x\n" % (peer[1], len(data), data[0] if data else 0))


if __name__ == "__main__":
    main()
