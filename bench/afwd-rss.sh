#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd's memory, idle and under a flood of new flows: afwd on this host's
# own kernel (no module: it marks for iptables), behind an iptables NFQUEUE
# rule in a network namespace, as tests/host/afwd-native.sh runs it. A
# sender in the client namespace (afwstress newflows; make tools) starts N
# new UDP flows (a source port each, from destination port 9 up, 32 bytes
# each), paced so that the queue never overflows; afwd reads each, gives up on naming it (neither TLS, QUIC,
# HTTP nor DNS), allows it by the policy's default and remembers it among
# its decided flows. Prints afwd's resident memory (VmRSS) idle, at its
# peak (VmHWM) and after, and what a flow cost. Not a test: the numbers go
# to docs/performance.md.
#
#   bench/afwd-rss.sh [N...]    flows per flood (default 10000 100000 300000)
# AFW_BENCH_PPS (default 20000): the sender's rate. Needs root.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
AFW_TAP=/dev/null
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_SRC=$src
. "$src/bench/lib.sh"
pps=${AFW_BENCH_PPS:-20000}
floods=${*:-10000 100000 300000}

pair_init afwrss 10.196.0
pair_up
# afwstress newflows: 60,000 source ports to each destination port from 9.
pair_chain "-p udp --dport 9:99" "-p udp --sport 9:99"
printf 'default allow\n' > $work/policy.conf

for n in $floods; do
	: > $work/afwd.log
	ip netns exec $S "$afwd" -q 0 -p $work/policy.conf --ctl $work/afwd.sock \
		2> $work/afwd.log &
	apid=$!
	for i in $(seq 100); do
		grep -q 'afwd: ready' $work/afwd.log && break
		sleep 0.1
	done
	sleep 1
	idle=$(proc_kb $apid VmRSS)
	start=$EPOCHREALTIME
	ip netns exec $C "$src/build/tools/afwstress" newflows 10.196.0.2 "$n" "$pps" > /dev/null
	# Until afwd has read them all (or a few seconds more).
	for i in $(seq 100); do
		[ "$(afwd_stat packets)" -ge "$n" ] && break
		sleep 0.1
	done
	secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	sleep 1
	peak=$(proc_kb $apid VmHWM)
	after=$(proc_kb $apid VmRSS)
	flows=$(afwd_stat flows)
	dropped=$(ip netns exec $S awk '{ s += $6 + $7 } END { print s + 0 }' \
		/proc/net/netfilter/nfnetlink_queue)
	printf '%7d flows (%d read by afwd, %d dropped at the queue) in %.1f s: ' \
		"$n" "$flows" "$dropped" "$secs"
	printf 'RSS idle %d kB, peak %d kB, after %d kB; %d bytes a flow at the peak\n' \
		"$idle" "$peak" "$after" $(( (peak - idle) * 1024 / (flows > 0 ? flows : 1) ))
	kill $apid
	wait $apid 2> /dev/null || true
	apid=
	ip netns exec $S conntrack -F > /dev/null 2>&1 || true
done
