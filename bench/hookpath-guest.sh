#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the hook path VM (bench/hookpath.sh): for each build of afw.ko and
# each traffic, writes ready.N (the kallsyms the host's gdb reads) while the
# traffic flows, and waits for done.N.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
. "$AFW_SRC/bench/lib.sh"
exec 2> "$AFW_OUT/hookpath.log"
work=$(mktemp -d)
n=0

# step WHY: ready.N with the kernel's symbols, or empty with WHY beside it
# when the traffic could not start; then wait for the host.
step() {
	if [ -z "$1" ]; then
		cat /proc/kallsyms > "$AFW_OUT/ready.$n.tmp"
	else
		echo "$1" > "$AFW_OUT/ready.$n.why"
		: > "$AFW_OUT/ready.$n.tmp"
	fi
	mv "$AFW_OUT/ready.$n.tmp" "$AFW_OUT/ready.$n"
	wait_until 900 test -e "$AFW_OUT/done.$n"
	n=$((n + 1))
}

topo_routed || exit 1
bench_hook_rules $work/rules
for ko in $AFW_BENCH_KOS; do
	loaded=
	AFW_KO=$ko afw_load && nsx $NS_R "$AFWCTL" load $work/rules && loaded=1
	for phase in $AFW_BENCH_PHASES; do
		[ -n "$loaded" ] || { step "afw.ko did not load"; continue; }
		# A server of its own each time: one whose client was killed
		# stays busy with that test for a while.
		port=$((5201 + n))
		iperf_server $NS_S -B $S4 -p $port || { step "no iperf3 server"; continue; }
		# ip netns exec execs iperf3, so $! is iperf3 itself, which
		# must be gone before the next traffic: a second flow on the
		# CPU would make every packet miss the flow the CPU found last.
		case $phase in
		udp) ip netns exec $NS_C iperf3 -c $S4 -p $port -u -l 64 -b 1M -t 900 > /dev/null & ;;
		tcp) ip netns exec $NS_C iperf3 -c $S4 -p $port -b 20M -t 900 > /dev/null & ;;
		esac
		pid=$!
		sleep 2
		if kill -0 $pid 2> /dev/null; then
			step ""
		else
			step "iperf3 did not run"
		fi
		kill $pid 2> /dev/null
		wait $pid 2> /dev/null
		sleep 1
	done
	[ -z "$loaded" ] || { nsx $NS_R "$AFWCTL" rule flush; nsx $NS_R "$AFWCTL" flow flush; }
	afw_unload
done
