#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything at once, for AFW_STRESS_SECONDS (default 60): iperf3 streams
# and short TCP and UDP connections through the router and to its own
# sockets, IPv4 and IPv6; two writers changing the router's rules (rule
# add/del, and whole rulesets replaced by afwctl load); FLOW_NEW/FLOW_DEL
# churn; afwd killed (SIGKILL) and restarted, its allows confirmed by the
# module on the servers' ACKs meanwhile; namespaces created with rules
# and flows and deleted; and the module itself removed and loaded again
# under all of that. The suite then checks the kernel log for splats (and,
# at its end, kmemleak). The counts of what was done go to the log, to
# stress-summary.txt and into the result line; docs/reliability.md keeps
# the figures of long runs (make stress-long).
. "$AFW_SRC/tests/vm/lib.sh"
AFWD=$AFW_SRC/build/afwd
STRESS=$AFW_SRC/build/tools/afwstress
secs=${AFW_STRESS_SECONDS:-60}
# AFW_STRESS_LOADS picks the loads (all by default), e.g. "traffic,flows,reload"
# to hunt races of the unload with packets alone.
loads=" ${AFW_STRESS_LOADS:-traffic rules flows afwd netns reload} "
loads=${loads//,/ }
has() { [[ "$loads" == *" $1 "* ]]; }
work=$(mktemp -d)
on_exit rm -rf "$work"
# What a loop leaves (iperf3's last report, afwd's log) stays for a look.
keep=$AFW_LOGDIR/stress
mkdir -p $keep
stamp() { echo "stress: $* at $(date +%T)" >&2; }
stamp "setup starts"

check "afwstress is built" test -x "$STRESS"

# The hung-task detector's 120 s is a bound for hardware. Here the stress
# keeps two emulated CPUs of a KASAN and kmemleak kernel busy, and RCU
# callbacks queue faster than they run: 41,536 and 63,807 callbacks
# queued on the two CPUs, 3,000 a second invoked, nine in ten of them
# kmemleak's free_object_rcu (15-minute run, docs/reliability.md). Every
# synchronize_rcu() and rcu_barrier() waits behind that queue, 47 s at the
# median, so a namespace's teardown or rmmod, which take a dozen of them
# under the RTNL mutex or the module mutex, wait 120 s without any task
# being stuck. A task blocked for AFW_STRESS_HUNG_SECS (600 s: five times
# the default, three times the longest rmmod seen) is still reported, and
# fails the run; so is one blocked 120 s when the default comes back at
# the end, after the module's unload.
hung=/proc/sys/kernel/hung_task_timeout_secs
if [ -w $hung ]; then
	hung_was=$(cat $hung)
	echo "${AFW_STRESS_HUNG_SECS:-600}" > $hung
	on_exit "echo $hung_was > $hung"
fi
check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
stamp "topology up"

# Servers: iperf3 on the server (forwarded) and on the router (local), echo
# servers for the short connections in both places.
for p in 5201 5202 5203; do
	iperf_server $NS_S -p $p
done
iperf_server $NS_R -p 5204
for a in $S4 $S6; do nsx $NS_S "$STRESS" echo $a 7000 & done
# Port 7002: flows afwd decides on their first bytes (default allow), which
# the module holds unconfirmed until the server acknowledges them.
for a in $S4 $S6; do nsx $NS_S "$STRESS" echo $a 7002 & done
for a in $R4C $R6C; do nsx $NS_R "$STRESS" echo $a 7000 & done
for a in "$S4" "[$S6]"; do
	wait_listen $NS_S tcp "$a:7000"
	wait_listen $NS_S tcp "$a:7002"
done
wait_listen $NS_R tcp "$R4C:7000"
wait_listen $NS_R tcp "[$R6C]:7000"

# afwd teaches the module its decisions on port 7000 (by the port alone),
# so the short connections there take the learned path in the kernel,
# while afwd forgets them at each reload and dies with them. The policy is
# where afwd's user can read it (mktemp -d gives root alone the way in),
# or its SIGHUP would be a failed reload, not a reload.
chmod 711 $work
mkdir -m 755 $work/policy
# Nothing in it refuses a connection by its ends, so the module passes
# the handshakes and tells afwd of them: the way afwd has it hold allows
# unconfirmed (port 7002 below).
cat > $work/policy/policy.conf << 'POLICY'
default allow
prio 5 proto tcp dport 7000 allow
prio 10 host denied.test deny
POLICY

# Two rulesets for afwctl load: one small, one with many masks, both
# letting the iperf3 ports and ICMP through by rule.
{
	echo "id 1 prio 0 proto tcp dport 5201-5204 accept"
	echo "id 2 prio 0 proto icmp accept"
	echo "id 3 prio 0 proto icmpv6 accept"
	echo "id 4 prio 5 dir forward proto udp dport 9000-9100 drop"
	echo "id 5 prio 5 dir in proto tcp dport 9999 reject"
} > $work/rules-a
{
	cat $work/rules-a
	for i in $(seq 10 209); do
		echo "id $i prio $((i % 9 + 1)) family ipv4 proto udp from 10.$((i % 7)).0.0/$((16 + i % 9)) dport $((20000 + i)) drop"
	done
	echo "id 300 prio 3 family ipv6 from 2001:db8:1::/64 to 2001:db8:2::/64 proto udp dport 5201 accept"
	echo "id 301 prio 3 dir forward iif rc oif rs proto udp accept"
} > $work/rules-b

# The router's configuration, again after each insmod: unknown flows go
# to afwd on queue 0, and pass while no afwd listens.
configure_router() {
	"$AFWCTL" -n $NS_R config set unknown queue queue 0 fail open max_flows 4096 &&
		"$AFWCTL" -n $NS_R load $work/rules-a
}
check "the router queues unknown flows to afwd, fail-open" configure_router

# Loops stop at the deadline; EPOCHSECONDS costs no fork, and holds in the
# loops that run in a shell of their own inside the router's namespace. A
# loop that has not yet done its thing once goes on, alone with the other
# laggards, for up to AFW_STRESS_GRACE seconds more (default 300): on the
# debug kernel, sharing two CPUs with other guests, the traffic can starve
# the writers for the whole of a short run, and a load that never ran
# tested nothing.
deadline=$(( EPOCHSECONDS + secs ))
hard=$(( deadline + ${AFW_STRESS_GRACE:-300} ))
# going DONE: whether a loop that has done DONE things goes on.
going() { (( EPOCHSECONDS < deadline || ($1 == 0 && EPOCHSECONDS < hard) )); }
# The loads are paced by the kernel's debt, not only by the clock. Every
# object the debug kernel frees keeps its kmemleak and debug-objects
# records until an RCU callback runs, and two emulated CPUs under this
# stress run those callbacks behind the frees (an hour's run ran a 2 GB
# guest out of memory with 1.2 GB of such records). The queue is also
# what synchronize_rcu() waits behind: its own callback comes after every
# one queued before it. With 384 MB allowed, an hour held 450,000
# callbacks a CPU, a grace period took 3 to 6 minutes, and rmmod waited
# 2,859 s behind a replace's (docs/reliability.md); about 480 bytes of
# slab stand for each queued callback. So before a load starts another
# process (a rule writer's afwctl, an iperf3 run, a namespace, an afwd, an
# rmmod), breathe waits while the unreclaimable slab stands more than
# AFW_STRESS_SLAB_MB (default 64, some 130,000 callbacks) above its idle
# size, and counts the seconds it waited. Reading /proc/meminfo with read,
# not a process, keeps the waiting itself from adding to the debt. The
# slab alone did not hold the queue short enough: at 64 MB a grace period
# still took 49 s, and an rmmod, a dozen of them, waited 747 s. So breathe
# also waits while the last grace period gp_loop measured took more than
# AFW_STRESS_GP_MS (default 15,000): then an rmmod's waits stay within the
# hung-task bound below.
slab_unreclaim_mb() {
	local k v _
	while read -r k v _; do
		[ "$k" = SUnreclaim: ] && echo $(( v / 1024 )) && return
	done < /proc/meminfo
}
slab_limit=$(( $(slab_unreclaim_mb) + ${AFW_STRESS_SLAB_MB:-64} ))
# breathe NAME: wait for the slab to come under slab_limit (or the hard
# deadline); the seconds waited go to NAME.breathe.
gp_limit=${AFW_STRESS_GP_MS:-15000}
gp_last() {
	local v=0
	[ -e "$work/gp-last" ] && read -r v < "$work/gp-last"
	echo "${v:-0}"
}
breathe() {
	local t0=$EPOCHSECONDS
	while (( ($(slab_unreclaim_mb) > slab_limit || $(gp_last) > gp_limit) &&
		 EPOCHSECONDS < hard )); do
		sleep 1
	done
	(( EPOCHSECONDS == t0 )) || echo $(( EPOCHSECONDS - t0 )) >> "$work/$1.breathe"
}
export AFWCTL work deadline hard slab_limit gp_limit
# count NAME DONE [TRIED]: what a loop achieved, for the summary.
count() {
	echo "$2" > "$work/$1.count"
	echo "stress: $1: $2 done of ${3:-$2} tried" >&2
}

# iperf_loop NAME ADDR PORT [IPERF3 OPTIONS]: streams from the client until
# the deadline, 5 s each; counts the runs and the bytes received.
iperf_loop() {
	local name=$1 addr=$2 port=$3 runs=0 bytes=0 t b
	shift 3
	while going $bytes; do
		breathe $name
		t=$(( deadline - EPOCHSECONDS ))
		(( t > 5 )) && t=5
		(( t < 2 )) && t=2
		timeout $((t + 20)) ip netns exec $NS_C iperf3 -c $addr -p $port -t $t \
			--connect-timeout 3000 -J "$@" > $work/$name.json 2> $work/$name.err
		# iperf3 killed mid-run, or failing, may print two documents, or none.
		b=$(jq -s 'map(.end.sum_received.bytes // .end.sum.bytes // 0) | add // 0 | floor' \
			$work/$name.json 2> /dev/null)
		[[ "$b" =~ ^[0-9]+$ ]] || b=0
		[ "$b" -gt 0 ] || cat $work/$name.json $work/$name.err > $keep/$name-failed.json
		bytes=$(( bytes + b ))
		runs=$(( runs + 1 ))
		sleep 0.2
	done
	echo "$runs $bytes" > $work/$name.count
	echo "stress: iperf3 $name: $runs runs, $bytes bytes" >&2
}

# started NAME: a writer's first success, which the first reload waits for
# (a writer starved by an early rmmod on a slow kernel would count nothing).
started() {
	[ -e "$work/$1.started" ] || : > "$work/$1.started"
}

# Writer 1, inside the router's namespace: single rules added and deleted by id.
writer_rules() {
	local n=0 i=0
	while going $n; do
		breathe rules-single
		"$AFWCTL" rule add id $((1000 + i % 40)) prio $((i % 7)) \
			dir forward proto udp dport $((9200 + i % 300)) drop > /dev/null 2>&1 &&
			n=$((n + 1)) && started rules-single
		"$AFWCTL" rule add id $((2000 + i % 40)) family ipv6 \
			from 2001:db8:$((i % 3))::/48 proto tcp dport 9999 reject > /dev/null 2>&1 && n=$((n + 1))
		"$AFWCTL" rule del $((1000 + (i + 20) % 40)) > /dev/null 2>&1 && n=$((n + 1))
		"$AFWCTL" rule del $((2000 + (i + 20) % 40)) > /dev/null 2>&1 && n=$((n + 1))
		i=$((i + 1))
	done
	count rules-single $n $((4 * i))
}

# Writer 2, inside the router's namespace: whole rulesets replaced, back and forth.
writer_load() {
	local n=0 i=0 f
	while going $n; do
		breathe rules-load
		f=$work/rules-a
		[ $((i % 2)) = 1 ] && f=$work/rules-b
		"$AFWCTL" load $f > /dev/null 2>&1 && n=$((n + 1)) && started rules-load
		i=$((i + 1))
	done
	count rules-load $n $i
}
export -f writer_rules writer_load count started going breathe slab_unreclaim_mb gp_last

# afwd: started, left to decide flows for 1-3 s, reloaded (it tells the
# module to forget what it taught), and after as long again killed with
# SIGKILL (its socket's close takes the rest).
afwd_loop() {
	local n=0 taught=0 confirmed=0 pid t
	# stat_now NAME FIELD: the module's count FIELD (since its load), a
	# reading added to $work/NAME.txt; true when it shows some.
	stat_now() {
		local v
		v=$("$AFWCTL" -n $NS_R -j stats 2> /dev/null | jq -r "$2 // 0")
		[[ "$v" =~ ^[0-9]+$ ]] || return 1
		echo "$v" >> $work/$1.txt
		(( v > 0 ))
	}
	# learned_now: taught=1 once the module has decided a connection by
	# what afwd taught it; confirmed_now: confirmed=1 once it has
	# confirmed a flow afwd had it hold until its server took the judged
	# bytes. Each always true, for the loops' conditions.
	learned_now() { stat_now learned .learned.flows && taught=1; return 0; }
	confirmed_now() { stat_now confirmed .flow_events.confirmed && confirmed=1; return 0; }
	# afwd_up PID: afwd's control socket is there, or afwd is gone.
	afwd_up() { [ -S $work/afwd.sock ] || ! kill -0 $1 2> /dev/null; }
	# Like the other loads, this one goes on past the deadline (alone with
	# the laggards, up to the hard deadline) until it has done its thing
	# once: here, until the module has decided a connection by what afwd
	# taught it, and confirmed one afwd had it hold. On the debug kernel,
	# with other guests on the host, afwd took more than the 30 s of the
	# run to come up, and no connection was ever decided in the kernel.
	while going $(( taught && confirmed )); do
		breathe afwd
		rm -f $work/afwd.sock
		ip netns exec $NS_R "$AFWD" -q 0 --module on -p $work/policy/policy.conf \
			--ctl $work/afwd.sock 2>> $keep/afwd.log &
		pid=$!
		# Its SIGHUP handler is set once it is up (slow on the debug
		# kernel): a SIGHUP before would end it.
		t=$(( hard - EPOCHSECONDS ))
		(( t > 0 )) || t=1
		if wait_until $t afwd_up $pid && [ -S $work/afwd.sock ]; then
			# Connections of its own to port 7000 while it is up, 2 s
			# at a time, until the module has decided one by what afwd
			# taught it (or for 30 s): the first connection teaches the
			# module, which decides the rest. The short connections of
			# the traffic load may have ended by the time afwd is up,
			# and its first decision can come after 2 s of them.
			t=$(( EPOCHSECONDS + 30 ))
			(( t < hard )) || t=$hard
			while nsx $NS_C "$STRESS" conns $S4 7000 2 10 > /dev/null 2>&1
			      learned_now
			      (( ! taught && EPOCHSECONDS < t )); do
				:
			done
			# Then connections afwd reads, IPv4 and IPv6 at once, 20 a
			# second each for 2 s: the module holds each allow until the
			# server's ACK confirms it, on either CPU, while the other
			# loads run; one in four ends with a reset, some before the
			# ACK, and afwd's SIGKILL leaves some unconfirmed.
			nsx $NS_C "$STRESS" conns $S6 7002 2 20 > /dev/null 2>&1 &
			nsx $NS_C "$STRESS" conns $S4 7002 2 20 > /dev/null 2>&1
			wait $!
			confirmed_now
			sleep $(( 1 + RANDOM % 3 ))
			kill -HUP $pid 2> /dev/null
		fi
		sleep $(( 1 + RANDOM % 3 ))
		learned_now
		kill -9 $pid 2> /dev/null && n=$((n + 1))
		wait $pid 2> /dev/null
	done
	count afwd $n
}

# Namespaces that get a configuration, rules, a flow and traffic, then go.
netns_loop() {
	local n=0 ns
	while going $n; do
		breathe netns
		ns=$NSP-x$((n % 4))
		ip netns add $ns || break
		nsx $ns sh -c '
			ip link set lo up
			"$AFWCTL" config set unknown drop
			"$AFWCTL" rule add proto icmp accept
			"$AFWCTL" rule add proto icmpv6 accept
			"$AFWCTL" flow add proto udp from 127.0.0.1 to 127.0.0.1 sport 1 dport 2 accept
			ping -q -c 20 -i 0.01 127.0.0.1
			ping -6 -q -c 20 -i 0.01 ::1' > /dev/null 2>&1
		# Then a queue whose listener goes with the namespace, a packet
		# waiting in it: afw drains it before its hooks go, or the core
		# warns (module/netns.c).
		"$AFWCTL" -n $ns config set unknown queue queue 5 fail closed > /dev/null 2>&1
		ip netns exec $ns python3 "$AFW_SRC/tests/tools/nfqlisten.py" --verdict none \
			$work/hold-$n.log 5 > /dev/null 2>&1 &
		holder=$!
		for _ in $(seq 40); do
			[ -e $work/hold-$n.log ] && break
			sleep 0.5
		done
		nsx $ns bash -c 'echo held > /dev/udp/127.0.0.1/9' 2> /dev/null
		kill -9 $holder 2> /dev/null
		wait $holder 2> /dev/null
		ip netns del $ns
		n=$((n + 1))
	done
	count netns $n
}

# rmmod_watched: rmmod afw; its complaints go to rmmod-errors.txt and,
# when it takes 10 s or more, where it waits to rmmod-stack.txt, with
# rcu_wait_facts for why.
rmmod_watched() {
	local p i=0
	rmmod afw 2>> $keep/rmmod-errors.txt &
	p=$!
	while kill -0 $p 2> /dev/null; do
		sleep 0.2
		i=$((i + 1))
		if [ $i = 50 ]; then
			cat /proc/$p/stack > $keep/rmmod-stack.txt 2> /dev/null
			rcu_wait_facts > $keep/rcu-wait.txt 2>&1
		fi
	done
	wait $p
}

# rcu_wait_facts: an rmmod waits in rcu_barrier() for every RCU callback
# queued on any CPU before it, afw's or not: the tasks blocked with it and
# where, and over 5 s how often each CPU ran RCU's softirq and how long
# each CPU's callback queue was when it started a batch (rcu_batch_start:
# qlen), the facts that tell a slow drain from a stuck one; then whose
# callbacks they are (rcu_invoke_callback over 2 s, by function).
rcu_wait_facts() {
	local t=/sys/kernel/tracing p
	echo "== blocked tasks"
	# One awk for every task: a process per task takes minutes here.
	for p in $(awk '$3 == "D" { sub(/\/stat$/, "", FILENAME); print FILENAME }' \
			/proc/[0-9]*/stat 2> /dev/null); do
		echo "-- $(cat $p/comm 2> /dev/null) (${p#/proc/})"
		cat $p/stack 2> /dev/null
	done
	echo "== a grace period (synchronize_rcu) now: $(gp_ms) ms"
	echo "== RCU softirqs, then 5 s later"
	grep RCU /proc/softirqs
	[ -d $t/events/rcu ] || mount -t tracefs nodev $t 2> /dev/null
	if [ -e $t/events/rcu/rcu_batch_start/enable ]; then
		echo > $t/trace
		echo 1 > $t/events/rcu/rcu_batch_start/enable
		sleep 5
		echo 0 > $t/events/rcu/rcu_batch_start/enable
		grep RCU /proc/softirqs
		echo "== rcu_batch_start over 5 s: batches and the longest queue, per CPU"
		awk '/rcu_batch_start/ { c = $2; n[c]++; q = $0; sub(/.*CBs=/, "", q); q += 0
			if (q > m[c]) m[c] = q }
			END { for (c in n) print c, n[c], "batches, queue up to", m[c] }' $t/trace
		echo "== the callbacks invoked over 2 s, by function"
		echo > $t/trace
		echo 1 > $t/events/rcu/rcu_invoke_callback/enable
		echo 1 > $t/events/rcu/rcu_invoke_kfree_bulk_callback/enable 2> /dev/null
		sleep 2
		echo 0 > $t/events/rcu/rcu_invoke_callback/enable
		echo 0 > $t/events/rcu/rcu_invoke_kfree_bulk_callback/enable 2> /dev/null
		awk '/rcu_invoke/ { f = $NF; sub(/^func=/, "", f); n[f]++ }
			END { for (f in n) print n[f], f }' $t/trace | sort -rn | head -n 20
	else
		sleep 5
		grep RCU /proc/softirqs
		echo "(no rcu tracepoints)"
	fi
}

