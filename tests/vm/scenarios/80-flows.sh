#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The flow verdict cache: an installed flow bypasses the rules in both
# directions, ages out, closes early after FIN, and a flood of new flows
# neither overfills the table nor pushes out an established flow.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo=$AFW_SRC/tests/tools/tcpecho.py
nsx $NS_S python3 $echo server $S4 5201 &
on_exit "kill $!"
wait_listen $NS_S tcp :5201

# tcp_from PORT [SECONDS]: a TCP echo exchange from client port PORT.
tcp_from() { nsx $NS_C timeout 60 python3 $echo client $S4 5201 "$1" "${2:-0}"; }
flows() { "$AFWCTL" -n $NS_R -j flow list; }

"$AFWCTL" -n $NS_R rule add dir forward proto tcp dport 5201 drop
"$AFWCTL" -n $NS_R rule add dir forward proto tcp sport 5201 drop
check_fails "the rules block the echo service" tcp_from 40000

for p in 40000 40001; do
	"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport $p dport 5201 accept
done
# Written from the server's side: the same flow, the other direction.
"$AFWCTL" -n $NS_R flow add proto tcp from $S4 to $C4 sport 5201 dport 40003 accept timeout 600
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 40002 dport 5201 accept timeout 60
check_eq "four flows are listed" 4 "$(flows | jq length)"
check_eq "flow list -j carries each field, and the flow as flow add reads it" \
	"ipv4 tcp 60 proto tcp from $C4 to $S4 sport 40002 dport 5201 accept" \
	"$(flows | jq -r '.[] | select(.sport == 40002 or .dport == 40002) |
		"\(.family) \(.proto) \(.timeout) \(.flow)"' | sed "s/from $S4 to $C4 sport 5201 dport 40002/from $C4 to $S4 sport 40002 dport 5201/")"
check "installed flows let TCP through the drop rules" tcp_from 40000 1
check_ge "the flow counted both directions" 10 \
	"$(flows | jq '[.[] | select(.sport == 40000 or .dport == 40000) | .packets] | add')"
check "a flow written in reverse matches too" tcp_from 40003
check_fails "another port is still blocked" tcp_from 40010

# After the FIN the flow lingers at most 10 s, whatever its timeout. Added
# again, for 60 s from now: the checks above took over a minute on the debug
# kernel in a busy CI run, and its first 60 s ran out.
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 40002 dport 5201 accept timeout 60
check "a flow with a 60 s timeout" tcp_from 40002
left=$(flows | jq '[.[] | select(.sport == 40002 or .dport == 40002) | .expires] | max')
check "after its FIN, its expiry is cut from 60 s to at most 10 s (left: $left s)" \
	test "$left" -ge 0 -a "$left" -le 10

# Long enough to be listed on the slowest kernel (the debug one, loaded).
"$AFWCTL" -n $NS_R flow add proto udp from $C4 to $S4 sport 999 dport 53 drop timeout 6
check "a 6 s flow is listed" test "$(flows | jq '[.[] | select(.dport == 53)] | length')" = 1
wait_until 12 sh -c "[ \"\$($AFWCTL -n $NS_R -j flow list | jq '[.[] | select(.dport == 53)] | length')\" = 0 ]"
check_eq "and ages out by itself" 0 "$(flows | jq '[.[] | select(.dport == 53)] | length')"

check "an unused flow still lets TCP through" tcp_from 40001 1
check "flow del removes it" "$AFWCTL" -n $NS_R flow del proto tcp from $C4 to $S4 sport 40001 dport 5201
check_fails "and its traffic is blocked again" tcp_from 40001
out=$("$AFWCTL" -n $NS_R flow del proto tcp from $C4 to $S4 sport 40001 dport 5201 2>&1)
check_grep "deleting a missing flow says so" "no such flow" "$out"

