#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks, small: every guest half of bench/ (allowed, afwd's bulk,
# pair and connect modes with the connection rate, the ruleset load) runs
# here with tiny sizes, and every row it prints must carry its figures, each
# a positive number. No figure is judged: timing belongs to the benchmarks'
# own boots (-icount, one vCPU). This keeps them runnable: a setup that no
# longer comes up, a tool that moved or an output that changed shape fails
# here, in CI, rather than on the day someone measures.
. "$AFW_SRC/tests/vm/lib.sh"

out=$(mktemp -d)
on_exit rm -rf "$out"

# line FILE NAME: the first line of FILE that holds NAME.
line() { grep -F -m1 -- "$2" "$1"; }
# row FILE NAME REGEX: that line matches REGEX (which names its numbers),
# and none of its numbers is zero: a throughput, a rate, a time or a ratio
# of 0 is a measurement that did not happen (and a row with no number at
# all, a missing row, fails too).
row() {
	local l
	l=$(line "$1" "$2")
	check_grep "bench row '$2' has its figures" "$3" "$l"
	check "bench row '$2': no figure is zero" awk -v l="$l" 'BEGIN {
		n = split(l, w, /[ (),:|\/]+/)
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^[0-9.]+$/) {
				if (w[i] + 0 == 0) exit 1
				seen++
			}
		exit !seen }'
}

num='[0-9]+(\.[0-9]+)?'

bench_half allowed allowed-guest.sh AFW_BENCH_SIZES=10 AFW_BENCH_SECONDS=1 AFW_BENCH_PINGS=10
f=$out/allowed/allowed.txt
for setup in "no firewall:" "afw, configured, off:" "afw, on, no rules:" \
	"afw, 10 rules, accept rule:" "no firewall, again:"; do
	row "$f" "$setup" "tcp1 +$num Gbit/s \($num\) +tcp4 +$num \($num\) +udp64 +$num pkt/s \($num\) +ping $num/$num/$num ms \(avg $num\)"
done

bench_half bulk afwd-guest.sh AFW_BENCH_MODE=bulk AFW_BENCH_BYTES=2000000 AFW_BENCH_REPEAT=1 \
	AFW_BENCH_SECONDS=1 AFW_BENCH_TRANSFER=default
f=$out/bulk/afwd-bulk.txt
row "$f" "no firewall, TLS:" "median $num Mbit/s\$"
row "$f" "no firewall, iperf3:" "$num Mbit/s\$"
row "$f" "analyzed, TLS:" "median $num Mbit/s\$"
row "$f" "analyzed, iperf3:" "$num Mbit/s +ratio $num\$"
row "$f" "transfer (inspect), afwd's defaults:" "median $num Mbit/s\$"
row "$f" "  iperf3, inspected:" "$num Mbit/s +ratio $num\$"
# (Polls and waits may well be 0 here: no zero check.)
check_grep "bench row 'afwd over iperf3' has its counts" \
	"afwd over iperf3: [1-9][0-9]* packets, [1-9][0-9]* syscalls.* $num syscalls/packet" \
	"$(line "$f" "afwd over iperf3:")"
row "$f" "no firewall, TLS, again:" "$num Mbit/s"

bench_half pair afwd-guest.sh AFW_BENCH_MODE=pair AFW_BENCH_SECONDS=1 AFW_BENCH_TRANSFER=default
f=$out/pair/afwd-pair.txt
row "$f" "pair, no firewall, iperf3" "$num Mbit/s\$"
row "$f" "pair, iperf3 inspected, afwd's defaults:" "$num Mbit/s +ratio $num\$"
row "$f" "pair, no firewall again:" "$num Mbit/s +ratio $num\$"

bench_half connect afwd-guest.sh AFW_BENCH_MODE=connect AFW_BENCH_CONNECTS=5 AFW_BENCH_RATE_CONNS=50 \
	AFW_BENCH_TW_WAIT=1