# rmmod and insmod every 1 to AFW_STRESS_RELOAD_GAP (default 15) seconds; a
# module busy with a dump is retried. Both wait for namespaces being torn
# down (pernet_ops_rwsem), so they take seconds under this load: the gap
# leaves the module loaded most of the time, for the loads above, and no
# reload starts that would likely outlast the deadline.
reload_loop() {
	local n=0 tries t0 t1 took=0 rm=0 rmmax=0 ins=0 insmax=0 gap=${AFW_STRESS_RELOAD_GAP:-15}
	if has rules; then
		while (( EPOCHSECONDS < hard )) &&
		      ! [ -e $work/rules-single.started -a -e $work/rules-load.started ]; do
			sleep 0.2
		done
	fi
	while :; do
		sleep $(( 1 + RANDOM % gap ))
		breathe reloads
		(( deadline - EPOCHSECONDS > 2 * took + 4 )) ||
			(( n == 0 && EPOCHSECONDS < hard )) || break
		tries=0 t0=$EPOCHSECONDS
		until rmmod_watched; do
			tries=$((tries + 1))
			[ $tries -lt 50 ] || break
			sleep 0.1
		done
		afw_loaded && continue
		t1=$EPOCHSECONDS
		afw_load || { echo "stress: insmod failed" >&2; break; }
		configure_router > /dev/null 2>&1
		took=$(( EPOCHSECONDS - t0 ))
		(( rm += t1 - t0, ins += EPOCHSECONDS - t1 ))
		(( t1 - t0 > rmmax )) && rmmax=$(( t1 - t0 ))
		(( EPOCHSECONDS - t1 > insmax )) && insmax=$(( EPOCHSECONDS - t1 ))
		n=$((n + 1))
	done
	count reloads $n
	echo "$rmmax" > $work/rmmod-max-s.count
	echo "stress: rmmod took ${rm}s in all, ${rmmax}s at most;" \
	     "insmod and configuring ${ins}s in all, ${insmax}s at most" >&2
}

