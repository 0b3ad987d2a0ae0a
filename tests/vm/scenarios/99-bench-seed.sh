#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's throughput half (bench/seed-guest.sh), small: every setup
# (Host, Allowed, Analyzed, Transfer, nftables, the kernel's nf-queue
# client, OpenSnitch where installed)
# prints every figure of its half, each a positive number, and the host
# side's table is made of them. The nf-queue client is built by make tools
# where Debian's kernel source is, as it is for the suite.
# No figure is judged: timing belongs to the benchmark's own boots. make
# bench's three halves are three scenarios (99-bench-seed, -latency,
# -scale), each in its own time budget.
. "$AFW_SRC/tests/vm/lib.sh"

out=$(mktemp -d)
on_exit rm -rf "$out"

nfq=$AFW_SRC/build/tools/nf-queue
check "make tools built the kernel's nf-queue client" test -x "$nfq"
bench_half seed-throughput seed-guest.sh AFW_BENCH_HALF=throughput AFW_BENCH_SIZES=10 \
	AFW_BENCH_SECONDS=1 AFW_BENCH_PINGS=10 AFW_BENCH_NFQUEUE="$nfq"
seed_rows throughput "host allowed-10 analyzed transfer nft-set nft-chain nfqueue opensnitch host-again" \
	"tcp1_gbps tcp4_gbps udp64_pps cpu_busy_pct ping_min_ms ping_avg_ms ping_max_ms"
# The table: the host side's assembly of the same figures.
seed_table "$out/seed-throughput/seed-throughput.csv" "Transfer's ratios" \
	'^\| Transfer: afwd `default inspect` \| [0-9.]+ \([0-9.]+\) \|'
