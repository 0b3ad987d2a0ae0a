#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the attribution benchmark VM: how many connections of short-lived
# processes afw and OpenSnitch name the right program for. The same
# workload runs under each, in a client namespace on a veth pair: 50
# processes started at once, copies of bash at five paths, each sending 20
# UDP datagrams from 20 new sockets to 20 ports of its own, then exiting;
# three times: sockets closed at once, sockets held until the exit, and a
# control where the processes stay 30 s (see workload). The launcher
# writes down which program sent to which port; each firewall's view is
# compared with it. Writes attribution.txt (the table)
# and, for a look afterwards, the truth, afw's flow list and OpenSnitch's
# log to the result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/lib.sh"
exec 2> "$AFW_OUT/attribution.log"
res=$AFW_OUT/attribution.txt
: > "$res"
say() { echo "$*" >> "$res"; }
AFW_BENCH_PROCS=${AFW_BENCH_PROCS:-50}
AFW_BENCH_SENDS=${AFW_BENCH_SENDS:-20}
AFW_BENCH_PROGS=${AFW_BENCH_PROGS:-5}
work=$(mktemp -d)
bin=/tmp/attr
S=10.9.0.2
osn_pid=

ip netns add $NS_C && ip netns add $NS_S || { say "namespaces"; exit 1; }
ip link add c0 netns $NS_C type veth peer name s0 netns $NS_S
ip -n $NS_C -b - <<-EOF
	link set lo up
	addr add 10.9.0.1/24 dev c0
	link set c0 up
EOF
ip -n $NS_S -b - <<-EOF
	link set lo up
	addr add $S/24 dev s0
	link set s0 up
EOF
wait_until 10 nsx $NS_C ping -q -c1 -W1 $S > /dev/null || { say "no ping"; exit 1; }

# The programs: copies of bash, which opens a new UDP socket for each
# redirection to /dev/udp.
mkdir -p $bin
for p in $(seq 0 $((AFW_BENCH_PROGS - 1))); do
	cp /usr/bin/bash $bin/prog-$p
done

# workload BASE TRUTH HOW: the processes, in the client namespace; process
# i runs prog-(i % PROGS) and sends to ports BASE + i * SENDS onwards. Each
# waits at a barrier once started, so that all of them send at the same
# time (bash's read -t on a FIFO held open: no process is forked to wait),
# then exits right after its last datagram. HOW is "close": each socket is
# closed right after its datagram (echo x > /dev/udp/...), or "hold": each
# stays open until the process exits (exec {fd}> /dev/udp/...), so that
# only the process's exit can hide it, or "linger": as hold, but the
# process stays 30 s more before it exits, the control: neither socket nor
# process is gone when a firewall looks. TRUTH gets "PORT PROGRAM" lines.
workload() {
	local base=$1 truth=$2 how=$3 i p first pids=() send linger
	send='echo x > /dev/udp/$3/$port'
	[ "$how" = close ] || send='exec {fd}> /dev/udp/$3/$port; echo x >&$fd'
	linger=0
	[ "$how" = linger ] && linger=30
	: > "$truth"
	rm -rf $work/barrier
	mkdir $work/barrier
	mkfifo $work/barrier/tick
	for i in $(seq 0 $((AFW_BENCH_PROCS - 1))); do
		p=$bin/prog-$((i % AFW_BENCH_PROGS))
		first=$((base + i * AFW_BENCH_SENDS))
		ip netns exec $NS_C $p -c '
			exec 9<> "$1/tick"
			: > "$1/ready.$2"
			while [ ! -e "$1/go" ]; do read -rt 0.05 -u 9 _; done
			for ((port = $4; port < $4 + $5; port++)); do
				'"$send"'
			done
			[ "$6" = 0 ] || read -rt "$6" -u 9 _' - $work/barrier $i $S $first $AFW_BENCH_SENDS $linger 2> /dev/null &
		pids+=($!)
		for ((port = first; port < first + AFW_BENCH_SENDS; port++)); do
			echo "$port $p"
		done >> "$truth"
	done
	all_ready() { [ "$(ls $work/barrier | grep -c '^ready')" = "$AFW_BENCH_PROCS" ]; }
	wait_until 300 all_ready || say "  (not every process reached the barrier)"
	: > $work/barrier/go
	# Its own processes only: a daemon started here runs on.
	wait "${pids[@]}"
	echo "workload from port $base done" >&2
}

# score NAME TRUTH SEEN: one row of the table. SEEN has "PORT PATH" for
# each connection the firewall saw, PATH "-" when it named no program.
score() {
	awk -v name="$1" 'FNR == NR { want[$1] = $2; n++; next }
		($1 in want) && !($1 in got) { got[$1] = $2 }
		END {
			for (p in want) {
				if (!(p in got)) unseen++
				else if (got[p] == "-" || got[p] == "") none++
				else if (got[p] == want[p]) right++
				else wrong++
			}
			printf "%-22s %11d %8d %10d %10d %8d %7.1f\n", name, n, right, wrong,
				none, unseen, n ? 100 * right / n : 0
		}' "$2" "$3" >> "$res"
}

