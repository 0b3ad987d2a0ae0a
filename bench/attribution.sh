#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who started a flow, for short-lived processes: afw against OpenSnitch
# (Debian's opensnitch package, its /proc method), in one boot of Debian's
# 6.1 kernel with two vCPUs. The same workload runs under each: 50
# processes at once, copies of bash at five paths, each sending 20 UDP
# datagrams from new sockets to ports of its own and exiting at once (1,000
# connections), three times: each socket closed right after its datagram
# (close), each held until the process exits (hold), and a control where
# the processes stay 30 s more (linger). Each firewall's program for each
# connection is compared with what the launcher knows;
# bench/attribution-guest.sh does the work.
# Prints the table: connections, attributed to the right program, to a
# wrong one, to none, and not seen at all. Not a test: the numbers go to
# docs/performance.md.
#
#   bench/attribution.sh [KERNEL_LABEL]    default 6.1
# AFW_BENCH_PROCS (default 50), AFW_BENCH_SENDS (default 20) and
# AFW_BENCH_PROGS (default 5): processes, datagrams per process, programs.
# Needs opensnitch installed on the host (scripts/install-deps --bench):
# the guest runs the host's programs.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" "attribution-$label"
rm -f "$out/attribution.txt"
# Accuracy, not time, is measured: no -icount, and idle time passes as it
# does on the host, as OpenSnitch's waits expect.
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out" -c 2 -m 2048 -t 1800 \
	-j "$src/bench/attribution-guest.sh" -e "AFW_KO=$src/build/kmod/$label/afw.ko" \
	-e "AFW_BENCH_PROCS=${AFW_BENCH_PROCS:-50}" -e "AFW_BENCH_SENDS=${AFW_BENCH_SENDS:-20}" \
	-e "AFW_BENCH_PROGS=${AFW_BENCH_PROGS:-5}" ||
	{ echo "bench: the boot failed; see $out" >&2; exit 1; }
echo "== attribution ($(cat "$out/wall_s" 2> /dev/null || echo ?) s wall)"
cat "$out/attribution.txt"
