#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the afwd benchmark VM. AFW_BENCH_MODE picks the half to measure:
#   bulk     (booted with -icount sleep=off): TLS downloads with no firewall,
#            with every new flow decided by afwd (analyzed), and with every
#            packet through afwd (transfer, policy "inspect"); iperf3 the same
#            for analyzed mode; afwd's system calls per queued packet.
#   connect  (booted so that idle time passes in real time): TLS connect and
#            handshake times of new connections, with and without afw+afwd.
# Writes afwd-MODE.txt to the result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/lib.sh"
mode=${AFW_BENCH_MODE:?AFW_BENCH_MODE is bulk or connect}
exec 2> "$AFW_OUT/afwd-$mode.log"
res=$AFW_OUT/afwd-$mode.txt
: > "$res"
secs=${AFW_BENCH_SECONDS:-3}
bytes=${AFW_BENCH_BYTES:-160000000}
reps=${AFW_BENCH_REPEAT:-3}
conns=${AFW_BENCH_CONNECTS:-50}
# afwd settings for the transfer, IO:GATHER (--io, --gather), "default"
# (no option given) or "whole" (--head-queue off: every inspected packet
# copied whole, as before the headers queues); the last one is compared
# with the final baseline.
settings=${AFW_BENCH_TRANSFER:-whole poll:0 default}
AFWD=$AFW_SRC/build/afwd
work=$(mktemp -d)
# afwd reads the policy here as the user afw once it runs.
chmod 755 $work
afwd_pid=

say() { echo "$*" >> "$res"; }
# ratio A B: A/B, or n/a when either is not a positive number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b
		else printf "n/a" }'
}

topo_routed || { say "routed topology did not come up"; exit 1; }
bench_cert $work
nsx $NS_S python3 "$AFW_SRC/tests/tools/tlsserver.py" $S4 443 $work/cert.pem $work/key.pem \
	$work/server.log &
nsx $NS_S iperf3 -s -D -B $S4 > /dev/null
wait_until 30 bound_in $NS_S tcp :443 &&
wait_until 30 bound_in $NS_S tcp :5201 ||
	{ say "servers did not start"; exit 1; }

# curl_tls PATH FORMAT: one new TLS connection from the client to the server.
curl_tls() {
	nsx $NS_C curl -sS --max-time 900 --resolve bench.test:443:$S4 --cacert $work/cert.pem \
		-o /dev/null -w "$2" "https://bench.test/$1"
}

# The namespace afw filters in and afwd runs in: the router's, but for the
# pair mode's client.
fw_ns=$NS_R
# Every unknown flow goes to afwd, and afwd allows only the benchmark's own.
afw_setup() {
	afw_load || return 1
	nsx $fw_ns "$AFWCTL" config set unknown queue queue 0-1 fail closed
}
# afwd_start ACTION [OPTION...]: afwd with the module, giving the TLS flows
# and iperf3's ACTION.
afwd_start() {
	local action=$1
	shift
	{
		echo "default deny"
		echo "prio 10 host bench.test l7 tls $action"
		echo "prio 20 l7 unknown dport 5201 $action"
	} > $work/policy.conf
	afwd_run "$@"
}
# iperf_mbps NS ADDR: iperf3 for $secs from NS to the server at ADDR, in
# Mbit/s received, or "fail".
iperf_mbps() {
	nsx "$1" iperf3 -c "$2" -t "$secs" -J > $work/ip.json
	jq '.end.sum_received.bits_per_second / 1e6' $work/ip.json 2> /dev/null |
		awk '{ printf "%.1f\n", $1; ok = 1 } END { if (!ok) print "fail" }'
}
# transfer_opts SETTING: afwd's options for a setting of $settings, in
# opts, and its name, in opts_name.
transfer_opts() {
	case $1 in
	default)
		opts=() opts_name="afwd's defaults" ;;
	whole)
		opts=(--head-queue off) opts_name="afwd's defaults but --head-queue off" ;;
	*)
		opts=(--io "${1%%:*}" --gather "${1#*:}")
		opts_name="--io ${1%%:*} --gather ${1#*:}" ;;
	esac
}
# afwd_measured CMD...: CMD's output, afwd's counters before and after it
# kept for counted.
afwd_measured() {
	local c0 out
	c0=$(afwd_counters)
	out=$("$@")
	printf '%s|%s\n' "$c0" "$(afwd_counters)" > $work/counts
	echo "$out"
}
# counted WHAT: afwd's counters over the last afwd_measured, as over WHAT.
counted() {
	local a b
	IFS='|' read -r a b < $work/counts
	awk -v a="$a" -v b="$b" -v what="$1" 'BEGIN { split(a, x); split(b, y)
		p = y[1] - x[1]; s = y[2] - x[2]; b = y[3] - x[3]; q = y[4] - x[4]
		w = y[5] - x[5]
		printf "  afwd over %s: %d packets, %d syscalls, %d batches," \
			" %d polls (%d gathering); %.3f syscalls/packet, %.2f packets/batch\n",
			what, p, s, b, q, w, p ? s / p : 0, b ? p / b : 0 }' >> "$res"
}
on_exit afwd_stop
# afwd_counters: "packets syscalls batches polls waits", summed over the
# queues.
afwd_counters() {
	"$AFWD" --stats --ctl $work/afwd.sock |
		jq -r '[.packets, .syscalls, ([.queues[].batches] | add),
			([.queues[].polls] | add), ([.queues[].waits] | add)] | @tsv'
}