# gp_ms: how long one RCU grace period takes now, in ms: membarrier(2)'s
# MEMBARRIER_CMD_GLOBAL is a synchronize_rcu(). rmmod's rcu_barrier(), and
# the kernel's own waits in namespace and device teardown (lockdep waits a
# grace period per lock class it forgets), are so many of these.
gp_ms() {
	python3 -c 'import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
t = time.monotonic()
libc.syscall(324, 1, 0, 0)
print(int((time.monotonic() - t) * 1000))'
}

# slab_mb: the kernel's unreclaimable slab, and kmemleak's own objects in
# it, in MB. Objects freed through RCU stay there until their callbacks
# run: when the stress frees faster than the CPUs run callbacks, these
# grow (an hour's run on 2 GB ended in the OOM killer at 2,560 s, 984 MB
# of it kmemleak_object).
slab_mb() {
	awk '/^SUnreclaim:/ { printf "%d ", $2 / 1024 }' /proc/meminfo
	awk '$1 == "kmemleak_object" { m = $3 * $4 / 1048576 } END { printf "%d\n", m }' \
		/proc/slabinfo 2> /dev/null
}

# gp_loop: a grace period's length and the slab every 20 s, to gp.txt and
# slab.txt; the last length also to gp-last, which breathe reads.
gp_loop() {
	local g
	while (( EPOCHSECONDS < deadline )); do
		g=$(gp_ms)
		echo "$g" >> $work/gp.txt
		echo "$g" > $work/gp-last.new && mv $work/gp-last.new $work/gp-last
		slab_mb >> $work/slab.txt
		sleep 20
	done
	# Nothing measures past the deadline: laggards breathe by the slab alone.
	rm -f $work/gp-last
}