# A flow changed or taken away while its packets pass: the very next ones
# follow the change. Each CPU's hook keeps the flow it found last for the
# packets after it (afw_flow_find()); a flow that left the table must not
# live on there.
work=$(mktemp -d)
on_exit "rm -rf $work"
# talking PORT: a connection from PORT that sends a line every 0.2 s for two
# minutes, how many came back so far in $work/PORT; its pid in $talker.
talking() {
	ip netns exec $NS_C timeout 150 python3 $echo client $S4 5201 "$1" 120 "$work/$1" &
	talker=$!
}
lines() { cat "$work/$1" 2> /dev/null || echo 0; }
lines_past() { [ "$(lines "$1")" -ge "$2" ]; }
# stopped PORT: no more than the line in flight comes back over 3 s.
stopped() {
	local n0
	n0=$(lines "$1")
	sleep 3
	[ "$(lines "$1")" -le $((n0 + 1)) ]
}
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 40004 dport 5201 accept
talking 40004
check "a connection talks through its flow" wait_until 60 lines_past 40004 5
check "and is still talking" kill -0 $talker
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 40004 dport 5201 drop
check "replaced by a drop while it talks, the flow stops it at once" stopped 40004
# The line the client sends again meanwhile meets the new flow: a stale
# hint would count it on the old one, or leave it to the rules.
check_ge "and the drop flow took what was sent again" 1 \
	"$(flows | jq '[.[] | select(.sport == 40004 or .dport == 40004) | .packets] | add // 0')"
kill $talker 2> /dev/null
wait $talker 2> /dev/null
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 40005 dport 5201 accept
talking 40005
check "another connection talks through its flow" wait_until 60 lines_past 40005 5
check "and is still talking" kill -0 $talker
"$AFWCTL" -n $NS_R flow del proto tcp from $C4 to $S4 sport 40005 dport 5201
check "deleted while it talks, the flow leaves it to the drop rules at once" stopped 40005
kill $talker 2> /dev/null
wait $talker 2> /dev/null
out=$("$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 accept 2>&1)
check_grep "a tcp flow without ports is refused" "needs sport and dport" "$out"
check "flow flush" "$AFWCTL" -n $NS_R flow flush
check_eq "no flows after flush" 0 "$(flows | jq length)"

# Bounds: an assured flow (it has had an answer) survives a flood of new ones.
check "max_flows 1000" "$AFWCTL" -n $NS_R config set max_flows 1000
# A minute each: sooner than the flood's UDP flows (two minutes), so the
# idle one is the first an insert into the full table evicts.
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 41000 dport 5201 accept timeout 60
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 41001 dport 5201 accept timeout 60
# A live connection that talks all through the flood.
# Not through nsx: a function would put a shell between $! and python.
ip netns exec $NS_C python3 $echo client $S4 5201 41000 3600 &
live=$!
live_talks() { [ "$(flows | jq '[.[] | select(.sport == 41000) | .packets] | add // 0')" -ge 8 ]; }
wait_until 10 live_talks
flood=${AFW_FLOW_FLOOD:-100000}
start=$(date +%s)
out=$(nsx $NS_R python3 "$AFW_SRC/tests/tools/nlprobe.py" flow-flood $flood)
echo "flood of $flood flows: $out in $(( $(date +%s) - start )) s" >&2
check_grep "the flood of $flood new flows was taken, evicting its own kind" "^took $flood refused 0" "$out"
check_ge "the table never holds more than max_flows" "$(flows | jq length)" 1000
check_eq "the established flow is still there" 1 \
	"$(flows | jq '[.[] | select(.sport == 41000)] | length')"
check_eq "the idle flow, unassured and expiring first, was evicted" 0 \
	"$(flows | jq '[.[] | select(.sport == 41001)] | length')"
kill $live 2>/dev/null
check "the live connection never lost a reply" wait $live

check "max_flows 2" "$AFWCTL" -n $NS_R config set max_flows 2
"$AFWCTL" -n $NS_R flow flush
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 42000 dport 5201 accept
"$AFWCTL" -n $NS_R flow add proto tcp from $C4 to $S4 sport 42002 dport 5201 accept
# Two connections that stay open: a closed one lingers 10 s at most, which
# a slow kernel can spend before the next line runs.
ip netns exec $NS_C python3 $echo client $S4 5201 42000 3600 &
l1=$!
ip netns exec $NS_C python3 $echo client $S4 5201 42002 3600 &
l2=$!
both_established() {
	[ "$(flows | jq '[.[] | select((.sport == 42000 or .sport == 42002) and
		.packets >= 4)] | length')" = 2 ]
}
# A minute: two Python clients took longer than 20 s to start on the debug
# kernel in a busy CI run, and the table then had room to evict.
check "both connections pass their flows" wait_until 60 both_established
out=$("$AFWCTL" -n $NS_R flow add proto udp from $C4 to $S4 sport 1 dport 53 accept 2>&1)
check_grep "a table full of assured flows refuses new ones" "full of assured flows" "$out"
kill $l1 $l2 2>/dev/null
wait $l1 $l2 2>/dev/null

exit $AFW_FAILED
