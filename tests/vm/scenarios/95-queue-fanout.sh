#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unknown flows fanned out over queues 0-3 with a real listener: both
# directions of every flow reach one and the same queue, forwarded and local
# alike, and the fail modes hold with the listener present, killed and back.
# An inspect flow with a queue of its own goes there, both ways, and nowhere
# else.
. "$AFW_SRC/tests/vm/lib.sh"

listen=$AFW_SRC/tests/tools/nfqlisten.py
echo=$AFW_SRC/tests/tools/echoflows.py
# The listeners' logs go back to the host with the scenario's own log.
logdir=${AFW_LOGDIR:-/tmp}/95-queue-fanout
rm -rf "$logdir"
mkdir -p "$logdir"

check "insmod afw.ko" afw_load
on_exit afw_unload
# A module on Debian's kernels, built in on the debug kernel.
check "nfnetlink_queue is there" sh -c \
	'modprobe -q nfnetlink_queue 2> /dev/null; [ -e /proc/net/netfilter/nfnetlink_queue ]'
topo_routed || not_ok "routed topology comes up" "ping across the router failed"

# listener_start NS LOG [--verdict V]: a listener on queues 0-3 (and any in
# $more_queues) in NS; its pid goes to $lpid. Returns once every queue is
# bound.
lpid=
listener_start() {
	local ns=$1 log=$2
	shift 2
	# Not through nsx: $! must be the listener itself, for kill to reach it.
	ip netns exec "$ns" python3 "$listen" "$@" "$log" 0-3 ${more_queues:-} 2> "$log.err" &
	lpid=$!
	on_exit kill "$lpid"
	wait_until 60 test -e "$log"
}

# listener_stop: SIGTERM, then the listener's exit status.
listener_stop() {
	kill "$lpid" && wait "$lpid"
}

serving() { [ "$(nsx $NS_S ss -Hltnu 'sport = :7000' | wc -l)" -ge 4 ]; }
nsx $NS_S python3 "$echo" server $S4 7000 &
nsx $NS_S python3 "$echo" server $S6 7000 &
check "echo servers listen" wait_until 60 serving

# flows DST SPORT COUNT: COUNT TCP connections and UDP exchanges from the
# client, printing how many came back.
flows() { nsx $NS_C python3 "$echo" client "$1" 7000 "$2" "$3"; }

# fanout LOG PROTO-REGEX: "flows N split N oneway N queues N" for the flows
# to port 7000 in LOG: flows seen, flows seen on more than one queue, flows
# seen in one direction only, queues used.
fanout() {
	awk -v re="$2" '
	$2 ~ re && ($4 == 7000 || $6 == 7000) {
		a = $3 " " $4; b = $5 " " $6
		k = $2 " " (a < b ? a " " b : b " " a)
		if (!(k in q)) {
			q[k] = $1
			n++
		} else if (q[k] != $1) {
			multi[k] = 1
		}
		dirs[k, a < b] = 1
		used[$1] = 1
	}
	END {
		for (k in q) {
			s += (k in multi)
			o += !((k, 0) in dirs) || !((k, 1) in dirs)
		}
		for (u in used)
			nq++
		printf "flows %d split %d oneway %d queues %d\n", n, s, o, nq
	}' "$1"
}

# check_fanout WHAT LOG PROTO-REGEX FLOWS: every flow seen both ways, each
# on one queue, and the flows spread over more than one queue.
check_fanout() {
	local r
	r=$(fanout "$2" "$3")
	check_eq "$1: the listener saw all $4 flows" "$4" "$(awk '{ print $2 }' <<< "$r")"
	check_eq "$1: no flow was split over two queues" 0 "$(awk '{ print $4 }' <<< "$r")"
	check_eq "$1: both directions of every flow were queued" 0 "$(awk '{ print $6 }' <<< "$r")"
	check_ge "$1: more than one queue was used" 2 "$(awk '{ print $8 }' <<< "$r")"
}

queued() { "$AFWCTL" -n $NS_R -j status | jq .queued; }

# Forwarded: the router queues both directions at FORWARD.
check "router: unknown queue 0-3, fail closed" \
	"$AFWCTL" -n $NS_R config set unknown queue queue 0-3 fail closed
check "a listener binds queues 0-3 in the router" listener_start $NS_R "$logdir/forward.log"
check_eq "forwarded IPv4 flows complete through the listener" "tcp 32/32 udp 32/32" \
	"$(flows $S4 41000 32)"
check_eq "forwarded IPv6 flows complete through the listener" "tcp 16/16 udp 16/16" \
	"$(flows $S6 41100 16)"
