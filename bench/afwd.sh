#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The afwd benchmark: two boots of Debian's 6.1 kernel, one vCPU each, with
# the baseline and afw+afwd measured in the same boot:
#   bulk     -icount with sleep=off, so ratios repeat: TLS downloads (and
#            iperf3) with no firewall, with every new flow decided by afwd
#            then left to the kernel (analyzed), and with every packet
#            through afwd (transfer, "inspect": the TLS downloads, then
#            iperf3, the fastest path), with afwd's system calls per queued
#            packet over each;
#   connect  -icount with idle time passing in real time, which connects and
#            handshakes wait on: TLS connect and handshake times of new
#            connections, with and without afw+afwd.
# Prints the ratios. Not a test: the numbers go to docs/performance.md.
#
#   bench/afwd.sh [KERNEL_LABEL]    default 6.1
# AFW_BENCH_BYTES (default 160 MB): bytes per TLS download, each measured
# AFW_BENCH_REPEAT (default 3) times; AFW_BENCH_SECONDS (default 3): iperf3;
# AFW_BENCH_CONNECTS (default 50): connections per connect measurement;
# AFW_BENCH_TRANSFER (default "whole poll:0 default"): the transfer's afwd
# settings, IO:GATHER for --io and --gather, "default" for neither, "whole"
# for --head-queue off;
# AFW_BENCH_MODES (default "bulk pair connect"): the boots to make.
# AFW_BENCH_ROUNDS=1: in the pair boot, one more iperf3 run under each
# transfer setting, traced: what afwd's rounds are made of (bench/rounds.py;
# afwd-pair-rounds-*.txt).
# AFW_BENCH_CLIENT_SYSCTL: "KEY=VALUE ..." set in the pair mode's client
# namespace before its first run, for experiments on the sender's TCP (say,
# net.ipv4.tcp_pacing_ca_ratio, which sizes its small-queue budget).
# AFW_BENCH_PERF=1: in the pair boot, a perf profile of one more iperf3 run
# with no firewall and with each transfer setting (afwd-pair-perf-*.txt);
# in the connect boot, of one more run of each connection rate
# (afwd-rate-perf-*.txt).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" "afwd-$label"
failed=0
for mode in ${AFW_BENCH_MODES:-bulk pair connect}; do
	# A failed boot must not leave an older run's figures to be printed.
	rm -f "$out/$mode/afwd-$mode.txt" "$out/$mode"/afwd-*-perf-*.txt "$out/$mode"/afwd-*-rounds-*
	clock=--icount
	[ "$mode" = connect ] && clock=--icount-idle
	"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out/$mode" \
		-c 1 -m 3072 "$clock" -t 3600 -j "$src/bench/afwd-guest.sh" \
		-e "AFW_KO=$src/build/kmod/$label/afw.ko" -e "AFW_BENCH_MODE=$mode" \
		-e "AFW_BENCH_SECONDS=${AFW_BENCH_SECONDS:-3}" \
		-e "AFW_BENCH_BYTES=${AFW_BENCH_BYTES:-160000000}" \
		-e "AFW_BENCH_REPEAT=${AFW_BENCH_REPEAT:-3}" \
		-e "AFW_BENCH_CONNECTS=${AFW_BENCH_CONNECTS:-50}" \
		-e "AFW_BENCH_TRANSFER=${AFW_BENCH_TRANSFER:-whole poll:0 default}" \
		-e "AFW_BENCH_WRAP=${AFW_BENCH_WRAP:-}" -e "AFW_BENCH_PERF=${AFW_BENCH_PERF:-0}" \
		-e "AFW_BENCH_CLIENT_SYSCTL=${AFW_BENCH_CLIENT_SYSCTL:-}" \
		-e "AFW_BENCH_ROUNDS=${AFW_BENCH_ROUNDS:-0}" ||
		{ echo "bench: the $mode boot failed; see $out/$mode" >&2; failed=1; }
	echo "== $mode ($(cat "$out/$mode/wall_s" 2> /dev/null || echo ?) s wall)"
	cat "$out/$mode/afwd-$mode.txt" 2> /dev/null || true
	for f in "$out/$mode"/afwd-*-perf-*.txt; do
		[ -s "$f" ] || continue
		echo "== perf: ${f##*/}"
		head -25 "$f"
	done
done
exit "$failed"