f=$out/connect/afwd-connect.txt
row "$f" "no firewall:" "5 connections +connect median +$num"
row "$f" "afw + afwd (analyzed):" "5 connections +connect median +$num"
# The rate's rows come after its heading; the TLS rows share two names.
sed -n '/^connection rate/,$p' "$f" > "$out/rate.txt"
for setup in "no firewall:" "no firewall, an HTTP request:" "afw, a kernel rule accepts the port:" \
	"afw + afwd, decided at the SYN (port):" "afw + afwd, the same, --no-learn:" \
	"afw + afwd, decided by the HTTP Host:" \
	"afw on the client, owners recorded:" "afw on the client, owners not recorded:" \
	"afw on the client, owners recorded again:" \
	"afw on the client, a kernel rule on the program:" \
	"afw on the client, a kernel rule on the cgroup:" "afw + afwd on the client (port):" \
	"afw + afwd on the client (exe):" "no firewall, again:"; do
	row "$out/rate.txt" "$setup" \
		"50/50 +$num conn/s +p50 +$num us +p99 +$num us +\| rate $num, p50 ${num}x, p99 ${num}x"
done
# The rules on the program and on the cgroup passed every connection's
# packets: they matched, rather than something else letting them out.
for what in program cgroup; do
	check_grep "bench connect: the rule on the $what passed the connections" \
		'^  by that rule: [1-9][0-9]* packets$' \
		"$(grep -A1 -F "a kernel rule on the $what:" "$out/rate.txt" | tail -n 1)"
done
# What crossed afwd, a connection: a port rule decides at the SYN, and the
# module keeps that decision, so after the first connection (in the 100
# not counted) none goes to afwd, which is told of each after; with
# --no-learn, the SYN alone goes to afwd; a Host rule needs the handshake
# and the request.
syn=$(grep -A1 -F 'afw + afwd, decided at the SYN (port):' "$out/rate.txt" | tail -n 1)
check_grep "bench connect: a connection a port rule decides does not cross afwd" \
	'^  afwd, a connection: 0\.00 packets, [0-9.]+ batches, [0-9.]+ syscalls' "$syn"
check_grep "bench connect: the module decided all but the first, and told afwd of each" \
	'^  the module decided 149 connections by the decision afwd taught it; afwd was told of 149$' \
	"$(grep -A2 -F 'afw + afwd, decided at the SYN (port):' "$out/rate.txt" | tail -n 1)"
check_grep "bench connect: on the client too" \
	'^  the module decided 149 connections by the decision afwd taught it; afwd was told of 149$' \
	"$(grep -A2 -F 'afw + afwd on the client (port):' "$out/rate.txt" | tail -n 1)"
nolearn=$(grep -A1 -F 'afw + afwd, the same, --no-learn:' "$out/rate.txt" | tail -n 1)
check_grep "bench connect: with --no-learn it crosses afwd once" \
	'^  afwd, a connection: 1\.[0-4][0-9] packets, [0-9.]+ batches, [0-9.]+ syscalls' "$nolearn"
exe=$(grep -A1 -F 'afw + afwd on the client (exe):' "$out/rate.txt" | tail -n 1)
check_grep "bench connect: one its program decides crosses afwd once too" \
	'^  afwd, a connection: 1\.[0-4][0-9] packets, [0-9.]+ batches, [0-9.]+ syscalls' "$exe"
# Two rows record owners, 100 + 50 connections each; the row between none.
check_grep "bench connect: the client's afw recorded an owner for each connection of its rows" \
	"the client's afw recorded 300 owners, lost 0" "$(cat "$f")"
host=$(grep -A1 -F 'afw + afwd, decided by the HTTP Host:' "$out/rate.txt" | tail -n 1)
# Its handshake is told (docs/afwd.md, "Told handshakes"): the request
# crosses, and at times the server's answer, when it comes before afwd
# read the server's acknowledgement.
check_grep "bench connect: one its Host decides crosses it at its request, not its handshake" \
	'^  afwd, a connection: (1\.[0-9]+|2\.0+) packets, [0-9.]+ batches, [0-9.]+ syscalls' "$host"
# 100 connections warm the path first, then the 50 measured.
check_grep "bench connect: afwd decided each HTTP connection by its Host" \
	"afwd decided 150 flows by name" "$(cat "$f")"

# Memory per rule is a difference of two readings: at this size it may
# come out negative.
bench_half load load-guest.sh AFW_BENCH_LOAD_RULES=10000
check_grep "bench load: 10000 rules load, with the parse's time and memory per rule" \
	"^10000 rules, .*: load [1-9][0-9]* ms \(parse alone [0-9]+ ms\), -?[0-9]+ bytes/rule" \
	"$(cat "$out/load/load.txt")"

