#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's latency half (bench/seed-guest.sh), small: every setup
# (Host, Allowed, Analyzed, by the port, Transfer, OpenSnitch where
# installed, Host again) prints its new connections and TLS handshakes,
# each a positive number, Analyzed its Chromium page load too (one setup
# only: each load starts a browser, which takes most of a minute under the
# emulator without -icount), and the host side's table is made of them.
# No figure is judged: timing belongs to the benchmark's own boots. make
# bench's three halves are three scenarios (99-bench-seed, -latency,
# -scale), each in its own time budget.
. "$AFW_SRC/tests/vm/lib.sh"

out=$(mktemp -d)
on_exit rm -rf "$out"

setups="host allowed analyzed analyzed-port transfer opensnitch host-again"
bench_half seed-latency seed-guest.sh AFW_BENCH_HALF=latency AFW_BENCH_RATE_CONNS=20 \
	AFW_BENCH_HANDSHAKES=10 AFW_BENCH_WARM=10 AFW_BENCH_PAGES=1 AFW_BENCH_RESOURCES=3 \
	AFW_BENCH_PAGE_SETUPS=analyzed
seed_rows latency "$setups" "conn_per_s conn_p50_us conn_p99_us tls_per_s tls_p50_us tls_p99_us"
seed_rows latency analyzed page_load_ms
# The table: the host side's assembly of the same figures.
seed_table "$out/seed-latency/seed-latency.csv" "Analyzed's figures" \
	'^\| Analyzed: afwd `default allow`, then the kernel \| [0-9,.]+ \([0-9.]+\) \|.* \| [0-9,.]+ \|$'