rx_packets() {
	nsx $NS_R sh -c 'cat /sys/class/net/rc/statistics/rx_packets /sys/class/net/rs/statistics/rx_packets' |
		awk '{ s += $1 } END { print s }'
}

p0=$(rx_packets)
gp_idle=$(gp_ms)
slab_idle=$(slab_mb | tr ' ' /)
stamp "$secs s of stress start"
stamp "loads: $loads"
pids=()
if has traffic; then
	iperf_loop tcp4 $S4 5201 -P 2 -b 10M & pids+=($!)
	iperf_loop tcp6 $S6 5202 -b 10M & pids+=($!)
	iperf_loop udp4 $S4 5203 -u -b 2M & pids+=($!)
	iperf_loop local6 $R6C 5204 -R -b 10M & pids+=($!)
	for a in $S4 $S6 $R4C $R6C; do
		nsx $NS_C "$STRESS" conns $a 7000 $secs 15 > $work/conns-$a.out 2>&1 & pids+=($!)
	done
fi
if has flows; then
	nsx $NS_R "$STRESS" flows $secs $RANDOM 200 > $work/flows.out 2>&1 & pids+=($!)
fi
if has rules; then
	nsx $NS_R bash -c writer_rules & pids+=($!)
	nsx $NS_R bash -c writer_load & pids+=($!)
