#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send hand-made, often malformed, afw generic netlink requests.

Usage: nlprobe.py CASE [ARG]. Prints "ok" when the kernel accepted the
request, or "error ERRNO MESSAGE" with the extended ack text.
nlprobe.py --each CASE... sends each case in turn on one socket and prints
"CASE ok" or "CASE error ..." for each: one interpreter for a whole table
(starting one takes seconds on a debug kernel). Constants come from the
uapi header, so this tool never holds a copy of the protocol.
"""
import os
import re
import socket
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, "..", "..", "include", "uapi", "linux", "afw.h")

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLMSGERR_ATTR_MSG = 1


def uapi_enums(path):
    """Every enumerator and numeric #define of the header, with its value."""
    text = open(path).read()
    values = {}
    for body in re.findall(r"enum\s+\w+\s*{([^}]*)}", text):
        n = 0
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                name, val = (s.strip() for s in item.split("="))
                n = int(val, 0)
            else:
                name = item
            values[name] = n
            n += 1
    for name, val in re.findall(r"^#define\s+(AFW_\w+)\s+(0x[0-9a-fA-F]+|\d+)\s*(?:/\*.*\*/\s*)?$", text, re.M):
        values[name] = int(val, 0)
    return values


def attr(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * ((4 - len(payload) % 4) % 4)


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def send(self, family, cmd, attrs=b"", version=1, raw_len=None):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + attrs
        length = 16 + len(body) if raw_len is None else raw_len
        msg = struct.pack("=IHHII", length, family, NLM_F_REQUEST | NLM_F_ACK, self.seq, 0) + body
        self.sock.send(msg)
        return self.replies()

    def replies(self):
        """(error, extack message, [data payloads]) for the last request."""
        data = []
        while True:
            buf = self.sock.recv(65536)
            off = 0
            while off + 16 <= len(buf):
                length, mtype, flags, _seq, _pid = struct.unpack_from("=IHHII", buf, off)
                payload = buf[off + 16:off + length]
                if mtype == NLMSG_ERROR:
                    err = struct.unpack_from("=i", payload)[0]
                    msg = ""
                    if flags & NLM_F_ACK_TLVS:
                        tlv = 4 + 16
                        if not flags & NLM_F_CAPPED:
                            tlv = 4 + struct.unpack_from("=I", payload, 4)[0]
                        while tlv + 4 <= len(payload):
                            alen, atype = struct.unpack_from("=HH", payload, tlv)
                            if atype == NLMSGERR_ATTR_MSG:
                                msg = payload[tlv + 4:tlv + alen].rstrip(b"\0").decode()
                            tlv += (alen + 3) & ~3
                    return -err, msg, data
                if mtype == NLMSG_DONE:
                    return 0, "", data
                data.append(payload)
                off += (length + 3) & ~3

    def family_id(self, name):
        err, msg, data = self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                   attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if err:
            sys.exit("cannot resolve family %s: errno %d %s" % (name, err, msg))
        payload = data[0][4:]
        off = 0
        while off + 4 <= len(payload):
            alen, atype = struct.unpack_from("=HH", payload, off)
            if atype == CTRL_ATTR_FAMILY_ID:
                return struct.unpack_from("=H", payload, off + 4)[0]
            off += (alen + 3) & ~3
        sys.exit("no family id in the reply")


def attrs_of(buf):
    """[(type, flags, payload)] of the attributes in @buf, or a reason they are not well-formed."""
    out, off = [], 0
    while off < len(buf):
        if off + 4 > len(buf):
            return "an attribute header cut at %d" % off
        alen, atype = struct.unpack_from("=HH", buf, off)
        end = off + ((alen + 3) & ~3)
        if alen < 4 or end > len(buf):
            return "attribute %d: length %d past the end" % (atype & 0x3fff, alen)
        if any(buf[off + alen:end]):
            return "attribute %d: padding not zero" % (atype & 0x3fff)
        out.append((atype & 0x3fff, atype & 0xc000, buf[off + 4:off + alen]))
        off = end
    return out


def tcp_at(pkt, alen):
    """Where the TCP header starts in @pkt, an IPv4 (@alen 4) or IPv6 packet."""
    return (pkt[0] & 15) * 4 if alen == 4 else 40


def check_told(e, body, alen, ports, learned=None, owner=True):
    """
    'FLAGS DIR ok' for a well-formed HANDSHAKE, CONFIRMED or LEARNED message's
    @body, else 'bad: why'. A LEARNED one carries the verdict and line
    @learned (a pair) too; OWNER may come only where @owner.
    """
    sizes = {"AFW_FLOW_A_FAMILY": 1, "AFW_FLOW_A_PROTO": 1, "AFW_FLOW_A_SRC": alen,
             "AFW_FLOW_A_DST": alen, "AFW_FLOW_A_SPORT": 2, "AFW_FLOW_A_DPORT": 2,
             "AFW_FLOW_A_DIR": 1, "AFW_FLOW_A_IIF": 4, "AFW_FLOW_A_OIF": 4}
    if learned:
        sizes.update({"AFW_FLOW_A_VERDICT": 1, "AFW_FLOW_A_LINE": 4})
    names = {e[n]: n for n in list(sizes) + ["AFW_FLOW_A_PACKET"] +
             (["AFW_FLOW_A_OWNER"] if owner else [])}
    top = attrs_of(body)
    if isinstance(top, str):
        return "bad: " + top
    if len(top) != 1 or top[0][0] != e["AFW_A_FLOW"] or top[0][1] != 0x8000:
        return "bad: not one AFW_A_FLOW marked nested: %s" % [(t, f) for t, f, _ in top]
    inner = attrs_of(top[0][2])
    if isinstance(inner, str):
        return "bad: " + inner
    a = {}
    for t, f, v in inner:
        if t not in names:
            return "bad: attribute %d not expected" % t
        if names[t] in a:
            return "bad: %s twice" % names[t]
        if (f != 0) != (names[t] == "AFW_FLOW_A_OWNER"):
            return "bad: %s flags %#x" % (names[t], f)
        if names[t] in sizes and len(v) != sizes[names[t]]:
            return "bad: %s of %d bytes" % (names[t], len(v))
        a[names[t]] = v
    missing = [n for n in list(sizes) + ["AFW_FLOW_A_PACKET"] if n not in a]
    if missing:
        return "bad: missing %s" % missing
    nest = attrs_of(a["AFW_FLOW_A_OWNER"]) if "AFW_FLOW_A_OWNER" in a else []
    if isinstance(nest, str):
        return "bad: owner nest: " + nest
    if learned and (a["AFW_FLOW_A_VERDICT"][0],
                    struct.unpack("=I", a["AFW_FLOW_A_LINE"])[0]) != learned:
        return "bad: verdict %d line %d" % (a["AFW_FLOW_A_VERDICT"][0],
                                            struct.unpack("=I", a["AFW_FLOW_A_LINE"])[0])
    family = e["AFW_FAMILY_IPV6"] if alen == 16 else e["AFW_FAMILY_IPV4"]
    if a["AFW_FLOW_A_FAMILY"][0] != family or a["AFW_FLOW_A_PROTO"][0] != 6:
        return "bad: family %d proto %d" % (a["AFW_FLOW_A_FAMILY"][0], a["AFW_FLOW_A_PROTO"][0])
    sport, dport = (struct.unpack("=H", a[n])[0] for n in ("AFW_FLOW_A_SPORT", "AFW_FLOW_A_DPORT"))
    if {sport, dport} != ports:
        return "bad: ports %d %d" % (sport, dport)
    pkt = a["AFW_FLOW_A_PACKET"]
    if alen == 4:
        if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 6:
            return "bad: not an IPv4 TCP packet"
        total = struct.unpack_from("!H", pkt, 2)[0]
        src, dst = pkt[12:16], pkt[16:20]
    else:
        if len(pkt) < 40 or pkt[0] >> 4 != 6 or pkt[6] != 6:
            return "bad: not an IPv6 TCP packet"
        total = 40 + struct.unpack_from("!H", pkt, 4)[0]
        src, dst = pkt[8:24], pkt[24:40]
    l4 = tcp_at(pkt, alen)
    if (src, dst) != (a["AFW_FLOW_A_SRC"], a["AFW_FLOW_A_DST"]):
        return "bad: addresses not the packet's"
    if len(pkt) < l4 + 20 or len(pkt) != total:
        return "bad: packet of %d bytes, its header says %d" % (len(pkt), total)
    if struct.unpack_from("!HH", pkt, l4) != (sport, dport):
        return "bad: ports not the packet's"
    if len(pkt) != l4 + (pkt[l4 + 12] >> 4) * 4:
        return "bad: a handshake packet with a payload"
    flags = {0x02: "SYN", 0x12: "SYN-ACK", 0x10: "ACK"}.get(pkt[l4 + 13] & 0x3f)
    if not flags:
        return "bad: TCP flags %#x" % pkt[l4 + 13]
    d = a["AFW_FLOW_A_DIR"][0]
    iif, oif = (struct.unpack("=I", a[n])[0] for n in ("AFW_FLOW_A_IIF", "AFW_FLOW_A_OIF"))
    # Loopback is interface 1: out of it in LOCAL_OUT, in through it in LOCAL_IN.
    if (d, iif, oif) not in ((e["AFW_DIR_OUT"], 0, 1), (e["AFW_DIR_IN"], 1, 0)):
        return "bad: direction %d, interfaces %d %d" % (d, iif, oif)
    return "%s %s ok" % (flags, "out" if d == e["AFW_DIR_OUT"] else "in")


def main():
    e = uapi_enums(UAPI)
    g = Genl()
    fam = g.family_id("afw")
    each = sys.argv[1] == "--each"
    todo = sys.argv[2:] if each else sys.argv[1:2]
    version = attr(e["AFW_A_MODULE_VERSION"], b"0.0\0")
    cases = {
        "status": lambda: g.send(fam, e["AFW_CMD_STATUS_GET"]),
        "status-with-attr": lambda: g.send(fam, e["AFW_CMD_STATUS_GET"], version),
        "status-unknown-attr": lambda: g.send(fam, e["AFW_CMD_STATUS_GET"],
                                              attr(e["__AFW_A_MAX"], b"\0" * 4)),
        "unknown-cmd": lambda: g.send(fam, e["__AFW_CMD_MAX"]),
        # The attribute claims 40 bytes where the message holds 8.
        "truncated-attr": lambda: g.send(fam, e["AFW_CMD_STATUS_GET"],
                                         struct.pack("=HH", 40, e["AFW_A_MODULE_VERSION"]) + b"0.0\0"),
        "reset-with-attr": lambda: g.send(fam, e["AFW_CMD_COUNTERS_RESET"], version),
        "stats": lambda: g.send(fam, e["AFW_CMD_STATS_GET"]),
        # Its own reply attribute, sent back as a request.
        "stats-with-attr": lambda: g.send(fam, e["AFW_CMD_STATS_GET"], attr(e["AFW_A_STATS"], b"")),
        "stats-unknown-attr": lambda: g.send(fam, e["AFW_CMD_STATS_GET"],
                                             attr(e["__AFW_A_MAX"], b"\0" * 4)),
    }
    def replace_busy():
        # A second socket may not start a replace while the first one's is open;
        # once the first socket closes, it may.
        flags = e["AFW_A_REPLACE_FLAGS"]
        begin = attr(flags, struct.pack("=I", e["AFW_REPLACE_F_BEGIN"]))
        first = g.send(fam, e["AFW_CMD_RULESET_REPLACE"], begin)
        other = Genl()
        busy = other.send(fam, e["AFW_CMD_RULESET_REPLACE"], begin)
        g.sock.close()
        after = other.send(fam, e["AFW_CMD_RULESET_REPLACE"], begin)
        print("first %d, second %d %s, after close %d" % (first[0], busy[0], busy[1], after[0]))
        return 0, "", []

    def flow_flood():
        # N distinct UDP flows from 203.0.113.0/24, installed as fast as one
        # socket can; prints how many the kernel took and refused.
        n = int(sys.argv[2])
        took = refused = 0
        for i in range(n):
            src = bytes([203, 0, 113, i % 256])
            flow = (attr(e["AFW_FLOW_A_FAMILY"], b"\x02") + attr(e["AFW_FLOW_A_PROTO"], b"\x11") +
                    attr(e["AFW_FLOW_A_SRC"], src) + attr(e["AFW_FLOW_A_DST"], bytes([198, 51, 100, 2])) +
                    attr(e["AFW_FLOW_A_SPORT"], struct.pack("=H", 1024 + i // 256 % 60000)) +
                    attr(e["AFW_FLOW_A_DPORT"], struct.pack("=H", 53)) +
                    attr(e["AFW_FLOW_A_VERDICT"], b"\x00"))
            err, _, _ = g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000, flow))
            if err == 0:
                took += 1
            else:
                refused += 1
        print("took %d refused %d" % (took, refused))
        return 0, "", []

    def rule(*attrs):
        return g.send(fam, e["AFW_CMD_RULE_NEW"], attr(e["AFW_A_RULE"] | 0x8000, b"".join(attrs)))

    def u8(name, v):
        return attr(e[name], bytes([v]))

    def u16(name, v):
        return attr(e[name], struct.pack("=H", v))

    def u32(name, v):
        return attr(e[name], struct.pack("=I", v))

    F = {f: e["AFW_MATCH_F_" + f] for f in ("SRC", "DST", "SPORT", "DPORT")}
    v4f = e["AFW_FAMILY_IPV4"]

    def flow_key(proto, sport):
        """A flow's key, 192.0.2.1:SPORT to 198.51.100.9:9, as FLOW_NEW takes it."""
        return (u8("AFW_FLOW_A_FAMILY", 2) + u8("AFW_FLOW_A_PROTO", proto) +
                attr(e["AFW_FLOW_A_SRC"], bytes([192, 0, 2, 1])) +
                attr(e["AFW_FLOW_A_DST"], bytes([198, 51, 100, 9])) +
                u16("AFW_FLOW_A_SPORT", sport) + u16("AFW_FLOW_A_DPORT", 9))

    def learn_flow(proto, verdict):
        """A FLOW_NEW's attributes, teaching its decision (AFW_FLOW_F_LEARN)."""
        return (flow_key(proto, 40000) +
                u8("AFW_FLOW_A_VERDICT", verdict) + u32("AFW_FLOW_A_FLAGS", e["AFW_FLOW_F_LEARN"]))

    def confirm_flow(proto, verdict, confirm, flags=0, sport=40001):
        """A FLOW_NEW's attributes, its flow held unconfirmed by @confirm, a CONFIRM nest's."""
        return (flow_key(proto, sport) +
                u8("AFW_FLOW_A_VERDICT", verdict) +
                (u32("AFW_FLOW_A_FLAGS", flags) + u8("AFW_FLOW_A_DIR", e["AFW_DIR_OUT"])
                 if flags else b"") +
                attr(e["AFW_FLOW_A_CONFIRM"] | 0x8000, confirm))

    def confirm(ack=True, end=True, iif=True):
        return ((u32("AFW_CONFIRM_A_ACK", 1001) if ack else b"") +
                (u32("AFW_CONFIRM_A_END", 1200) if end else b"") +
                (u32("AFW_CONFIRM_A_IIF", 0) if iif else b""))

    def match(prio, action, dirs, family, proto, flags, sp=0, dp=0, sport=(0, 0), dport=(0, 0),
              reserved=0, addrs=b""):
        # struct afw_rule_match, then the addresses its flags name.
        return attr(e["AFW_RULE_A_MATCH"],
                    struct.pack("=IBBBBBBBBHHHH", prio, action, dirs, family, proto, flags, sp, dp,
                                reserved, *sport, *dport) + addrs)

    drop = u8("AFW_RULE_A_ACTION", e["AFW_ACTION_DROP"])
    v4 = u8("AFW_RULE_A_FAMILY", e["AFW_FAMILY_IPV4"])
    tcp = u8("AFW_RULE_A_PROTO", 6)
    cases.update({
        "rule-no-action": lambda: rule(tcp),
        "rule-bad-action": lambda: rule(u8("AFW_RULE_A_ACTION", 200)),
        "rule-addr-no-family": lambda: rule(drop, attr(e["AFW_RULE_A_SRC"], bytes([192, 0, 2, 0]))),
        "rule-addr-wrong-length": lambda: rule(drop, v4, attr(e["AFW_RULE_A_SRC"], bytes(16))),
        "rule-prefix-too-long": lambda: rule(drop, v4, attr(e["AFW_RULE_A_SRC"], bytes([192, 0, 2, 0])),
                                             u8("AFW_RULE_A_SRC_PREFIX", 33)),
        "rule-host-bits": lambda: rule(drop, v4, attr(e["AFW_RULE_A_SRC"], bytes([192, 0, 2, 1])),
                                       u8("AFW_RULE_A_SRC_PREFIX", 24)),
        "rule-range-reversed": lambda: rule(drop, tcp, u16("AFW_RULE_A_DPORT_LO", 90),
                                            u16("AFW_RULE_A_DPORT_HI", 80)),
        "rule-ports-no-proto": lambda: rule(drop, u16("AFW_RULE_A_DPORT_LO", 80)),
        "rule-short-u32": lambda: rule(drop, attr(e["AFW_RULE_A_ID"], b"\x01\x00")),
        "rule-counters-given": lambda: rule(drop, attr(e["AFW_RULE_A_PACKETS"], bytes(8))),
        # Paths only in the form the kernel gives them, which rules compare.
        "rule-exe-relative": lambda: rule(drop, attr(e["AFW_RULE_A_EXE"], b"usr/bin/curl\0")),
        "rule-exe-dotdot": lambda: rule(drop, attr(e["AFW_RULE_A_EXE"], b"/usr/../bin/sh\0")),
        "rule-exe-root": lambda: rule(drop, attr(e["AFW_RULE_A_EXE"], b"/\0")),
        "rule-exe-too-long": lambda: rule(drop, attr(e["AFW_RULE_A_EXE"], b"/" + b"a" * 255 + b"\0")),
        "rule-cgroup-slashes": lambda: rule(drop, attr(e["AFW_RULE_A_CGROUP"], b"/a//b\0")),
        "rule-cgroup-trailing": lambda: rule(drop, attr(e["AFW_RULE_A_CGROUP"], b"/a/\0")),
        "rule-cgroup-inbound": lambda: rule(drop, u8("AFW_RULE_A_DIRECTIONS", 1 << e["AFW_DIR_IN"]),
                                            attr(e["AFW_RULE_A_CGROUP"], b"/a\0")),
        # AFW_RULE_A_MATCH: one struct for the matches, held to the same checks.
        "match-ok": lambda: rule(u32("AFW_RULE_A_ID", 4242),
                                 match(7, e["AFW_ACTION_DROP"], 1 << e["AFW_DIR_IN"], v4f, 6,
                                       F["SRC"] | F["DPORT"], sp=24, dport=(80, 90),
                                       addrs=bytes([192, 0, 2, 0]))),
        "match-short": lambda: rule(attr(e["AFW_RULE_A_MATCH"], bytes(12))),
        "match-too-long": lambda: rule(attr(e["AFW_RULE_A_MATCH"], bytes(60))),
        "match-reserved": lambda: rule(match(0, 1, 1, 0, 0, 0, reserved=1)),
        "match-unknown-flag": lambda: rule(match(0, 1, 1, 0, 0, 0x10)),
        "match-bad-action": lambda: rule(match(0, 200, 1, 0, 0, 0)),
        "match-no-dirs": lambda: rule(match(0, 1, 0, 0, 0, 0)),
        "match-bad-family": lambda: rule(match(0, 1, 1, 7, 0, 0)),
        "match-addr-no-family": lambda: rule(match(0, 1, 1, 0, 0, F["SRC"], sp=8, addrs=bytes(4))),
        "match-wrong-length": lambda: rule(match(0, 1, 1, v4f, 0, F["SRC"], sp=8, addrs=bytes(16))),
        "match-prefix-too-long": lambda: rule(match(0, 1, 1, v4f, 0, F["DST"], dp=33, addrs=bytes(4))),
        "match-host-bits": lambda: rule(match(0, 1, 1, v4f, 0, F["SRC"], sp=24,
                                              addrs=bytes([192, 0, 2, 1]))),
        "match-prefix-no-flag": lambda: rule(match(0, 1, 1, v4f, 0, 0, sp=8)),
        "match-ports-no-flag": lambda: rule(match(0, 1, 1, 0, 6, 0, dport=(80, 80))),
        "match-ports-no-proto": lambda: rule(match(0, 1, 1, 0, 0, F["DPORT"], dport=(80, 80))),
        "match-range-reversed": lambda: rule(match(0, 1, 1, 0, 6, F["SPORT"], sport=(90, 80))),
        "match-beside-action": lambda: rule(match(0, 1, 1, 0, 0, 0), drop),
        "match-beside-src": lambda: rule(match(0, 1, 1, v4f, 0, 0), attr(e["AFW_RULE_A_SRC"], bytes(4))),
        "match-twice": lambda: rule(match(0, 200, 1, 0, 0, 0), match(0, 1, 1, 0, 0, 0)),
        "match-nested-flag": lambda: rule(attr(e["AFW_RULE_A_MATCH"] | 0x8000,
                                               struct.pack("=IBBBBBBBBHHHH", 0, 1, 1, 0, 0, 0, 0, 0, 0,
                                                           0, 0, 0, 0))),
        # A whole ruleset in one message whose second rule is a bad MATCH.
        "match-in-replace": lambda: g.send(
            fam, e["AFW_CMD_RULESET_REPLACE"],
            attr(e["AFW_A_RULES"] | 0x8000,
                 attr(e["AFW_A_RULE"] | 0x8000, match(0, 1, 1, 0, 0, 0)) +
                 attr(e["AFW_A_RULE"] | 0x8000, match(0, 1, 1, 0, 6, F["SPORT"], sport=(90, 80)))) +
            attr(e["AFW_A_REPLACE_FLAGS"],
                 struct.pack("=I", e["AFW_REPLACE_F_BEGIN"] | e["AFW_REPLACE_F_COMMIT"]))),
        "rule-not-nested": lambda: g.send(fam, e["AFW_CMD_RULE_NEW"], attr(e["AFW_A_RULE"], drop)),
        "rule-missing": lambda: g.send(fam, e["AFW_CMD_RULE_NEW"]),
        # Each command takes its own attributes only.
        "rule-new-with-flow": lambda: g.send(fam, e["AFW_CMD_RULE_NEW"],
                                             attr(e["AFW_A_RULE"] | 0x8000, drop) +
                                             attr(e["AFW_A_FLOW"] | 0x8000, b"")),
        "flow-del-with-verdict": lambda: g.send(fam, e["AFW_CMD_FLOW_DEL"], attr(e["AFW_A_FLOW"] | 0x8000,
            u8("AFW_FLOW_A_FAMILY", 2) + u8("AFW_FLOW_A_PROTO", 1) +
            attr(e["AFW_FLOW_A_SRC"], bytes(4)) + attr(e["AFW_FLOW_A_DST"], bytes(4)) +
            u8("AFW_FLOW_A_VERDICT", 0))),
        "flow-no-verdict": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            u8("AFW_FLOW_A_FAMILY", 2) + u8("AFW_FLOW_A_PROTO", 1) +
            attr(e["AFW_FLOW_A_SRC"], bytes(4)) + attr(e["AFW_FLOW_A_DST"], bytes(4)))),
        # Decisions afwd teaches: only TCP, a verdict the module gives, a direction.
        "flow-learn-no-dir": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            learn_flow(6, 0))),
        "flow-learn-udp": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            learn_flow(17, 0) + u8("AFW_FLOW_A_DIR", e["AFW_DIR_OUT"]))),
        "flow-learn-inspect": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            learn_flow(6, e["AFW_VERDICT_INSPECT"]) + u8("AFW_FLOW_A_DIR", e["AFW_DIR_OUT"]))),
        "flow-learn-bad-dir": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            learn_flow(6, 0) + u8("AFW_FLOW_A_DIR", 3))),
        "flow-del-with-dir": lambda: g.send(fam, e["AFW_CMD_FLOW_DEL"], attr(e["AFW_A_FLOW"] | 0x8000,
            u8("AFW_FLOW_A_FAMILY", 2) + u8("AFW_FLOW_A_PROTO", 1) +
            attr(e["AFW_FLOW_A_SRC"], bytes(4)) + attr(e["AFW_FLOW_A_DST"], bytes(4)) +
            u8("AFW_FLOW_A_DIR", 0))),
        "flow-new-with-hits": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            learn_flow(6, 0) + attr(e["AFW_FLOW_A_HITS"], bytes(8)))),
        # Flows held until their server acknowledges the judged bytes.
        "confirm-no-iif": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, confirm(iif=False)))),
        "confirm-no-ack": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, confirm(ack=False)))),
        "confirm-udp": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(17, 0, confirm()))),
        "confirm-drop": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, e["AFW_VERDICT_DROP"], confirm()))),
        "confirm-learned": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, confirm(), flags=e["AFW_FLOW_F_LEARN"]))),
        "confirm-short-ack": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, u16("AFW_CONFIRM_A_ACK", 1) + confirm(ack=False)))),
        "confirm-unknown-attr": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, confirm() + attr(e["__AFW_CONFIRM_A_MAX"], bytes(4))))),
        "confirm-not-nested": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, b"")[:-4] + attr(e["AFW_FLOW_A_CONFIRM"], confirm()))),
        "confirm-ok": lambda: g.send(fam, e["AFW_CMD_FLOW_NEW"], attr(e["AFW_A_FLOW"] | 0x8000,
            confirm_flow(6, 0, confirm(), sport=40002))),
        "learn-flush-with-attr": lambda: g.send(fam, e["AFW_CMD_LEARN_FLUSH"], version),
        "config-queue-overflow": lambda: g.send(fam, e["AFW_CMD_CONFIG_SET"], attr(e["AFW_A_CONFIG"] | 0x8000,
            u16("AFW_CFG_A_QUEUE_NUM", 65535) + u16("AFW_CFG_A_QUEUE_COUNT", 2))),
    })
    def told():
        # told 4|6 QUEUE: serves QUEUE with AFW_A_SERVE_TELL, makes a
        # connection over loopback, and reads what the module tells: each
        # HANDSHAKE message checked byte by byte, a line for each. Then
        # installs that connection's flow unconfirmed up to 5 bytes past its
        # SYN, sends them, and checks the CONFIRMED message the server's ACK
        # brings; then teaches the module the server's port (LEARNED, line
        # 42) and checks the LEARNED message a second connection's SYN brings.
        af = socket.AF_INET6 if sys.argv[2] == "6" else socket.AF_INET
        host = "::1" if af == socket.AF_INET6 else "127.0.0.1"
        alen = 16 if af == socket.AF_INET6 else 4
        family = e["AFW_FAMILY_IPV6"] if alen == 16 else e["AFW_FAMILY_IPV4"]
        addr = socket.inet_pton(af, host)
        err, msg, _ = g.send(fam, e["AFW_CMD_QUEUE_SERVE"],
                             u16("AFW_A_SERVE_FIRST", int(sys.argv[3])) + attr(e["AFW_A_SERVE_TELL"], b""))
        if err:
            print("serve error %d %s" % (err, msg))
            return 0, "", []

        def read_told():
            """[(cmd, body)] of the messages told until 2 s pass without one."""
            got = []
            g.sock.settimeout(2)
            try:
                while True:
                    buf = g.sock.recv(65536)
                    off = 0
                    while off + 16 <= len(buf):
                        length, mtype = struct.unpack_from("=IH", buf, off)
                        if mtype == fam:
                            got.append((buf[off + 16], buf[off + 20:off + length]))
                        off += (length + 3) & ~3
            except socket.timeout:
                pass
            g.sock.settimeout(None)
            return got

        def flow(cport, port, *more):
            return attr(e["AFW_A_FLOW"] | 0x8000, u8("AFW_FLOW_A_FAMILY", family) +
                        u8("AFW_FLOW_A_PROTO", 6) + attr(e["AFW_FLOW_A_SRC"], addr) +
                        attr(e["AFW_FLOW_A_DST"], addr) + u16("AFW_FLOW_A_SPORT", cport) +
                        u16("AFW_FLOW_A_DPORT", port) + b"".join(more))

        def report(kind, cmd, got, ports, **kw):
            bodies = [b for c, b in got if c == e[cmd]]
            for body in bodies:
                print(kind + " " + check_told(e, body, alen, ports, **kw), flush=True)
            others = sorted({c for c, b in got if c != e[cmd]})
            if others:
                print("%s bad: other messages %s" % (kind, others), flush=True)
            return bodies

        lsock = socket.socket(af)
        lsock.bind((host, 0))
        lsock.listen()
        port = lsock.getsockname()[1]
        c = socket.socket(af)
        c.settimeout(10)
        c.connect((host, port))
        cport = c.getsockname()[1]
        s, _ = lsock.accept()
        isn = None
        for body in report("handshake", "AFW_CMD_HANDSHAKE", read_told(), {port, cport}):
            # A malformed one was reported above: no ISN from it.
            top = attrs_of(body)
            inner = attrs_of(top[0][2]) if not isinstance(top, str) and top else ""
            inner = {} if isinstance(inner, str) else {t: v for t, _, v in inner}
            pkt = inner.get(e["AFW_FLOW_A_PACKET"], b"")
            l4 = tcp_at(pkt, alen) if pkt else 0
            if len(pkt) >= l4 + 20 and pkt[l4 + 13] & 0x3f == 0x02:
                isn = struct.unpack_from("!I", pkt, l4 + 4)[0]
        if isn is None:
            print("confirmed bad: no SYN told to take the ISN from", flush=True)
        else:
            nest = (u32("AFW_CONFIRM_A_ACK", (isn + 1) & 0xffffffff) +
                    u32("AFW_CONFIRM_A_END", (isn + 6) & 0xffffffff) + u32("AFW_CONFIRM_A_IIF", 0))
            err, msg, _ = g.send(fam, e["AFW_CMD_FLOW_NEW"],
                                 flow(cport, port, u8("AFW_FLOW_A_VERDICT", e["AFW_VERDICT_ACCEPT"]),
                                      attr(e["AFW_FLOW_A_CONFIRM"] | 0x8000, nest)))
            if err:
                print("confirmed bad: install error %d %s" % (err, msg), flush=True)
            else:
                c.send(b"hello")
                # No owner again: afwd has it from the flow's first packet.
                report("confirmed", "AFW_CMD_CONFIRMED", read_told(), {port, cport}, owner=False)
        err, msg, _ = g.send(fam, e["AFW_CMD_FLOW_NEW"],
                             flow(cport ^ 1, port, u8("AFW_FLOW_A_VERDICT", e["AFW_VERDICT_ACCEPT"]),
                                  u32("AFW_FLOW_A_FLAGS", e["AFW_FLOW_F_LEARN"]),
                                  u8("AFW_FLOW_A_DIR", e["AFW_DIR_OUT"]), u32("AFW_FLOW_A_LINE", 42)))
        if err:
            print("learned bad: teaching error %d %s" % (err, msg), flush=True)
        else:
            c2 = socket.socket(af)
            c2.settimeout(10)
            c2.connect((host, port))
            s2, _ = lsock.accept()
            report("learned", "AFW_CMD_LEARNED", read_told(), {port, c2.getsockname()[1]},
                   learned=(e["AFW_VERDICT_ACCEPT"], 42))
            s2.close()
            c2.close()
        s.close()
        c.close()
        return 0, "", []

    cases["replace-busy"] = replace_busy
    cases["told"] = told
    cases["flow-flood"] = flow_flood
    cases["commit-without-begin"] = lambda: g.send(
        fam, e["AFW_CMD_RULESET_REPLACE"],
        attr(e["AFW_A_REPLACE_FLAGS"], struct.pack("=I", e["AFW_REPLACE_F_COMMIT"])))
    for case in todo:
        if case not in cases:
            sys.exit("unknown case %s; known: %s" % (case, " ".join(sorted(cases))))
    for case in todo:
        if each and case in ("replace-busy", "flow-flood", "told"):
            sys.exit("%s prints its own counts: run it alone" % case)
        err, msg, _ = cases[case]()
        if case not in ("replace-busy", "flow-flood", "told"):
            print(("%s " % case if each else "") + ("ok" if err == 0 else "error %d %s" % (err, msg)),
                  flush=True)


if __name__ == "__main__":
    main()