connect_mode() {
	local retransmitted
	# retrans: TCP segments the client and the server sent again, so far.
	retrans() {
		local ns
		for ns in $NS_C $NS_S; do
			nsx $ns nstat -saz TcpRetransSegs
		done | awk '$1 == "TcpRetransSegs" { n += $2 } END { print n + 0 }'
	}
	# connects FILE: $conns new connections, one "time_connect time_appconnect"
	# line each, in ms; five more first, not kept, warm caches and the server.
	connects() {
		local i r0
		for i in $(seq 5); do curl_tls "" '' > /dev/null; done
		r0=$(retrans)
		for i in $(seq "$conns"); do
			curl_tls "" '%{time_connect} %{time_appconnect}\n'
		done | awk '{ printf "%.3f %.3f\n", $1 * 1000, $2 * 1000 }' > "$1"
		retransmitted=$(( $(retrans) - r0 ))
		cp "$1" "$AFW_OUT/connect-$(basename "$1").txt"
	}
	# summary FILE COLUMN: "median mean" of a column, in ms.
	summary() {
		local med
		med=$(awk -v c="$2" '{ print $c }' "$1" | sort -g |
			awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]
				else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		awk -v c="$2" -v m="$med" '{ s += $c } END { printf "%.3f %.3f", m, s / NR }' "$1"
	}
	report() {
		local cm cs am as
		read -r cm cs < <(summary "$1" 1)
		read -r am as < <(summary "$1" 2)
		say "$(printf '%-24s %4d connections  connect median %8.3f mean %8.3f ms' \
			"$2:" "$(wc -l < "$1")" "$cm" "$cs")" \
			"$(printf ' appconnect median %8.3f mean %8.3f ms' "$am" "$as")"
		say "  appconnect slowest five (ms):" \
			"$(awk '{ print $2 }' "$1" | sort -gr | head -n 5 | tr '\n' ' ');" \
			"TCP segments retransmitted: $retransmitted"
	}
	ratios() {
		local b c
		b=($(summary "$1" 2)) c=($(summary "$2" 2))
		say "  appconnect ratio, $3: median $(ratio "${c[0]}" "${b[0]}")" \
			"mean $(ratio "${c[1]}" "${b[1]}")"
	}

	connects $work/base
	report $work/base "no firewall"
	afw_setup || { say "afw did not load"; exit 1; }
	afwd_start allow || { say "afwd did not start"; exit 1; }
	connects $work/afw
	report $work/afw "afw + afwd (analyzed)"
	say "  afwd decided $(grep -c 'bench.test' $work/afwd.log) flows;" \
		"$(nsx $NS_R "$AFWCTL" -j flow list |
			jq '[.[] | select(.verdict == "accept")] | length')" \
		"accepted flows installed; the module dropped" \
		"$(nsx $NS_R "$AFWCTL" -j status | jq .dropped) packets"
	cp $work/afwd.log "$AFW_OUT/connect-afwd.log"
	afwd_stop
	afw_unload
	connects $work/base2
	report $work/base2 "no firewall, again"
	ratios $work/base $work/afw "afw+afwd / no firewall"
	ratios $work/base2 $work/afw "afw+afwd / no firewall (again)"
	connrate_mode
}