fi
has afwd && { afwd_loop & pids+=($!); }
has netns && { netns_loop & pids+=($!); }
has reload && { reload_loop & pids+=($!); }
gp_loop & pids+=($!)
for p in "${pids[@]}"; do
	wait $p
done
stamp "every load has stopped"
for f in $work/*.breathe; do
	[ -e "$f" ] || continue
	f=${f##*/}
	echo "stress: ${f%.breathe} waited $(awk '{ s += $1 } END { print s }' $work/$f) s" \
	     "for the slab to come under ${slab_limit} MB" >&2
done
elapsed=$(( secs + EPOCHSECONDS - deadline ))
packets=$(( $(rx_packets) - p0 ))

afw_loaded || afw_load
check "afwctl status answers after the stress" "$AFWCTL" -n $NS_R status

num() { cat "$work/$1.count" 2> /dev/null || echo 0; }
rules=$(( $(num rules-single) + $(num rules-load) ))
flows=$(sed -n 's/^flows: added \([0-9]*\).*/\1/p' $work/flows.out 2> /dev/null)
flowdel=$(sed -n 's/^flows: .* deleted \([0-9]*\).*/\1/p' $work/flows.out 2> /dev/null)
conns=0 iperf_runs=0 iperf_bytes=0
if has traffic; then
	for a in $S4 $S6 $R4C $R6C; do
		c=$(sed -n 's/^conns: tcp \([0-9]*\)\/.* udp \([0-9]*\)\/.*/\1 \2/p' $work/conns-$a.out)
		check_ge "short TCP and UDP exchanges with $a succeeded" 1 \
			"$(awk '{ print $1 + $2 }' <<< "$c")"
		conns=$(( conns + $(awk '{ print $1 + $2 }' <<< "${c:-0 0}") ))
	done
	for s in tcp4 tcp6 udp4 local6; do
		read -r r b < $work/$s.count
		check_ge "iperf3 $s moved data" 1 "$b"
		iperf_runs=$(( iperf_runs + r )) iperf_bytes=$(( iperf_bytes + b ))
	done
	check_ge "packets crossed the router" 1000 $packets
