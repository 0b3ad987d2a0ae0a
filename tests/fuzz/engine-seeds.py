#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes the seed inputs of fuzz_engine.c into tests/fuzz/corpus/engine:
one per way a client may show afwd other bytes than the server reads.

  tests/fuzz/engine-seeds.py [OUTDIR]

Each step is 8 bytes: op, source/flags, offset (2 bytes, little-endian),
length, spoiling bits, parameter, more bits (see fuzz_engine.c).
"""
import os
import struct
import sys

SYN, SYNACK, SACK, SACKDATA, DATA, PUREACK, RST, TIME, UDP = 0, 1, 2, 3, 4, 7, 8, 9, 10
GOOD, BAD, NOISE, WATCHED = 0, 1, 2, 3
WHOLE = 0x80


def step(op, b1=0, off=0, length=0, spoil=0, param=0, more=0):
    return struct.pack("<BBHBBBB", op, b1, off, length, spoil, param, more)


def hs(syn_data=None):
    s = step(SYN, GOOD if syn_data is None else syn_data, length=1 if syn_data is not None else 0)
    return s + step(SYNACK) + step(PUREACK)


def whole(src, spoil=0, more=0):
    return step(DATA, src, 0, 0, WHOLE | spoil, 0, more)


SEEDS = {
    "allowed": hs() + whole(GOOD) + step(SACKDATA, 1),
    "denied": hs() + whole(BAD) + step(SACK),
    "ttl": hs() + whole(GOOD, more=0x1f) + whole(BAD) + step(SACKDATA, 1),
    "csum": hs() + whole(GOOD, 0x08) + whole(BAD) + step(SACK),
    "noack": hs() + whole(GOOD, 0x01) + whole(BAD) + step(SACK),
    "unsent-ack": hs() + whole(GOOD, 0x02, ) + whole(BAD) + step(SACK),
    "old-ack": hs() + whole(GOOD, 0x04) + whole(BAD) + step(SACK),
    "md5": hs() + whole(GOOD, 0x30) + whole(BAD) + step(SACK),
    "window": hs() + whole(GOOD, more=0x20) + whole(BAD) + step(SACK),
    "syndata": hs(syn_data=GOOD) + whole(BAD) + step(SACK),
    "reuse": hs() + whole(GOOD) + step(SACKDATA, 1) + step(RST) + step(SYN, 1, 7) +
    step(SYNACK) + step(PUREACK) + whole(BAD) + step(SACK),
    "urgent": hs() + step(DATA, GOOD, 0, 9, 0x40, 3) + step(DATA, GOOD, 10, 63) + whole(GOOD) +
    step(SACKDATA, 1),
    "small-acked": hs() + b"".join(step(DATA, BAD, o, 7) + step(SACK) for o in range(0, 280, 8)),
    "holes": hs() + b"".join(step(DATA, BAD, o, 0) for o in range(200, 20, -10)) + whole(GOOD) +
    step(SACK),
    # Sixteen holes of bytes both hellos share, then the denied name where
    # no seventeenth range fits, then the allowed hello whole.
    "holes-name": hs() + b"".join(step(DATA, BAD, o, 0) for o in range(100, 260, 10)) +
    step(DATA, BAD, 61, 11) + whole(GOOD) + step(SACKDATA, 1) + step(SACKDATA, 1),
    "late": hs() + step(TIME, 60) + whole(BAD) + step(SACK),
    "confirm-timeout": hs() + whole(GOOD) + step(TIME, 255) + step(TIME, 255) + whole(BAD) +
    step(SACK),
    "udp": step(UDP, 0, 0, 250) + step(UDP, 1, 5, 3) + step(UDP, 0, 9, 250),
    # Half the denied hello, a SYN with another ISN the server ignores,
    # the time afwd waits for its answer, then the rest.
    "new-syn-ignored": hs() + step(DATA, BAD, 0, 99) + step(SACK) + step(SYN, 1, 7) +
    step(TIME, 200) + step(TIME, 200) + step(DATA, BAD, 100, 200) + step(SACK),
    # Inspected flows: every packet still goes to afwd, which must hold
    # against the denied hello sent over the watched one, or after a reset.
    "inspected": hs() + whole(WATCHED) + step(SACKDATA, 1) + whole(BAD) + step(SACK),
    "inspected-unacked": hs() + whole(WATCHED, 0x01) + whole(BAD) + step(SACK),
    "inspected-reuse": hs() + whole(WATCHED) + step(SACKDATA, 1) + step(RST) +
    step(SYN, 1, 7) + step(SYNACK) + step(PUREACK) + whole(BAD) + step(SACK),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "engine")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