# The connection rate: $rate_conns new TCP connections one after another,
# client to server through the router, each a connect, a request, its echo
# and a close (afwstress connrate, C, blocking calls: the fastest client
# there is, so that no client cost hides the firewall's). Setups: no
# firewall; afw with a kernel rule accepting the port (the rule installs
# each connection's flow); afw with afwd deciding each connection at its
# SYN (a port rule: the module keeps that decision and takes the next
# connections itself), and the same with afwd --no-learn, which sees each
# SYN; afw with afwd deciding each by its HTTP Host, which
# takes the handshake and the request through afwd; afw on the client
# itself, a kernel rule accepting the port, with the module recording each
# connection's owner, not recording it, and recording it again (the cost
# of owners: docs/performance.md); afwd on the client deciding each at its
# SYN by the port, and by the program (an exe rule, which asks the module
# who started it); no firewall again.
# Each line: connections a second and the p50/p99 of one connection's
# time, then the ratios to the first no-firewall run.
connrate_mode() {
	local stress=$AFW_SRC/build/tools/afwstress port=7000 n=${AFW_BENCH_RATE_CONNS:-2000}
	local http='GET / HTTP/1.1\r\nHost: bench.test\r\n\r\n' base= c0 c1
	# rate NAME [REQUEST]: one measurement, reported; 100 connections
	# first, not counted, warm the path.
	rate() {
		local name=$1 out
		shift
		tw_drain
		nsx $NS_C "$stress" connrate $S4 $port 100 "$@" > /dev/null
		[ -z "$afwd_pid" ] || c0=$(afwd_counters)
		out=$(nsx $NS_C "$stress" connrate $S4 $port "$n" "$@") ||
			{ say "$(printf '%-40s failed: %s' "$name:" "$out")"; return; }
		[ -z "$afwd_pid" ] || c1=$(afwd_counters)
		read -r _ okn _ cps _ _ p50 _ _ p99 _ <<< "$out"
		[ -n "$base" ] || base="$cps $p50 $p99"
		say "$(printf '%-40s %s  %8.1f conn/s  p50 %7.1f us  p99 %7.1f us' \
			"$name:" "$okn" "$cps" "$p50" "$p99")" \
			"$(awk -v b="$base" -v c="$cps" -v m="$p50" -v q="$p99" 'BEGIN {
				split(b, x); printf " | rate %.3f, p50 %.3fx, p99 %.3fx",
				c / x[1], m / x[2], q / x[3] }')"
		# What afwd did for each connection: how many of its packets
		# crossed to userspace, in how many rounds and system calls.
		[ -z "$afwd_pid" ] || say "$(awk -v a="$c0" -v b="$c1" -v n="$n" 'BEGIN {
			split(a, x); split(b, y)
			printf "  afwd, a connection: %.2f packets, %.2f batches, %.2f syscalls",
				(y[1] - x[1]) / n, (y[3] - x[3]) / n, (y[2] - x[2]) / n }')"
		perf_rate "$name" "$@"
	}
	# tw_drain: every run starts with the client's ports free. The client
	# closes first, so each connection leaves a TIME_WAIT socket for 60 s;
	# thousands of them make connect() search for a free port (the
	# profile's top: __inet_hash_connect, __inet_check_established), a
	# cost that grows with the runs before and would fall on the later rows.
	tw_count() { nsx $NS_C ss -Htan state time-wait | wc -l; }
	tw_few() { [ "$(tw_count)" -lt 20 ]; }
	# AFW_BENCH_TW_WAIT (s, default 70) bounds the wait: the CI's small
	# runs (tests/vm/scenarios/99-bench-smoke.sh) leave too few to matter.
	tw_drain() {
		wait_until "${AFW_BENCH_TW_WAIT:-70}" tw_few ||
			say "  (TIME_WAIT sockets left: $(tw_count))"
	}
	# perf_rate NAME [REQUEST]: with AFW_BENCH_PERF=1, one more run under
	# perf (every CPU, cpu-clock), its report by command, object and
	# symbol to afwd-rate-perf-NAME.txt: where a connection's time goes.
	# Not timed: perf's own cost is in it.
	perf_rate() {
		local f
		[ "${AFW_BENCH_PERF:-0}" = 1 ] && command -v perf > /dev/null || return 0
		f=$AFW_OUT/afwd-rate-perf-$(echo "$1" | tr -c 'a-zA-Z0-9\n' - | tr -s -).txt
		shift
		tw_drain
		perf record -q -a -o $work/perf.data -- \
			ip netns exec $NS_C "$stress" connrate $S4 $port "$n" "$@" > /dev/null 2>&1
		perf report -i $work/perf.data --stdio --sort comm,dso,sym 2> /dev/null |
			grep -E '^ +[0-9]' | head -80 > "$f"
	}
	# cg_bench_enter: this shell, and so the clients it starts, into the
	# cgroup /afw-bench/client; cg_bench_leave: back to the root.
	cg_bench_enter() {
		local cg=/sys/fs/cgroup
		[ -e $cg/cgroup.procs ] || mount -t cgroup2 none $cg || return
		mkdir -p $cg/afw-bench/client && echo $$ > $cg/afw-bench/client/cgroup.procs
	}
	cg_bench_leave() { echo $$ > /sys/fs/cgroup/cgroup.procs; }
	# learned_say: how many connections the module decided by what afwd
	# taught it, and how many of them afwd has heard of (each is told
	# after the fact: waited for a little).
	told() { "$AFWD" --stats --ctl $work/afwd.sock | jq '[.queues[].told] | add'; }
	learned_say() {
		local learned
		learned=$(nsx $fw_ns "$AFWCTL" -j stats | jq .learned.flows)
		told_all() { [ "$(told)" -ge "$learned" ]; }
		wait_until 5 told_all
		say "  the module decided $learned connections by the decision afwd taught it;" \
			"afwd was told of $(told)"
	}
	say "connection rate ($n connections each, afwstress connrate):"
	nsx $NS_S "$stress" echo $S4 $port &
	wait_until 30 bound_in $NS_S tcp ":$port" ||
		{ say "echo server did not start"; return; }
	rate "no firewall"
	rate "no firewall, an HTTP request" "$http"
	afw_setup || { say "afw did not load"; return; }
	nsx $fw_ns "$AFWCTL" rule add prio 10 dir forward proto tcp dport $port accept
	rate "afw, a kernel rule accepts the port"
	nsx $fw_ns "$AFWCTL" rule flush
	nsx $fw_ns "$AFWCTL" flow flush
	printf 'default deny\nprio 10 proto tcp dport %s allow\n' $port > $work/policy.conf
	afwd_run || { say "afwd did not start"; return; }
	rate "afw + afwd, decided at the SYN (port)"
	learned_say
	afwd_stop
	afwd_run --no-learn || { say "afwd did not start"; return; }
	rate "afw + afwd, the same, --no-learn"
	afwd_stop
	printf 'default deny\nprio 10 host bench.test l7 http allow\n' > $work/policy.conf
	: > $work/afwd.log
	afwd_run || { say "afwd did not start"; return; }
	rate "afw + afwd, decided by the HTTP Host" "$http"
	say "  afwd decided $(grep -c 'bench.test' $work/afwd.log) flows by name;" \
		"the module dropped $(nsx $fw_ns "$AFWCTL" -j status | jq .dropped) packets"
	afwd_stop
	nsx $fw_ns "$AFWCTL" flow flush
	# The router lets everything through from here: with afwd gone, its
	# unknown flows would be queued to nobody, failing closed.
	nsx $fw_ns "$AFWCTL" config set unknown accept
	# afw on the client: its rule's flows are the client's own, and the
	# module records who started each at its SYN.
	nsx $NS_C "$AFWCTL" rule add prio 10 dir out proto tcp dport $port accept > /dev/null
	nsx $NS_C "$AFWCTL" config set unknown drop
	rate "afw on the client, owners recorded"
	nsx $NS_C "$AFWCTL" config set owners no
	rate "afw on the client, owners not recorded"
	nsx $NS_C "$AFWCTL" config set owners yes
	rate "afw on the client, owners recorded again"
	say "  the client's afw recorded $(nsx $NS_C "$AFWCTL" -j stats | jq .owners.noted)" \
		"owners, lost $(nsx $NS_C "$AFWCTL" -j stats | jq .owners.lost)"
	# The same rule on the program, then on the client's cgroup (two
	# levels down, as a unit's): what a rule on either costs a connection.
	nsx $NS_C "$AFWCTL" rule flush
	nsx $NS_C "$AFWCTL" rule add prio 10 dir out proto tcp dport $port exe "$stress" accept \
		> /dev/null
	rate "afw on the client, a kernel rule on the program"
	say "  by that rule: $(nsx $NS_C "$AFWCTL" -j rule list | jq '.[0].packets') packets"
	nsx $NS_C "$AFWCTL" rule flush
	cg_bench_enter && {
		nsx $NS_C "$AFWCTL" rule add prio 10 dir out proto tcp dport $port \
			cgroup /afw-bench/client accept > /dev/null
		rate "afw on the client, a kernel rule on the cgroup"
		say "  by that rule: $(nsx $NS_C "$AFWCTL" -j rule list | jq '.[0].packets') packets"
		cg_bench_leave
	}
	nsx $NS_C "$AFWCTL" rule flush
	# afwd on the client, where a flow's program is known: decided at the
	# SYN by the port, and by the program, which asks the module.
	fw_ns=$NS_C
	nsx $NS_C "$AFWCTL" config set unknown queue queue 0-1 fail closed
	printf 'default deny\nprio 10 proto tcp dport %s allow\n' $port > $work/policy.conf
	afwd_run || { say "afwd did not start"; return; }
	rate "afw + afwd on the client (port)"
	learned_say
	afwd_stop
	printf 'default deny\nprio 10 exe %s proto tcp dport %s allow\n' "$stress" $port \
		> $work/policy.conf
	afwd_run || { say "afwd did not start"; return; }
	rate "afw + afwd on the client (exe)"
	afwd_stop
	nsx $NS_C "$AFWCTL" config set unknown accept
	fw_ns=$NS_R
	afw_unload
	rate "no firewall, again"
}

