#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's latency half (bench/seed-guest.sh), small, its first four
# setups (the rest are 99-bench-latency2's: the whole half outlasts one
# scenario's time budget beside the debug kernel): each prints its new
# connections, TLS handshakes and (where measured) Chromium page load, each
# a positive number, and the host side's table is made of them.
# No figure is judged: timing belongs to the benchmark's own boots. make
# bench's three halves are four scenarios (99-bench-seed, -latency,
# -latency2, -scale), each in its own time budget.
. "$AFW_SRC/tests/vm/lib.sh"

out=$(mktemp -d)
on_exit rm -rf "$out"

bench_half seed-latency seed-guest.sh AFW_BENCH_HALF=latency AFW_BENCH_RATE_CONNS=50 \
	AFW_BENCH_HANDSHAKES=20 AFW_BENCH_PAGES=1 AFW_BENCH_SETUPS="host allowed analyzed analyzed-port"
seed_rows latency "host allowed analyzed analyzed-port" \
	"conn_per_s conn_p50_us conn_p99_us tls_per_s tls_p50_us tls_p99_us"
seed_rows latency "host allowed analyzed" page_load_ms
# The table: the host side's assembly of the same figures.
seed_table "$out/seed-latency/seed-latency.csv" "Analyzed's ratios" \
	'^\| Analyzed: afwd `default allow`, then the kernel \| [0-9,.]+ \([0-9.]+\) \|'
