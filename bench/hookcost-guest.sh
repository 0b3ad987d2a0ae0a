#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the hook cost VM (bench/hookcost.sh). Writes hookcost.txt to the
# result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
. "$AFW_SRC/bench/lib.sh"
exec 2> "$AFW_OUT/hookcost.log"
res=$AFW_OUT/hookcost.txt
: > "$res"
work=$(mktemp -d)
T=/sys/kernel/tracing

topo_routed || { echo "bench: the topology did not come up" >> "$res"; exit 1; }
iperf_server $NS_S -B $S4
mountpoint -q $T || mount -t tracefs none $T

# measure NAME: datagrams a second (two runs), ping's average, afwstress rtt's.
measure() {
	echo "$1: udp64 $(bench_udp $NS_C $S4 3) $(bench_udp $NS_C $S4 3) pkt/s;" \
		"ping avg $(bench_rtt $NS_C $S4 300 | awk '{ print $2 }') ms;" \
		"$(nsx $NS_C "$AFW_SRC/build/tools/afwstress" rtt $S4 300 2)" >> "$res"
}
# traced FUNCTION: its median time a call over one second of 64-byte UDP, in ns.
traced() {
	echo function_graph > $T/current_tracer
	echo "$1" > $T/set_ftrace_filter
	echo 1 > $T/tracing_on
	nsx $NS_C iperf3 -c $S4 -u -l 64 -b 0 -t 1 > /dev/null
	echo 0 > $T/tracing_on
	grep -o '[0-9.]* us' $T/trace | awk '{ print $1 * 1000 }' | sort -n |
		awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : 0 }'
	echo > $T/trace
	echo nop > $T/current_tracer
}

bench_tcp $NS_C $S4 1 2 > /dev/null	# warm-up
measure "no firewall"
bench_hook_rules $work/rules
for ko in $AFW_BENCH_KOS; do
	AFW_KO=$ko afw_load || { echo "$ko: did not load" >> "$res"; continue; }
	nsx $NS_R "$AFWCTL" load $work/rules
	measure "$ko"
	echo "  afw_hook: $(traced afw_hook) ns a packet under ftrace" >> "$res"
	nsx $NS_R "$AFWCTL" rule flush
	nsx $NS_R "$AFWCTL" flow flush
	afw_unload
done
measure "no firewall, again"