check_fanout "forward" "$logdir/forward.log" "^(tcp|udp)$" 96
check "the listener ends cleanly on SIGTERM" listener_stop
"$AFWCTL" -n $NS_R config set unknown accept

# Local: the server queues what it receives at LOCAL_IN and what it sends at
# LOCAL_OUT.
check "server: unknown queue 0-3, fail closed" \
	"$AFWCTL" -n $NS_S config set unknown queue queue 0-3 fail closed
check "a listener binds queues 0-3 in the server" listener_start $NS_S "$logdir/local.log"
check_eq "local IPv4 flows complete through the listener" "tcp 32/32 udp 32/32" \
	"$(flows $S4 42000 32)"
check_eq "local IPv6 flows complete through the listener" "tcp 16/16 udp 16/16" \
	"$(flows $S6 42100 16)"
check_fanout "in/out" "$logdir/local.log" "^(tcp|udp)$" 96
listener_stop
"$AFWCTL" -n $NS_S config set unknown accept

# Fail modes on the router, IPv4 only: IPv6 neighbour discovery to the
# router is queued too, and would itself fail closed.
check "router: unknown queue 0-3, fail open" \
	"$AFWCTL" -n $NS_R config set unknown queue fail open
check "a listener binds again" listener_start $NS_R "$logdir/open.log"
check_eq "fail-open with a listener: flows complete" "tcp 4/4 udp 4/4" "$(flows $S4 43000 4)"
check_eq "fail-open with a listener: the listener saw every flow" "flows 8" \
	"$(fanout "$logdir/open.log" "^(tcp|udp)$" | cut -d' ' -f1-2)"
check "the listener is killed" listener_stop
before=$(queued)
check_eq "fail-open without a listener: flows complete" "tcp 4/4 udp 4/4" "$(flows $S4 43100 4)"
check_ge "and afw still handed them to NFQUEUE" $((before + 16)) "$(queued)"
check "fail closed" "$AFWCTL" -n $NS_R config set fail closed
check_eq "fail-closed without a listener: flows are dropped" "tcp 0/1 udp 0/1" \
	"$(flows $S4 43200 1)"
check "a listener binds after the kill" listener_start $NS_R "$logdir/again.log"
check_eq "with the listener back, flows complete again" "tcp 4/4 udp 4/4" "$(flows $S4 43300 4)"
check_eq "and the listener saw every flow" "flows 8 split 0 oneway 0" \
	"$(fanout "$logdir/again.log" "^(tcp|udp)$" | cut -d' ' -f1-6)"
listener_stop
check "fail open" "$AFWCTL" -n $NS_R config set fail open
check "a listener that drops binds" listener_start $NS_R "$logdir/drop.log" --verdict drop
check_eq "fail-open does not override a listener's drop" "tcp 0/1 udp 0/1" "$(flows $S4 43400 1)"
check_grep "the dropping listener saw the flows" "^[0-3] tcp $C4 43400 $S4 7000$" \
	"$(cat "$logdir/drop.log")"
listener_stop

# A queue rule fans out like the unknown policy, even when no rule and no
# flow needs the ports for itself.
"$AFWCTL" -n $NS_R config set unknown accept queue 0-3 fail closed
check "a queue rule for forwarded TCP" "$AFWCTL" -n $NS_R rule add dir forward proto tcp queue
check "a listener binds for the rule" listener_start $NS_R "$logdir/rule.log"
check_eq "queued TCP flows complete" "tcp 32/32 udp 32/32" "$(flows $S4 44000 32)"
check_fanout "queue rule" "$logdir/rule.log" "^tcp$" 32
listener_stop

# Connections under way keep their queue when the first flow entry appears,
# although from then on the hook reads the ports for the flow lookup too.
check "a listener binds for long connections" listener_start $NS_R "$logdir/rule-flow.log"
# all_connected: the listener has seen all four connections.
all_connected() {
	[ "$(awk '$4 ~ /^4500[0-3]$/ { print $4 }' "$logdir/rule-flow.log" | sort -u | wc -l)" = 4 ]
}
# The connections echo until stopped, so that however slow the guest, they
# all run across the flow entry's arrival: ones that had ended before it
# would pass the checks below without testing anything.
sports="45000 45001 45002 45003"
pids=()
for sport in $sports; do
	# Not through nsx: $! must be the client itself, which SIGTERM ends
	# cleanly (exit 0 when every line came back).
	ip netns exec $NS_C python3 "$AFW_SRC/tests/tools/tcpecho.py" client $S4 7000 $sport 600 \
		"$logdir/echoed-$sport" &
	pids+=($!)
