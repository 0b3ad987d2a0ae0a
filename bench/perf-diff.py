#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where one row of bench/crossing.sh spends more time than another, by symbol.

  bench/perf-diff.py [-n N] [-g] DIR ROW_A ROW_B

DIR holds a run of AFW_BENCH_PERF=1 bench/crossing.sh (crossing.txt and
perf-ROW-sym.txt); ROW is host, floor, rule, port or allow. Each symbol's
share of a row's samples is weighed by the row's time a connection (from
its rate in crossing.txt): under -icount a microsecond is a thousand
instructions, so the difference is what a connection of ROW_B costs more,
symbol by symbol. Prints the N (30) largest differences, then the sums by
where the time went: afw's module, afwd, the kernel's allocations (the
zeroing of init_on_alloc among them), its switches and wake-ups, and the
rest. With -g, only the sums.
"""
import re
import sys

# The rows' names in crossing.txt, as bench/crossing-guest.sh prints them.
ROWS = {
    "host": "no firewall:",
    "floor": "the first data packet alone",
    "rule": "a kernel rule accepts the port:",
    "port": "afwd decides at the SYN by the port",
    "allow": "afwd, default allow",
}
# Where a kernel symbol's time goes, by its name.
GROUPS = [
    ("afw module", re.compile(r"^afw_")),
    ("zeroing and copying (rep stos/movs: one instruction a byte under TCG)",
     re.compile(r"^(memset_erms|memcpy_erms|clear_page_erms|copy_user_enhanced_fast_string|"
                r"copy_user_short_string|memmove)$")),
    ("allocation", re.compile(r"(slab|kmalloc|kmem_cache|kfree|alloc_skb|__alloc_pages|"
                              r"page_frag|free_unref)")),
    ("switches and wake-ups", re.compile(r"^(finish_task_switch|_raw_spin_unlock_irqrestore|"
                                         r"__schedule|schedule|try_to_wake_up|"
                                         r"native_safe_halt|__wake_up_common)")),
    ("netlink", re.compile(r"(nla_|netlink|genl|nlmsg)")),
]


def rate(text, row):
    for line in text.splitlines():
        if line.startswith(ROWS[row]):
            m = re.search(r"([\d.]+) conn/s", line)
            if m:
                return float(m.group(1))
    sys.exit("no rate for row %s in crossing.txt" % row)


def load(path, us):
    """Symbol -> (microseconds a connection, user space?)."""
    syms = {}
    for line in open(path):
        m = re.match(r"\s+([\d.]+)%\s+\[(.)\]\s+(.+?)\s*$", line)
        if m:
            t, user = syms.get(m.group(3), (0.0, m.group(2) == "."))
            syms[m.group(3)] = (t + float(m.group(1)) / 100 * us, user)
    return syms


def group(sym, user):
    if user:
        return "afwd and other programs (user space)"
    for name, pat in GROUPS:
        if pat.search(sym):
            return name
    return "the rest of the kernel"


def main():
    args = sys.argv[1:]
    n, only_sums = 30, False
    while args and args[0].startswith("-"):
        if args[0] == "-n":
            n = int(args[1])
            args = args[2:]
        elif args[0] == "-g":
            only_sums = True
            args = args[1:]
        else:
            sys.exit(__doc__)
    if len(args) != 3:
        sys.exit(__doc__)
    d, ra, rb = args
    text = open("%s/crossing.txt" % d).read()
    ta, tb = 1e6 / rate(text, ra), 1e6 / rate(text, rb)
    a = load("%s/perf-%s-sym.txt" % (d, ra), ta)
    b = load("%s/perf-%s-sym.txt" % (d, rb), tb)
    print("%s: %.1f us a connection; %s: %.1f us; difference %.1f us" % (ra, ta, rb, tb, tb - ta))
    diff = []
    for s in set(a) | set(b):
        xa, ua = a.get(s, (0.0, None))
        xb, ub = b.get(s, (0.0, None))
        diff.append((xb - xa, xa, xb, s, ua if ua is not None else ub))
    diff.sort(reverse=True)
    if not only_sums:
        print("%8s %8s %8s  symbol" % ("more", ra, rb))
        for dv, xa, xb, s, _ in diff[:n]:
            print("%8.2f %8.2f %8.2f  %s" % (dv, xa, xb, s))
    sums = {}
    for dv, _, _, s, user in diff:
        g = group(s, user)
        sums[g] = sums.get(g, 0.0) + dv
    print("by where it went (us a connection):")
    for g, v in sorted(sums.items(), key=lambda kv: -kv[1]):
        print("%8.2f  %s" % (v, g))


if __name__ == "__main__":
    main()
