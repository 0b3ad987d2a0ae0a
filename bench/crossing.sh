#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a new connection's crossing to afwd spends its time: one boot of
# Debian's 6.1 kernel (one vCPU, -icount shift=0,sleep=off: a guest
# nanosecond is an instruction), the connect benchmark's router and echo
# server, and for each row 1,000 connections with afwstress connrate, then
# 20 more under ftrace's function_graph, filtered to the system calls, the
# softirq, the netfilter, NFQUEUE and io_uring entry points and afw's
# generic netlink handlers, with absolute timestamps. Rows: no firewall;
# each connection's first data packet alone queued by iptables to the
# kernel selftest's nf-queue client, which accepts it unread (no afw: the
# least a crossing costs); a kernel rule accepting the port; afwd deciding
# at the SYN by the port (--no-learn); afwd with `default allow`, reading
# each connection's first bytes. Prints the rates, and what afwd did for
# each of its rows; the traces stay in build/bench/crossing
# (trace-floor.txt, trace-port.txt, trace-allow.txt). Not a test: about 4
# minutes of wall time. AFW_BENCH_AFWD_OPTS: more options for afwd (say,
# "--io poll", "--handshakes queued"). AFW_BENCH_PERF=1:
# after each row, 1,000 more connections under perf (every CPU, cpu-clock),
# its report by command, object and symbol to perf-NAME.txt (not timed);
# AFW_BENCH_PERF=2: with the call chains into each symbol of 1% or more.
# AFW_BENCH_PERF_FREQ (4000) and AFW_BENCH_PERF_CONNS (1000): samples a
# second of guest time, and connections profiled.
#
#   bench/crossing.sh [KERNEL_LABEL]    default 6.1
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" crossing
rm -f "$out/crossing.txt" "$out"/trace-*.txt "$out"/perf-*.txt
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out" -c 1 -m 3072 --icount \
	-t 3600 -j "$src/bench/crossing-guest.sh" -e "AFW_KO=$src/build/kmod/$label/afw.ko" \
	-e "AFW_BENCH_AFWD_OPTS=${AFW_BENCH_AFWD_OPTS:-}" -e "AFW_BENCH_PERF=${AFW_BENCH_PERF:-0}" \
	-e "AFW_BENCH_PERF_FREQ=${AFW_BENCH_PERF_FREQ:-4000}" \
	-e "AFW_BENCH_PERF_CONNS=${AFW_BENCH_PERF_CONNS:-1000}"
cat "$out/crossing.txt"