bulk_mode() {
	local n=$bytes mb base base2 ana ip0 ipa c0 c1 d g dlast
	# tls_mbps BYTES: one TLS download over a new connection, in Mbit/s of
	# curl's whole time (connect and handshake included), or "fail".
	tls_mbps() {
		curl_tls "bytes/$1" '%{size_download} %{time_total}\n' |
			awk -v n="$1" '$1 == n && $2 > 0 {
					printf "%.1f\n", $1 * 8 / $2 / 1e6; ok = 1 }
				END { if (!ok) print "fail" }'
	}
	# tls_median: $reps downloads of $n bytes; the list, then " median M".
	tls_median() {
		local i
		for i in $(seq "$reps"); do tls_mbps "$n"; done | sort -g |
			awk '{ v[NR] = $1; printf "%s ", $1 }
				END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
					printf "median %s\n", m }'
	}

	mb=$(tls_mbps 16000000)
	say "warm-up: $mb Mbit/s; TLS downloads of $n bytes, $reps of each;" \
		"medians compared; iperf3 runs ${secs}s"

	base=$(tls_median)
	say "no firewall, TLS:            $base Mbit/s"
	base=${base##* }
	ip0=$(iperf_mbps $NS_C $S4)
	say "no firewall, iperf3:         $ip0 Mbit/s"

	afw_setup || { say "afw did not load"; exit 1; }
	afwd_start allow || { say "afwd did not start"; exit 1; }
	c0=$(afwd_counters)
	ana=$(tls_median)
	c1=$(afwd_counters)
	say "analyzed, TLS:               $ana Mbit/s"
	ana=${ana##* }
	say "  ratio $(ratio "$ana" "$base"); afwd packets during them:" \
		"$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x); split(b, y)
			print y[1] - x[1] }')"
	ipa=$(iperf_mbps $NS_C $S4)
	say "analyzed, iperf3:            $ipa Mbit/s  ratio $(ratio "$ipa" "$ip0")"
	say "  flows installed: $(nsx $NS_R "$AFWCTL" -j flow list |
		jq -c '[.[] | .verdict] | group_by(.) | map({(.[0]): length}) | add')"
	afwd_stop

	# Transfer mode, once per setting of afwd's --io and --gather (and,
	# for experiments, a command to run afwd under, e.g. "nice -n 5").
	local opts opts_name ipt
	for g in $settings; do
		transfer_opts "$g"
		afwd_start inspect "${opts[@]}" || { say "afwd did not start"; exit 1; }
		d=$(afwd_measured tls_median)
		say "transfer (inspect), $opts_name${AFW_BENCH_WRAP:+ under $AFW_BENCH_WRAP}: $d Mbit/s"
		d=${d##* }
		say "  ratio $(ratio "$d" "$base")"
		counted "the TLS downloads"
		# The fastest path there is: iperf3, every packet through afwd.
		ipt=$(afwd_measured iperf_mbps $NS_C $S4)
		say "  iperf3, inspected: $ipt Mbit/s  ratio $(ratio "$ipt" "$ip0")"
		counted "iperf3"
		say "  flows installed: $(nsx $NS_R "$AFWCTL" -j flow list |
			jq -c '[.[] | .verdict] | group_by(.) | map({(.[0]): length}) | add')"
		afwd_stop
		dlast=$d
	done
	d=$dlast
	afw_unload

	base2=$(tls_median)
	base2=${base2##* }
	say "no firewall, TLS, again:     $base2 Mbit/s" \
		" (analyzed ratio $(ratio "$ana" "$base2"), transfer ratio $(ratio "$d" "$base2"))"
}

