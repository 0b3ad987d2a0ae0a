#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the crossing VM (bench/crossing.sh). Writes crossing.txt and the
# traces to the result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/lib.sh"
exec 2> "$AFW_OUT/crossing.log"
res=$AFW_OUT/crossing.txt
: > "$res"
work=$(mktemp -d)
# afwd reads the policy here as the user afw once it runs.
chmod 755 $work
fw_ns=$NS_R
stress=$AFW_SRC/build/tools/afwstress port=7000
T=/sys/kernel/tracing
on_exit afwd_stop

topo_routed || { echo "bench: the topology did not come up" >> "$res"; exit 1; }
nsx $NS_S "$stress" echo $S4 $port &
wait_until 30 bound_in $NS_S tcp ":$port" || { echo "bench: no echo server" >> "$res"; exit 1; }
mountpoint -q $T || mount -t tracefs none $T

# rate NAME: 1,000 connections after 100 not counted.
rate() {
	nsx $NS_C "$stress" connrate $S4 $port 100 > /dev/null
	echo "$1: $(nsx $NS_C "$stress" connrate $S4 $port 1000)" >> "$res"
}
# profiled NAME: with AFW_BENCH_PERF=1, 1,000 more connections under perf
# (AFW_BENCH_PERF_CONNS), sampled AFW_BENCH_PERF_FREQ times a second of
# guest time (perf's 4,000 by default; under -icount a second is a billion
# instructions), its report to perf-NAME.txt: where a row's time goes, by
# command, object and symbol, and by symbol alone, every CPU and command
# together, to perf-NAME-sym.txt, which one row's can be set against
# another's; with AFW_BENCH_PERF=2, with the call chains that reach each
# symbol of 1% or more as well.
profiled() {
	local g=
	case "${AFW_BENCH_PERF:-0}" in
	1) ;;
	2) g=-g ;;
	*) return 0 ;;
	esac
	command -v perf > /dev/null ||
		{ echo "  not profiled: perf is not installed (linux-perf)" >> "$res"; return 0; }
	# The kernel would lower a high rate, its samples' cost measured
	# against the emulated CPU's slow interrupts.
	sysctl -qw kernel.perf_cpu_time_max_percent=0 kernel.perf_event_max_sample_rate=100000 \
		2> /dev/null
	perf record -q -a $g -F "${AFW_BENCH_PERF_FREQ:-4000}" -o $work/perf.data -- \
		ip netns exec $NS_C "$stress" connrate $S4 $port "${AFW_BENCH_PERF_CONNS:-1000}" \
		> /dev/null 2>&1
	perf report -i $work/perf.data --stdio --no-children --sort sym 2> /dev/null |
		grep -E '^ +[0-9]' > "$AFW_OUT/perf-$1-sym.txt"
	echo "  profiled: $(wc -l < "$AFW_OUT/perf-$1-sym.txt") symbols," \
		"$(perf report -i $work/perf.data --stdio 2> /dev/null |
			sed -n 's/^# Samples: \([^ ]*\) .*/\1/p' | head -n 1) samples" >> "$res"
	if [ -n "$g" ]; then
		perf report -i $work/perf.data --stdio --no-children --sort comm,sym \
			--percent-limit 1 -g caller,0.5,callee,function,percent 2> /dev/null \
			> "$AFW_OUT/perf-$1.txt"
	else
		perf report -i $work/perf.data --stdio --sort comm,dso,sym 2> /dev/null |
			grep -E '^ +[0-9]' | head -150 > "$AFW_OUT/perf-$1.txt"
	fi
}
# traced NAME: 20 connections under the tracer, its output to trace-NAME.txt.
traced() {
	local f
	echo function_graph > $T/current_tracer
	echo funcgraph-proc > $T/trace_options
	echo funcgraph-abstime > $T/trace_options
	echo 20000 > $T/buffer_size_kb
	# A name at a time: one the kernel cannot trace (inlined, or not
	# built) fails its own write only, where in one write it would fail
	# them all and leave every function traced.
	echo > $T/set_ftrace_filter
	for f in '__x64_sys_*' net_rx_action nf_hook_slow nfqnl_enqueue_packet \
		nfqnl_recv_verdict nf_reinject genl_rcv_msg schedule tcp_v4_rcv ip_forward \
		netlink_unicast io_submit_sqes io_issue_sqe io_cqring_wait \
		afw_hook afw_flow_insert afw_genl_flow_event; do
		echo "$f" >> $T/set_ftrace_filter 2> /dev/null ||
			echo "  not traced: $f" >> "$res"
	done
	echo 1 > $T/tracing_on
	echo "  under the tracer: $(nsx $NS_C "$stress" connrate $S4 $port 20)" >> "$res"
	echo 0 > $T/tracing_on
	cp $T/trace "$AFW_OUT/trace-$1.txt"
	echo > $T/trace
	echo nop > $T/current_tracer
}

