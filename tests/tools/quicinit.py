#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sends QUIC v1 client Initials (RFC 9000, RFC 9001), sealed with the
Initial keys, from one UDP source port, as a client starting connections.

  quicinit.py ADDR PORT SPORT STEP...

Each STEP is sent in order, one datagram each, 0.3 s apart:
  junk                  1200 bytes that are not QUIC
  hello:DCID:SNI[:PN]   an Initial with a whole ClientHello for SNI, to the
                        Destination Connection ID DCID (hex)
  more:KEYDCID:DCID[:PN]  an Initial of the connection first sent to
                        KEYDCID (its keys), addressed to DCID (the server's
                        connection ID, say), carrying PING and PADDING
Needs python3-cryptography.
"""
import socket
import struct
import sys
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives import hmac

SALT_V1 = bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a")


def extract(salt, ikm):
    h = hmac.HMAC(salt, hashes.SHA256())
    h.update(ikm)
    return h.finalize()


def expand_label(secret, label, length):
    full = b"tls13 " + label
    info = struct.pack(">HB", length, len(full)) + full + b"\x00"
    return HKDFExpand(hashes.SHA256(), length, info).derive(secret)


def keys(dcid):
    client = expand_label(extract(SALT_V1, dcid), b"client in", 32)
    return (expand_label(client, b"quic key", 16), expand_label(client, b"quic iv", 12),
            expand_label(client, b"quic hp", 16))


def client_hello(sni):
    name = sni.encode()
    exts = (struct.pack(">HHHBH", 0, len(name) + 5, len(name) + 3, 0, len(name)) + name +
            bytes.fromhex("001000050003026833002b0003020304"))
    body = (b"\x03\x03" + bytes(range(32)) + b"\x00" + bytes.fromhex("0006130113021303") +
            b"\x01\x00" + struct.pack(">H", len(exts)) + exts)
    return b"\x01" + struct.pack(">I", len(body))[1:] + body


def initial(key_dcid, dcid, pn, frames):
    key, iv, hp = keys(key_dcid)
    payload = frames + bytes(1200 - len(frames))
    length = 2 + len(payload) + 16
    header = (bytes([0xc1]) + struct.pack(">I", 1) + bytes([len(dcid)]) + dcid + b"\x00\x00" +
              struct.pack(">H", 0x4000 | length) + struct.pack(">H", pn))
    nonce = bytes(a ^ b for a, b in zip(iv, bytes(4) + struct.pack(">Q", pn)))
    sealed = AESGCM(key).encrypt(nonce, payload, header)
    pn_off = len(header) - 2
    sample = sealed[4 - 2:4 - 2 + 16]
    enc = Cipher(algorithms.AES(hp), modes.ECB()).encryptor()
    mask = enc.update(sample) + enc.finalize()
    out = bytearray(header + sealed)
    out[0] ^= mask[0] & 0x0f
    out[pn_off] ^= mask[1]
    out[pn_off + 1] ^= mask[2]
    return bytes(out)


def crypto_frame(data):
    return b"\x06\x00" + struct.pack(">H", 0x4000 | len(data)) + data


def main():
    addr, port, sport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", sport))
    for step in sys.argv[4:]:
        parts = step.split(":")
        if parts[0] == "junk":
            dgram = b"\x5a" * 1200
        elif parts[0] == "hello":
            dcid = bytes.fromhex(parts[1])
            pn = int(parts[3]) if len(parts) > 3 else 0
            dgram = initial(dcid, dcid, pn, crypto_frame(client_hello(parts[2])))
        else:
            pn = int(parts[3]) if len(parts) > 3 else 1
            dgram = initial(bytes.fromhex(parts[1]), bytes.fromhex(parts[2]), pn, b"\x01")
        s.sendto(dgram, (addr, port))
        time.sleep(0.3)


if __name__ == "__main__":
    main()
