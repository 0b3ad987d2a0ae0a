#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's three halves (bench/seed-guest.sh throughput and latency,
# bench/scaling-guest.sh), small: every row prints every figure, each a
# positive number, and the host side's table is made of them. No figure is
# judged: timing belongs to the benchmark's own boots. Apart from
# 99-bench-smoke, whose guest halves fill its time budget.
. "$AFW_SRC/tests/vm/lib.sh"

out=$(mktemp -d)
on_exit rm -rf "$out"

# The seed table (make bench), both halves, small: every setup writes every
# figure of its half, each a positive number. A peer that is not installed
# may be skipped (OpenSnitch is not among the test packages: its service
# would filter the machine it is installed on), but then only with that
# reason; the kernel's nf-queue client is built by make tools where
# Debian's kernel source is, as it is for the suite.
# seed_rows HALF SETUPS METRICS: each SETUP of HALF has each METRIC, > 0.
seed_rows() {
	local f=$out/seed-$1/seed-$1.csv s m v
	for s in $2; do
		if [ "$s" = opensnitch ] && ! command -v opensnitchd > /dev/null; then
			check_grep "bench seed $1: opensnitch skipped, as not installed" \
				"^$1,opensnitch,skipped,opensnitchd is not installed" "$(cat "$f")"
			continue
		fi
		for m in $3; do
			v=$(awk -F, -v s="$s" -v m="$m" '$2 == s && $3 == m { print $4 }' "$f")
			check "bench seed $1: $s has $m ($v)" awk -v v="$v" \
				'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 > 0) }'
		done
	done
	check "bench seed $1: no setup skipped but a peer not installed" \
		sh -c "! grep ',skipped,' '$f' | grep -v '^$1,opensnitch,skipped,opensnitchd is not installed'"
}
nfq=$AFW_SRC/build/tools/nf-queue
check "make tools built the kernel's nf-queue client" test -x "$nfq"
bench_half seed-throughput seed-guest.sh AFW_BENCH_HALF=throughput AFW_BENCH_SIZES=10 \
	AFW_BENCH_SECONDS=1 AFW_BENCH_PINGS=10 AFW_BENCH_NFQUEUE="$nfq"
seed_rows throughput "host allowed-10 analyzed transfer nft-set nft-chain nfqueue opensnitch host-again" \
	"tcp1_gbps tcp4_gbps udp64_pps cpu_busy_pct ping_min_ms ping_avg_ms ping_max_ms"
bench_half seed-latency seed-guest.sh AFW_BENCH_HALF=latency AFW_BENCH_RATE_CONNS=50 \
	AFW_BENCH_HANDSHAKES=20 AFW_BENCH_PAGES=1
seed_rows latency "host allowed analyzed analyzed-port transfer opensnitch host-again" \
	"conn_per_s conn_p50_us conn_p99_us tls_per_s tls_p50_us tls_p99_us"
seed_rows latency "host allowed analyzed transfer opensnitch host-again" page_load_ms
# The table itself: the host side's assembly of the same figures.
mkdir -p "$out/seed"
cat "$out"/seed-*/seed-*.csv > "$out/seed/raw.csv"
check "bench seed: the table is made of the figures" \
	python3 "$AFW_SRC/bench/seed-table.py" "$out/seed/raw.csv" "$out/seed" smoke 6.1
check_grep "bench seed: the table has Transfer's ratios" \
	'^\| Transfer: afwd `default inspect` \| [0-9.]+ \([0-9.]+\) \|' "$(cat "$out/seed/seed.md")"

# The scaling half (make bench's third boot), small: 64-byte UDP with rules,
# live flows and an nftables chain, and memory per flow, each a positive
# number; the fill installed every flow it was asked for, and they were live
# while the datagrams crossed.
bench_half seed-scaling scaling-guest.sh AFW_BENCH_SECONDS=1 AFW_BENCH_SCALE_RULES="10 1000" \
	AFW_BENCH_SCALE_FLOWS="5000 20000" AFW_BENCH_SCALE_CHAINS="10 100"
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
check "bench seed scaling: no setup skipped" sh -c "! grep -q ',skipped,' '$f'"
cat "$f" >> "$out/seed/raw.csv"
check "bench seed: the table is made with the scaling half" \
	python3 "$AFW_SRC/bench/seed-table.py" "$out/seed/raw.csv" "$out/seed" smoke 6.1
check_grep "bench seed: the scaling table has the flows' memory" \
	'^\| flows-20000 \| [0-9,.]+ \| [0-9.]+ \| -?[0-9]+ \| [0-9]+ \|$' "$(cat "$out/seed/seed.md")"