# counts: what afwd did for the 1,100 connections of the row before.
counts() {
	echo "  afwd: $(afwd_stat packets) packets queued, $(afwd_stat handshakes) handshake" \
		"packets told, $(afwd_stat installed) installs, $(afwd_stat syscalls) system" \
		"calls, for 1,100 connections" >> "$res"
}

rate "no firewall"
profiled host
# The least a firewall that reads each connection's first bytes in
# userspace can pay: that packet alone queued (iptables, no afw) to the
# kernel selftest's nf-queue client, which accepts it unread, a verdict a
# packet. Neither handshake, nor analysis, nor an install.
nfq=$AFW_SRC/build/tools/nf-queue
first_data=(FORWARD -p tcp --dport $port ! --syn -m length ! --length 0:60 -j NFQUEUE --queue-num 0)
if [ -x "$nfq" ]; then
	# ip netns exec execs the client, so $! is the client itself: it
	# must be gone before afwd takes queue 0.
	ip netns exec $NS_R "$nfq" -q 0 -t 3600 > /dev/null 2>> $work/nfq.log &
	nfq_pid=$!
	sleep 1
	nsx $NS_R iptables -A "${first_data[@]}"
	rate "the first data packet alone to the selftest's nf-queue client, no afw"
	traced floor
	echo "  queued: $(nsx $NS_R iptables -L FORWARD -v -x -n | awk '/NFQUEUE/ { print $1 }')" \
		"packets for 1,120 connections" >> "$res"
	profiled floor
	nsx $NS_R iptables -D "${first_data[@]}"
	kill $nfq_pid
	wait $nfq_pid 2> /dev/null
	# An empty table still hooks every packet.
	nsx $NS_R nft flush ruleset
else
	echo "the first data packet alone to the selftest's nf-queue client: not built" >> "$res"
fi
afw_load || { echo "bench: afw.ko did not load" >> "$res"; exit 1; }
nsx $NS_R "$AFWCTL" rule add prio 10 dir forward proto tcp dport $port accept > /dev/null
rate "a kernel rule accepts the port"
profiled rule
nsx $NS_R "$AFWCTL" rule flush
nsx $NS_R "$AFWCTL" flow flush
nsx $NS_R "$AFWCTL" config set unknown queue queue 0-1 fail closed > /dev/null
printf 'default deny\nprio 10 proto tcp dport %s allow\n' $port > $work/policy.conf
afwd_run --no-learn ${AFW_BENCH_AFWD_OPTS:-} || { echo "bench: afwd did not start" >> "$res"; exit 1; }
rate "afwd decides at the SYN by the port, --no-learn"
counts
profiled port
traced port
afwd_stop
printf 'default allow\n' > $work/policy.conf
afwd_run ${AFW_BENCH_AFWD_OPTS:-} || { echo "bench: afwd did not start" >> "$res"; exit 1; }
rate "afwd, default allow: reads each connection's first bytes"
counts
profiled allow
traced allow
afwd_stop
afw_unload
rate "no firewall, again"
