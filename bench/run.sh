#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data-path benchmark: boots Debian's 6.1 kernel once, with one vCPU and
# -icount (guest time follows the instruction count, so ratios repeat), and
# measures in that one boot:
#   iperf3 through a router namespace with no firewall, with afw and 10
#   rules (the stream's flow in the cache), 100k rules, 1M rules, and an
#   nftables ruleset of the same meaning; plus memory per rule and per flow.
# Prints ratios against the no-firewall baseline. Not a test: it passes no
# judgement, the numbers go to docs/performance.md.
#
#   bench/run.sh [KERNEL_LABEL]    default 6.1
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" "$label"
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out/vm" -c 1 -m 3072 --icount \
	-t 14400 -j "$src/bench/guest.sh" -e "AFW_KO=$src/build/kmod/$label/afw.ko" \
	-e "AFW_BENCH_SECONDS=${AFW_BENCH_SECONDS:-10}"
cat "$out/vm/bench.txt"