# perf_iperf NS NAME: with AFW_BENCH_PERF=1, one more iperf3 run from NS to
# the pair's server under perf (every CPU, cpu-clock), its report by
# command, object and symbol to afwd-pair-perf-NAME.txt: where a packet's
# time goes. Not timed: perf's own cost is in it.
perf_iperf() {
	[ "${AFW_BENCH_PERF:-0}" = 1 ] && command -v perf > /dev/null || return 0
	perf record -q -a -o $work/perf.data -- ip netns exec "$1" \
		iperf3 -c 10.9.0.2 -t "$secs" > /dev/null 2>&1
	perf report -i $work/perf.data --stdio --sort comm,dso,sym 2> /dev/null |
		grep -E '^ +[0-9]' | head -60 > "$AFW_OUT/afwd-pair-perf-$2.txt"
}

# rounds_iperf NS NAME: with AFW_BENCH_ROUNDS=1, one more iperf3 run (1 s)
# from NS to the pair's server, 0.2 s of it under ftrace (packets queued,
# afwd's io_uring_enter() calls, the scheduler's switches): what afwd's
# rounds are made of (bench/rounds.py), to afwd-pair-rounds-NAME.txt, and
# the raw trace beside it. Not timed: the tracer's cost is in it.
rounds_iperf() {
	[ "${AFW_BENCH_ROUNDS:-0}" = 1 ] || return 0
	local T=/sys/kernel/tracing out=$AFW_OUT/afwd-pair-rounds-$2 pid rpid
	mountpoint -q $T || mount -t tracefs none $T
	rpid=$(pgrep -f "iperf3 -s -D -B 10.9.0.2" | head -1)
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo nfqnl_enqueue_packet > $T/set_ftrace_filter
	echo function > $T/current_tracer
	echo 1 > $T/events/sched/sched_switch/enable
	echo 1 > $T/events/syscalls/sys_enter_io_uring_enter/enable
	nsx "$1" iperf3 -c 10.9.0.2 -t 1 > /dev/null 2>&1 &
	pid=$!
	sleep 0.5
	echo 1 > $T/tracing_on
	sleep 0.2
	echo 0 > $T/tracing_on
	wait $pid || true
	cat $T/trace > $out.trace
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	echo 0 > $T/events/enable
	python3 "$AFW_SRC/bench/rounds.py" $out.trace "$rpid" > $out.txt 2>&1 || true
	sed 's/^/  rounds: /' $out.txt >> "$res"
}

