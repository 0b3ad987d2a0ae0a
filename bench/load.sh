#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ruleset load benchmark: boots Debian's 6.1 kernel once, with one vCPU
# and -icount (guest time follows the instruction count), and loads 100k
# and 1M rules (AFW_BENCH_LOAD_RULES) in one transaction each: load time,
# afwctl's parse alone, memory per rule. About 3 minutes wall time. Not a
# test: the numbers go to docs/performance.md.
#
#   bench/load.sh [KERNEL_LABEL]    default 6.1
# AFW_BENCH_LOAD_PERF=1: then a perf profile of one more load (load-perf.txt).
# AFW_BENCH_AFWCTL_OLD: another afwctl binary (say, an older commit's, under
# build/) measured first in the same boot, for a before and after.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" "load-$label"
rm -f "$out/vm/load.txt" "$out/vm/load-perf.txt"
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out/vm" -c 1 -m 3072 --icount \
	-t 3600 -j "$src/bench/load-guest.sh" -e "AFW_KO=$src/build/kmod/$label/afw.ko" \
	-e "AFW_BENCH_LOAD_RULES=${AFW_BENCH_LOAD_RULES:-100000 1000000}" \
	-e "AFW_BENCH_AFWCTL_OLD=${AFW_BENCH_AFWCTL_OLD:-}" \
	-e "AFW_BENCH_LOAD_PERF=${AFW_BENCH_LOAD_PERF:-0}"
cat "$out/vm/load.txt"
[ ! -s "$out/vm/load-perf.txt" ] || cat "$out/vm/load-perf.txt"
