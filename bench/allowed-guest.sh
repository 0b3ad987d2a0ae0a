#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the "Allowed" benchmark VM (bench/allowed.sh). Writes allowed.txt
# to the result share: one line a setup, each figure with its ratio to the
# first setup's (no firewall).
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
. "$AFW_SRC/bench/lib.sh"
exec 2> "$AFW_OUT/allowed.log"
res=$AFW_OUT/allowed.txt
: > "$res"
secs=${AFW_BENCH_SECONDS:-3}
pings=${AFW_BENCH_PINGS:-200}
work=$(mktemp -d)

topo_routed || { echo "bench: the topology did not come up" >> "$res"; exit 1; }
iperf_server $NS_S -B $S4

# The figures of one setup, as "tcp1 tcp4 udp_pps ping_min ping_avg ping_max".
tcp() { bench_tcp $NS_C $S4 "$1" "$secs"; }
udp() { bench_udp $NS_C $S4 "$secs"; }
rtt() { bench_rtt $NS_C $S4 "$pings"; }
# ping's average to the nanosecond (afwstress rtt, timed as ping times
# them): ping prints three decimals of a millisecond, too few for a ratio
# of round trips near 17 us.
rtt_ns() {
	nsx $NS_C "$AFW_SRC/build/tools/afwstress" rtt $S4 "$pings" 2 |
		awk '/^rtt:/ { print $7; ok = 1 } END { if (!ok) print 0 }'
}
measure() { echo "$(tcp 1) $(tcp 4) $(udp) $(rtt) $(rtt_ns)"; }
# profile NAME: with AFW_BENCH_PERF=1, one more 64-byte UDP run under perf
# (every CPU, cpu-clock: under -icount a sample is a span of instructions),
# its report by symbol to allowed-perf-NAME.txt. Not timed.
profile() {
	[ "${AFW_BENCH_PERF:-0}" = 1 ] && command -v perf > /dev/null || return 0
	perf record -q -a -g -o $work/perf.data -- ip netns exec $NS_C \
		iperf3 -c $S4 -u -l 64 -b 0 -t "$secs" > /dev/null 2>&1
	perf report -i $work/perf.data --stdio --no-children --sort sym -g none 2> /dev/null |
		grep -E '^ +[0-9]' | head -80 > "$AFW_OUT/allowed-perf-$1.txt"
	perf report -i $work/perf.data --stdio --children --sort sym -g none 2> /dev/null |
		grep -E '^ +[0-9]' | head -80 > "$AFW_OUT/allowed-perf-$1-children.txt"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }
# row NAME FIGURES: the line of a setup, against the first row's figures.
row() {
	local f=($2) b=($base)
	printf '%-34s tcp1 %6.3f Gbit/s (%s)  tcp4 %6.3f (%s)  udp64 %8.0f pkt/s (%s)  ping %s/%s/%s ms (avg %s)  rtt %.2f us (%s)\n' \
		"$1:" "${f[0]}" "$(ratio "${f[0]}" "${b[0]}")" "${f[1]}" "$(ratio "${f[1]}" "${b[1]}")" \
		"${f[2]}" "$(ratio "${f[2]}" "${b[2]}")" "${f[3]}" "${f[4]}" "${f[5]}" \
		"$(ratio "${f[4]}" "${b[4]}")" "${f[6]}" "$(ratio "${f[6]}" "${b[6]}")" >> "$res"
}

tcp 1 > /dev/null	# warm-up
base=$(measure)
row "no firewall" "$base"
profile none

afw_load || { echo "bench: afw.ko did not load (allowed.log)" >> "$res"; exit 1; }
# What the hooks cost before any rule: configured and switched off (the
# hook's first test returns), then on with nothing to judge (counted
# only). Both have the defragmenter's hooks too.
nsx $NS_R "$AFWCTL" config set unknown accept > /dev/null &&
	nsx $NS_R "$AFWCTL" disable > /dev/null &&
	row "afw, configured, off" "$(measure)"
nsx $NS_R "$AFWCTL" enable --yes > /dev/null && row "afw, on, no rules" "$(measure)"
profile afw0
# Accepted by a rule worse than every other: each table is looked up for
# the packets no flow carries yet.
bench_accept > $work/accept
for n in ${AFW_BENCH_SIZES:-10 100000 1000000}; do
	rules_file "$n" $work/rules
	cat $work/accept >> $work/rules
	nsx $NS_R "$AFWCTL" load $work/rules || { echo "bench: $n rules refused" >> "$res"; exit 1; }
	row "afw, $n rules, accept rule" "$(measure)"
	[ "$n" = 10 ] && profile afw10
	nsx $NS_R "$AFWCTL" -j stats >&2
	nsx $NS_R "$AFWCTL" rule flush
	nsx $NS_R "$AFWCTL" flow flush
done
afw_unload

# nft_row WHAT: the ruleset in $work/nft loaded on the router, measured as
# "nftables, WHAT", then taken away.
nft_row() {
	if nsx $NS_R nft -f $work/nft; then
		row "nftables, $1" "$(measure)"
		nsx $NS_R nft delete table inet afwbench
	else
		echo "nftables: $1 refused" >> "$res"
	fi
}

if [ -z "${AFW_BENCH_SIZES:-}" ] && command -v nft > /dev/null; then
	bench_nft_set > $work/nft
	nft_row "100k rules in a set"
	bench_nft_chain > $work/nft
	nft_row "10k rules in a chain"
fi
row "no firewall, again" "$(measure)"
