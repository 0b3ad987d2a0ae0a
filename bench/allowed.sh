#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "Allowed" rows of the seed's table: boots Debian's 6.1 kernel once,
# with one vCPU and -icount sleep=off (guest time follows the instruction
# count, so ratios repeat), and measures through a router namespace, for
# each setup: iperf3 TCP with 1 and 4 streams, 64-byte UDP datagrams a
# second, and ping's round trip (ping's own, and to the nanosecond by
# afwstress rtt). The setups: no firewall; afw with 10,
# 100k and 1M rules that never match and a rule that accepts the traffic
# (at a worse priority than all of them, so every table is looked up);
# nftables with the 100k rules as a set and 10k as a linear chain; no
# firewall again. Prints each figure and its ratio to the first row. Not a
# test: the numbers go to docs/performance.md.
#
#   bench/allowed.sh [KERNEL_LABEL]    default 6.1
# AFW_BENCH_SECONDS (default 3): each iperf3 run; AFW_BENCH_PINGS (default
# 200): pings a row. AFW_BENCH_PERF=1: a perf profile of one more 64-byte
# UDP run with no firewall, with afw on and no rules, and with 10 rules
# (allowed-perf-*.txt).
# AFW_BENCH_SIZES: the rule counts (default "10 100000 1000000"); when set,
# the nftables rows are left out.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" "allowed-$label"
rm -f "$out/vm/allowed.txt"
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out/vm" -c 1 -m 3072 --icount \
	-t 7200 -j "$src/bench/allowed-guest.sh" -e "AFW_KO=$src/build/kmod/$label/afw.ko" \
	-e "AFW_BENCH_PERF=${AFW_BENCH_PERF:-0}" -e "AFW_BENCH_SIZES=${AFW_BENCH_SIZES:-}" -e "AFW_BENCH_SECONDS=${AFW_BENCH_SECONDS:-3}" -e "AFW_BENCH_PINGS=${AFW_BENCH_PINGS:-200}"
cat "$out/vm/allowed.txt"
