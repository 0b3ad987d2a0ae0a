#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd's memory, idle and under a flood of new flows: afwd on this host's
# own kernel (no module: it marks for iptables), behind an iptables NFQUEUE
# rule in a network namespace, as tests/host/afwd-native.sh runs it. A
# sender in the client namespace starts N new UDP flows (distinct source
# ports and addresses, 32 bytes each, to port 9), paced so that the queue
# never overflows; afwd reads each, gives up on naming it (neither TLS, QUIC,
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
pps=${AFW_BENCH_PPS:-20000}
floods=${*:-10000 100000 300000}

pair_init afwrss 10.196.0
pair_up
# Source addresses beyond the client's own: 60,000 ports each.
for i in $(seq 10 19); do
	ip -n $C addr add 10.196.0.$i/24 dev veth0
done
pair_chain "-p udp --dport 9" "-p udp --sport 9"
printf 'default allow\n' > $work/policy.conf

status() { awk -v k="$1:" '$1 == k { print $2 }' /proc/$apid/status; }
stat() { "$afwd" --stats --ctl $work/afwd.sock | jq "[.queues[].$1] | add"; }

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
	idle=$(status VmRSS)
	start=$EPOCHREALTIME
	ip netns exec $C python3 - "$n" "$pps" << 'PY'
import socket, struct, sys, time
n, pps = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
payload = b"afw rss bench, not a protocol!!!"
t0 = time.monotonic()
for i in range(n):
    src = "10.196.0.%d" % (10 + i // 60000)
    sport = 1024 + i % 60000
    udp = struct.pack("!HHHH", sport, 9, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xffff, 0, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton("10.196.0.2"))
    s.sendto(ip + udp, ("10.196.0.2", 0))
    if i % 100 == 99:
        ahead = (i + 1) / pps - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
PY
	# Until afwd has read them all (or a few seconds more).
	for i in $(seq 100); do
		[ "$(stat packets)" -ge "$n" ] && break
		sleep 0.1
	done
	secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	sleep 1
	peak=$(status VmHWM)
	after=$(status VmRSS)
	flows=$(stat flows)
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