done
# echoed SPORT: lines the connection from SPORT has had back so far.
echoed() { cat "$logdir/echoed-$1" 2> /dev/null || echo 0; }
# Four python3 clients: on a starved CPU (a 6.1 boot at nice 10 beside the
# debug kernel's and more) they took over 30 s to connect.
check "four long connections start" wait_until 90 all_connected
running=0
for pid in "${pids[@]}"; do
	kill -0 "$pid" 2> /dev/null && running=$((running + 1))
done
check_eq "all four run when the flow entry is added" 4 "$running"
declare -A before
for sport in $sports; do
	before[$sport]=$(echoed $sport)
done
check "an unrelated flow entry is added meanwhile" "$AFWCTL" -n $NS_R flow add \
	proto udp from 192.0.2.99 sport 9 to 198.51.100.99 dport 9 accept
# echo_on: every connection has had two more lines back since then.
echo_on() {
	local sport
	for sport in $sports; do
		[ "$(echoed $sport)" -ge $((before[$sport] + 2)) ] || return 1
	done
}
check "each goes on echoing after it" wait_until 30 echo_on
kill -TERM "${pids[@]}" 2> /dev/null
failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || failed=$((failed + 1))
done
check_eq "the long connections all complete" 0 "$failed"
check_eq "and each stayed on one queue, both ways" "flows 4 split 0 oneway 0" \
	"$(fanout "$logdir/rule-flow.log" "^tcp$" | cut -d' ' -f1-6)"
listener_stop
"$AFWCTL" -n $NS_R flow flush
"$AFWCTL" -n $NS_R rule flush

# An inspect flow's own queue (FLOW_NEW's AFW_FLOW_A_QUEUE), as a listener
# that wants other bytes of a flow's packets (afwd: headers only) binds it:
# the flow's packets go there both ways, and those of a plain inspect flow
# to the fan-out as before.
"$AFWCTL" -n $NS_R config set unknown accept queue 0-3 fail closed
for p in tcp udp; do
	check "an inspect $p flow with queue 40 of its own" "$AFWCTL" -n $NS_R flow add \
		proto $p from $C4 sport 46000 to $S4 dport 7000 inspect queue 40
	check "and one without" "$AFWCTL" -n $NS_R flow add \
		proto $p from $C4 sport 46001 to $S4 dport 7000 inspect
done
check_eq "flow list shows the queue, and only for the one that has it" "40 null" \
	"$("$AFWCTL" -n $NS_R -j flow list |
	   jq -r '[.[] | select(.proto == "udp" and .dport == 7000) | {s: .sport, q: .queue}] |
		  sort_by(.s) | map(.q) | map(tostring) | join(" ")')"
check_grep "and so does its text" "^udp .* inspect:40 " "$("$AFWCTL" -n $NS_R flow list)"
more_queues=40 listener_start $NS_R "$logdir/own.log"
check_eq "both flows' exchanges complete through the listener" "tcp 2/2 udp 2/2" \
	"$(flows $S4 46000 2)"
# own SPORT PROTO: the queues the flow from SPORT was seen on, both ways.
own() {
	awk -v s="$1" -v p="$2" '$2 == p && ($4 == s || $6 == s) { print $1 ($4 == s ? ">" : "<") }' \
		"$logdir/own.log" | sort -u | xargs
}
for p in tcp udp; do
	check_eq "$p: the flow with its own queue went to queue 40 both ways, only there" \
		"40< 40>" "$(own 46000 $p)"
	check_grep "$p: the plain inspect flow went to one of 0-3 both ways" \
		"^([0-3])< \1>$" "$(own 46001 $p)"
done
listener_stop
# The fail mode, on new UDP flows (their TCP twins are unknown: accepted).
"$AFWCTL" -n $NS_R flow add proto udp from $C4 sport 46010 to $S4 dport 7000 inspect queue 40
check_eq "with nobody on queue 40, fail closed drops the flow's packets" "tcp 1/1 udp 0/1" \
	"$(flows $S4 46010 1)"
check "fail open" "$AFWCTL" -n $NS_R config set fail open
"$AFWCTL" -n $NS_R flow add proto udp from $C4 sport 46020 to $S4 dport 7000 inspect queue 40
check_eq "and fail open passes them" "tcp 1/1 udp 1/1" "$(flows $S4 46020 1)"
check_fails "a queue of its own with another verdict is refused" "$AFWCTL" -n $NS_R flow add \
	proto udp from $C4 sport 46002 to $S4 dport 7000 accept queue 40
"$AFWCTL" -n $NS_R flow flush
"$AFWCTL" -n $NS_R config set unknown accept

exit $AFW_FAILED