# The fastest path: client and server on one veth pair, no router, afw and
# afwd on the client's side (LOCAL_OUT and LOCAL_IN), iperf3 with no
# firewall, then inspected under each of $settings.
pair_mode() {
	local a=$NSP-a b=$NSP-b base t opts opts_name g kv
	ip netns add $a && ip netns add $b || { say "pair: namespaces"; exit 1; }
	on_exit ip netns del $a
	on_exit ip netns del $b
	ip link add pa netns $a type veth peer name pb netns $b
	ip -n $a -b - <<-EOF
		link set lo up
		addr add 10.9.0.1/24 dev pa
		link set pa up
	EOF
	ip -n $b -b - <<-EOF
		link set lo up
		addr add 10.9.0.2/24 dev pb
		link set pb up
	EOF
	wait_until 10 nsx $a ping -q -c1 -W1 10.9.0.2 > /dev/null || { say "pair: no ping"; exit 1; }
	# The experiment's settings of the sender's TCP, read back as it has them.
	for kv in ${AFW_BENCH_CLIENT_SYSCTL:-}; do
		nsx $a sysctl -qw "$kv" || { say "pair: sysctl $kv failed"; exit 1; }
		say "pair: the client's ${kv%%=*} is $(nsx $a sysctl -n "${kv%%=*}")"
	done
	iperf_server $b -B 10.9.0.2 || { say "pair: no iperf3 server"; exit 1; }
	iperf_mbps $a 10.9.0.2 > /dev/null	# warm-up
	base=$(iperf_mbps $a 10.9.0.2)
	say "pair, no firewall, iperf3 ${secs}s: $base Mbit/s"
	perf_iperf $a host
	fw_ns=$a
	afw_setup || { say "afw did not load"; exit 1; }
	for g in $settings; do
		transfer_opts "$g"
		afwd_start inspect "${opts[@]}" || { say "afwd did not start"; exit 1; }
		t=$(afwd_measured iperf_mbps $a 10.9.0.2)
		say "pair, iperf3 inspected, $opts_name: $t Mbit/s  ratio $(ratio "$t" "$base")"
		counted "iperf3"
		perf_iperf $a "inspect-${g/:/-}"
		rounds_iperf $a "inspect-${g/:/-}"
		afwd_stop
	done
	afw_unload
	t=$(iperf_mbps $a 10.9.0.2)
	say "pair, no firewall again: $t Mbit/s  ratio $(ratio "$t" "$base")"
}

case "$mode" in
bulk) bulk_mode ;;
pair) pair_mode ;;
connect) connect_mode ;;
*) say "unknown AFW_BENCH_MODE $mode"; exit 1 ;;
esac
