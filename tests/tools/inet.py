# SPDX-License-Identifier: GPL-2.0
"""Helpers for the scripts that build IP packets by hand."""
import struct


def csum(data):
    """The Internet checksum (RFC 1071) of data, odd lengths padded."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