say "$AFW_BENCH_PROCS processes at once, $AFW_BENCH_PROGS programs (copies of bash)," \
	"$AFW_BENCH_SENDS UDP datagrams each, each from a new socket to a port of its own;" \
	"close: each socket closed after its datagram, hold: open until the process exits," \
	"linger: open, and the process exits 30 s later"
say "$(printf '%-22s %11s %8s %10s %10s %8s %7s' firewall connections right \
	"wrong path" "no process" "not seen" "right %")"

# afw: an accept rule installs each datagram's flow at its first packet,
# and the module records the sender then, in the sender's context.
# Unknown drop, so that only the rule makes flows; a UDP timeout long
# enough that none expires before the listing.
afw_ns() { "$AFWCTL" -n $NS_C "$@"; }
if afw_load && afw_ns config set unknown drop udp_timeout 900 &&
	afw_ns rule add dir out proto udp dport 6000-6999 accept &&
	afw_ns rule add dir out proto udp dport 8000-8999 accept &&
	afw_ns rule add dir out proto udp dport 10000-10999 accept; then
	workload 6000 $work/truth-afw close
	workload 8000 $work/truth-afw-hold hold
	workload 10000 $work/truth-afw-linger linger
	afw_ns -j flow list > $work/afw-flows.json
	jq -r '.[] | select(.dport >= 6000) | "\(.dport) \(.owner.exe // "-")"' \
		$work/afw-flows.json > $work/seen-afw
	score "afw, close" $work/truth-afw $work/seen-afw
	score "afw, hold" $work/truth-afw-hold $work/seen-afw
	score "afw, linger" $work/truth-afw-linger $work/seen-afw
	say "  afw stats: $(afw_ns -j stats | jq -c .owners)"
	cp $work/truth-afw $work/truth-afw-hold $work/truth-afw-linger $work/afw-flows.json "$AFW_OUT/"
else
	say "afw did not load or take its settings"
fi
afw_unload

# OpenSnitch: its daemon in the client namespace, so that its NFQUEUE rules
# (mangle OUTPUT, new connections) see the workload; bench/lib.sh's
# osn_start says how it is set up.
on_exit osn_stop
if osn_start $NS_C $work; then
	echo "opensnitch rules in place" >&2
	# It decides each queued packet in its own time: after each run,
	# wait until no more lines about the workload's connections come
	# for 10 s (its log as a whole never stops: it checks its rules
	# every few seconds), at most 5 minutes.
	osn_settle() {
		local prev=-1 now
		for _ in $(seq 30); do
			now=$(grep -c " -> $S:" $work/osn.log)
			[ "$now" = "$prev" ] && break
			prev=$now
			sleep 10
		done
		echo "opensnitch's log: $prev lines about the workload" >&2
	}
	workload 7000 $work/truth-osn close
	osn_settle
	workload 9000 $work/truth-osn-hold hold
	osn_settle
	workload 11000 $work/truth-osn-linger linger
	osn_settle
	osn_stop
	echo "opensnitch stopped" >&2
	# Its log, without colours: "new connection udp => SPORT:SRC ->
	# DST:DPORT uid: U" for each connection it saw, "✔ PATH ->
	# DST:DPORT (RULE)" for each it matched a rule for, with its path.
	sed 's/\x1b\[[0-9;]*m//g' $work/osn.log > $work/osn-plain.log
	awk -v s=$S '
		/new connection udp => / { split($0, a, " -> ")
			split(a[2], d, "[: ]"); if (d[1] == s) seen[d[2]] = 1 }
		/✔ / { line = $0; sub(/.*✔ /, "", line)
			n = index(line, " -> "); path = substr(line, 1, n - 1)
			split(substr(line, n + 4), d, "[: ]")
			if (d[1] == s && !(d[2] in named)) named[d[2]] = path == "" ? "-" : path }
		END { for (p in seen) print p, (p in named) ? named[p] : "-"
			for (p in named) if (!(p in seen)) print p, named[p] }' \
		$work/osn-plain.log > $work/seen-osn
	score "OpenSnitch, close" $work/truth-osn $work/seen-osn
	score "OpenSnitch, hold" $work/truth-osn-hold $work/seen-osn
	score "OpenSnitch, linger" $work/truth-osn-linger $work/seen-osn
	# Why it named none: no socket for the 4-tuple (closed, or its
	# process gone), or a socket no process under /proc holds.
	say "  OpenSnitch $osn_ver log, all runs:" \
		"$(grep -c 'no inodes found' $work/osn-plain.log) with no socket found," \
		"$(grep -c 'Could not find process by its pid' $work/osn-plain.log) with no process found"
else
	say "$osn_why"
fi
cp $work/osn.log $work/osn.out "$AFW_OUT/" 2> /dev/null
cp $work/truth-osn $work/truth-osn-hold $work/truth-osn-linger "$AFW_OUT/" 2> /dev/null
exit 0
