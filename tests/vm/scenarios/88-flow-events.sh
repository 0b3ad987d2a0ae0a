#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flow events: afwctl flow watch hears each flow as it is installed (by an
# accept rule, with its owner; by flow add), as it carries packets (its
# counts, about every 5 s) and as it ends (deleted, flushed), the end with
# its last counts; JSON and text alike. Joining the group takes
# CAP_NET_ADMIN over the namespace.
. "$AFW_SRC/tests/vm/lib.sh"
work=$(mktemp -d)
on_exit rm -rf "$work"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo_server $NS_S $S4 5201

c() { "$AFWCTL" -n $NS_C "$@"; }
# ev_has COND: whether any event the JSON watcher wrote meets COND. (jq -e
# over many inputs says only whether the last one gave a result.)
ev_has() { jq -n -e "[inputs | select($1)] | length > 0" $work/ev.json > /dev/null; }
check "unknown drop, and a rule that installs the client's flows" \
	c rule add dir out proto tcp dport 5201 accept
c config set unknown drop

c -j flow watch > $work/ev.json 2> $work/ev.err &
on_exit "kill $!"
c flow watch > $work/ev.txt 2> /dev/null &
on_exit "kill $!"
# A flow added until both watchers have heard one: then they have joined.
heard() {
	c flow add proto udp from $C4 to $S4 sport 1 dport 2 accept
	ev_has '.event == "new" and .flow.sport == 1' &&
		grep -q '^new  udp' $work/ev.txt
}
check "the watchers hear a flow add" wait_until 20 heard
# A watcher that joined between two adds hears the first one's end (the
# second replaced it) before any start: the start is what is checked.
check_eq "as a new flow of origin control (flow add)" "new control accept" \
	"$(jq -r 'select(.flow.sport == 1 and .event == "new") |
		"\(.event) \(.flow.origin) \(.flow.verdict)"' $work/ev.json | head -1)"

check "a connection the rule passes" \
	nsenter --net=/run/netns/$NS_C timeout 10 bash -c \
	"exec 3<>/dev/tcp/$S4/5201 && echo x >&3 && read -t 5 r <&3"
tcp_new() { ev_has '.event == "new" and .flow.dport == 5201'; }
check "its flow is heard as it is installed" wait_until 10 tcp_new
check_eq "by the rule, with the process that made it" "rule bash /usr/bin/bash" \
	"$(jq -r 'select(.event == "new" and .flow.dport == 5201) |
		"\(.flow.origin) \(.flow.owner.comm) \(.flow.owner.exe)"' $work/ev.json | head -1)"

# (A flow added again replaced the one before, which ended then.)
udp_ends() { jq -s '[.[] | select(.event == "end" and .flow.sport == 1)] | length' $work/ev.json; }
before=$(udp_ends)
check "flow del" c flow del proto udp from $C4 to $S4 sport 1 dport 2
udp_end() { [ "$(udp_ends)" -gt "$before" ]; }
check "a deleted flow is heard as it ends" wait_until 10 udp_end
check "flow flush" c flow flush
tcp_end() { ev_has '.event == "end" and .flow.dport == 5201'; }
check "a flushed flow is heard as it ends" wait_until 10 tcp_end
check_ge "with its last counts: the whole connection's packets" 6 \
	"$(jq 'select(.event == "end" and .flow.dport == 5201) | .flow.packets' $work/ev.json |
		head -1)"
check_grep "the text form says the same, a line each" \
	"^end  tcp +$C4 +[0-9]+ +$S4 +5201 accept " "$(cat $work/ev.txt)"
check_eq "and nothing was lost" "" "$(cat $work/ev.err)"

# A flow that carries packets is told again with its counts ("live") as
# the collector passes it, about every 5 s, while it lasts.
nsenter --net=/run/netns/$NS_C timeout 40 bash -c "exec 3<>/dev/tcp/$S4/5201 &&
	for i in \$(seq 30); do echo x >&3; read -t 5 r <&3; sleep 0.5; done" &
long=$!
live_seen() { ev_has '.event == "live" and .flow.dport == 5201 and .flow.packets >= 4'; }
check "a long connection is heard live, with its counts growing" wait_until 30 live_seen
check "and its counts grow from one telling to the next" wait_until 30 bash -c \
	"jq -s '[.[] | select(.event == \"live\" and .flow.dport == 5201) | .flow.packets] |
		length >= 2 and .[-1] > .[0]' $work/ev.json | grep -q true"
check_grep "the text form says live" "^live tcp +$C4 +[0-9]+ +$S4 +5201 accept " "$(cat $work/ev.txt)"
kill $long 2> /dev/null

# More live flows than a walk tells (512): the walks take turns, and each
# flow is heard live within a few of them, not only the first 512 in the
# table's order. 600 UDP flows, a datagram each every second, heard by a
# watcher of their own (the first one's file is long by now, and jq reads
# it slowly on the debug kernel).
c -j flow watch > $work/many.json 2> $work/many.err &
on_exit "kill $!"
check "a rule for 600 UDP flows" c rule add dir out proto udp dport 20000-20599 accept
nsx $NS_C timeout 180 python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(180):
    for p in range(20000, 20600):
        s.sendto(b'x', ('$S4', p))
    time.sleep(1)" &
many=$!
on_exit "kill $many"
# A flow is live in a walk only if a datagram of it came since the walk
# before: on a loaded machine the sender's rounds lag, and it takes more
# walks. Read every 3 s: jq on the growing file is slow there too.
many_told() {
	[ "$(jq -n '[inputs | select(.event == "live" and .flow.proto == "udp" and
		.flow.dport >= 20000 and .flow.dport < 20600) | .flow.dport] | unique | length' \
		$work/many.json)" = 600 ] || { sleep 3; false; }
}
check "each of 600 live flows is heard live, the walks taking turns" wait_until 150 many_told
check_eq "and none of their events was lost" "" "$(cat $work/many.err)"
kill $many 2> /dev/null

out=$(nsx $NS_C setpriv --reuid=1001 --regid=1001 --clear-groups "$AFWCTL" flow watch 2>&1)
check_grep "a user without CAP_NET_ADMIN may not listen" "flow watch: permission denied" "$out"