fi
has rules && check_ge "rules were changed" 1 $rules
has rules && check_ge "rulesets were replaced" 1 "$(num rules-load)"
has flows && check_ge "flows were added" 1 "${flows:-0}"
has afwd && check_ge "afwd was killed and restarted" 1 "$(num afwd)"
learned=$(sort -n $work/learned.txt 2> /dev/null | tail -n 1)
has afwd && has traffic &&
	check_ge "the kernel decided connections by what afwd taught it" 1 "${learned:-0}"
confirmed=$(sort -n $work/confirmed.txt 2> /dev/null | tail -n 1)
has afwd && check_ge "the module confirmed flows afwd had it hold" 1 "${confirmed:-0}"
has netns && check_ge "namespaces came and went" 1 "$(num netns)"
has reload && check_ge "the module was reloaded" 1 "$(num reloads)"

summary="duration_s=$elapsed rules_changed=$rules rulesets_loaded=$(num rules-load)"
summary+=" flows_added=${flows:-0} flows_deleted=${flowdel:-0} afwd_restarts=$(num afwd)"
summary+=" learned_flows_max=${learned:-0} confirmed_flows_max=${confirmed:-0} afwd_reloads=$(cat $keep/afwd.log 2> /dev/null | grep -c '^afwd: reloaded')"
summary+=" netns_cycles=$(num netns) module_reloads=$(num reloads) router_packets=$packets"
summary+=" iperf_runs=$iperf_runs iperf_bytes=$iperf_bytes short_exchanges=$conns"
summary+=" rmmod_max_s=$(num rmmod-max-s) slab_mb_idle=$slab_idle slab_mb_max=$(sort -n $work/slab.txt 2> /dev/null |
	tail -n 1 | tr ' ' /)"
summary+=" paced_s=$(cat $work/*.breathe 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')"
summary+=" gp_ms_idle=$gp_idle gp_ms_under_stress=$(sort -n $work/gp.txt 2> /dev/null |
	awk '{ v[NR] = $1 } END { if (NR) printf "%d/%d/%d", v[1], v[int((NR + 1) / 2)], v[NR] }')"
echo "$summary" | tee "$AFW_LOGDIR/stress-summary.txt" >&2
cat $work/flows.out $work/conns-*.out >&2 2> /dev/null
check "the stress ran its ${secs}s: $summary" test "$elapsed" -ge "$secs"

stamp "checks done; the module and the namespaces go next"
exit $AFW_FAILED
