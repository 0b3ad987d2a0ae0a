#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the seed table's scaling VM (bench/seed.sh, booted with -icount
# shift=0,sleep=off, one vCPU): what a forwarded packet costs as the rules
# and the live flows grow. Under -icount a guest nanosecond is an
# instruction, so 1e9 / (64-byte UDP datagrams a second) is the packet's
# instructions, and its excess over no firewall is the firewall's.
#   rules-N      afw with N rules that never match, the stream accepted by
#                two rules worse than all of them, which install its flow:
#                the first datagram looks up every table, the rest find
#                the flow; N = 10 to 1M
#   nft-chain-N  nftables with N rules one after another, which every
#                packet walks, N = 10 to 10k (the peer that is not flat)
#   flows-N      afw with N live flows besides the stream's, N = 1k to 1M:
#                the lookup's cost, and memory per flow, all in
#   afwd-N       afwd's memory (VmRSS) idle, and at its peak (VmHWM) under
#                a flood of N new flows (N = 10k to 300k UDP datagrams, each
#                from a port of its own, at AFW_BENCH_FLOOD_PPS a second)
#                that the router queues to afwd, which reads each, allows it
#                by its `default allow`, installs it in the module and keeps
#                it among its decided flows
# Writes seed-scaling.csv to the result share, "scaling,SETUP,METRIC,VALUE"
# as bench/seed-guest.sh does.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
. "$AFW_SRC/bench/lib.sh"
exec 2> "$AFW_OUT/seed-scaling.log"
csv=$AFW_OUT/seed-scaling.csv
: > "$csv"
secs=${AFW_BENCH_SECONDS:-3}
rules=${AFW_BENCH_SCALE_RULES:-10 1000 10000 100000 1000000}
chains=${AFW_BENCH_SCALE_CHAINS:-10 100 1000 10000}
flows=${AFW_BENCH_SCALE_FLOWS:-1000 10000 100000 1000000}
floods=${AFW_BENCH_SCALE_FLOODS:-10000 100000 300000}
flood_pps=${AFW_BENCH_FLOOD_PPS:-10000}
stress=$AFW_SRC/build/tools/afwstress
work=$(mktemp -d)
chmod 755 "$work"
fw_ns=$NS_R

put() { echo "scaling,$1,$2,${3:-fail}" >> "$csv"; }
skip() { echo "scaling,$1,skipped,$2" >> "$csv"; }
udp() { put "$1" udp64_pps "$(bench_udp $NS_C $S4 "$secs")"; }

topo_routed || { skip all "the topology did not come up"; exit 1; }
iperf_server $NS_S -B $S4 || { skip all "no iperf3 server"; exit 1; }
bench_udp $NS_C $S4 "$secs" > /dev/null	# warm-up
udp host

afw_load || { skip all "afw.ko did not load"; exit 1; }
nsx $NS_R "$AFWCTL" config set unknown accept > /dev/null
bench_accept > $work/accept
for n in $rules; do
	bench_ruled "$n" "rules-$n" udp
done

# Flows: N live beside the stream's own, which the accept rules install
# (they do when the ruleset can refuse something, as the ten drop rules
# can: rules-10's path, plus the table's size). The table's bound is raised
# above N first (at the bound, a new flow evicts another instead of adding
# to the table).
rules_file 10 $work/rules
cat $work/accept >> $work/rules
nsx $NS_R "$AFWCTL" load $work/rules
for n in $flows; do
	nsx $NS_R "$AFWCTL" config set max_flows $((n + 1000)) > /dev/null
	settle
	m0=$(mem_kb)
	if out=$(nsx $NS_R "$stress" fill "$n"); then
		sleep 1		# the table's last expansion runs from a worker
		m1=$(mem_kb)
		put "flows-$n" bytes_per_flow "$(awk -v a="$m0" -v b="$m1" -v n="$n" 'BEGIN {
			split(a, x); split(b, y); for (i = 1; i <= 3; i++) t += y[i] - x[i]
			printf "%.0f\n", t * 1024 / n }')"
		udp "flows-$n"
		# The fill's and the stream's (its data and control flows).
		put "flows-$n" live_flows "$(nsx $NS_R "$AFWCTL" -j stats | jq .flows)"
	else
		skip "flows-$n" "$out"
	fi
	nsx $NS_R "$AFWCTL" flow flush
done
nsx $NS_R "$AFWCTL" rule flush

# afwd under a flood of new flows. A datagram the queue had no room for is
# dropped (fail closed) and not counted: the flows afwd read are. The
# server drops them unanswered: its port unreachables would be more
# packets for afwd to read.
nsx $NS_R "$AFWCTL" config set unknown queue queue 0-1 fail closed > /dev/null
nsx $NS_S nft -f - <<-EOF
	table inet afwflood {
		chain in { type filter hook input priority 0; udp dport 9-999 drop; }
	}
EOF
printf 'default allow\n' > $work/policy.conf
afwd_caught_up() { [ "$(afwd_stat packets)" -ge "$1" ]; }
for n in $floods; do
	if ! afwd_run; then
		skip "afwd-$n" "afwd did not start"
		continue
	fi
	sleep 1
	idle=$(proc_kb $afwd_pid VmRSS)
	if ! out=$(nsx $NS_C "$stress" newflows $S4 "$n" "$flood_pps"); then
		skip "afwd-$n" "$out"
		afwd_stop
		continue
	fi
	wait_until 30 afwd_caught_up "$n"
	read_n=$(afwd_stat packets)
	peak=$(proc_kb $afwd_pid VmHWM)
	put "afwd-$n" afwd_rss_idle_kb "$idle"
	put "afwd-$n" afwd_rss_peak_kb "$peak"
	put "afwd-$n" afwd_flows_read "$read_n"
	put "afwd-$n" afwd_bytes_per_flow "$(awk -v i="$idle" -v p="$peak" -v n="$read_n" \
		'BEGIN { if (n > 0) printf "%.0f\n", (p - i) * 1024 / n }')"
	afwd_stop
done
nsx $NS_S nft delete table inet afwflood
afw_unload

if command -v nft > /dev/null; then
	for n in $chains; do
		bench_nft_chain "$n" > $work/nft
		bench_nft "nft-chain-$n" udp
	done
else
	skip nft-chain "nft is not installed"
fi
udp host-again
cp "$work"/*.log "$AFW_OUT/" 2> /dev/null
exit 0
