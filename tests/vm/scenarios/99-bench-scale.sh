#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's scaling half (bench/scaling-guest.sh), small: 64-byte UDP
# with rules, live flows and an nftables chain, and memory per flow, each a
# positive number; afwd's memory under a flood of new flows.
# No figure is judged: timing belongs to the benchmark's own boots. make
# bench's three halves are three scenarios (99-bench-seed, -latency,
# -scale), each in its own time budget.
. "$AFW_SRC/tests/vm/lib.sh"

out=$(mktemp -d)
on_exit rm -rf "$out"

# The scaling half (make bench's third boot), small: 64-byte UDP with rules,
# live flows and an nftables chain, and memory per flow, each a positive
# number; the fill installed every flow it was asked for, and they were live
# while the datagrams crossed.
bench_half seed-scaling scaling-guest.sh AFW_BENCH_SECONDS=1 AFW_BENCH_SCALE_RULES="10 1000" \
	AFW_BENCH_SCALE_FLOWS="5000 20000" AFW_BENCH_SCALE_CHAINS="10 100" \
	AFW_BENCH_SCALE_FLOODS=2000 AFW_BENCH_FLOOD_PPS=2000
f=$out/seed-scaling/seed-scaling.csv
for s in host rules-10 rules-1000 flows-5000 flows-20000 nft-chain-10 nft-chain-100 host-again; do
	v=$(awk -F, -v s="$s" '$2 == s && $3 == "udp64_pps" { print $4 }' "$f")
	check "bench seed scaling: $s has udp64_pps ($v)" awk -v v="$v" \
		'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 > 0) }'
done
# (Thousands of flows: fewer would leave less than settle's 256 kB of
# noise between the two readings.)
for n in 5000 20000; do
	v=$(awk -F, -v s="flows-$n" '$2 == s && $3 == "bytes_per_flow" { print $4 }' "$f")
	check "bench seed scaling: flows-$n has bytes_per_flow ($v)" awk -v v="$v" \
		'BEGIN { exit !(v ~ /^[0-9]+$/ && v + 0 > 0) }'
	# The fill's, and the stream's beside them (its datagrams' flow at
	# least: what the measured packets found).
	v=$(awk -F, -v s="flows-$n" '$2 == s && $3 == "live_flows" { print $4 }' "$f")
	check "bench seed scaling: the $n flows were live beside the stream's ($v)" \
		awk -v v="$v" -v n="$n" 'BEGIN { exit !(v + 0 > n && v + 0 <= n + 4) }'
done
# The flood: afwd read every datagram (the queue holds more than 2,000, so
# none was dropped, and the server answers none), and its memory is
# numbers: idle and peak in kB, growth a flow at least 0.
v=$(awk -F, '$2 == "afwd-2000" && $3 == "afwd_flows_read" { print $4 }' "$f")
check_eq "bench seed scaling: afwd read the flood's 2000 new flows" 2000 "$v"
for m in afwd_rss_idle_kb afwd_rss_peak_kb afwd_bytes_per_flow; do
	v=$(awk -F, -v m="$m" '$2 == "afwd-2000" && $3 == m { print $4 }' "$f")
	check "bench seed scaling: afwd-2000 has $m ($v)" awk -v v="$v" -v m="$m" \
		'BEGIN { exit !(v ~ /^[0-9]+$/ && (v + 0 > 0 || m == "afwd_bytes_per_flow")) }'
done
check "bench seed scaling: no setup skipped" sh -c "! grep -q ',skipped,' '$f'"
# The table: the host side's assembly of the same figures.
seed_table "$f" "the flows' memory" \
	'^\| flows-20000 \| [0-9,.]+ \| [0-9.]+ \| -?[0-9]+ \| [0-9]+ \|$'
check_grep "bench seed: the table has afwd's memory under the flood" \
	'^\| 2,000 \| 2,000 \| [0-9.]+ MB \| [0-9.]+ MB \| [0-9,]+ \|$' "$(cat "$out/seed/seed.md")"
