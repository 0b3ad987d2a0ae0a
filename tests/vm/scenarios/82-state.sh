#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flow state, kept as conntrack would keep it, through a router whose
# unknown policy is drop:
# - an accept rule's connection gets its replies, and the ICMP errors about
#   it (path MTU discovery), through the flow the rule installs;
# - neighbour discovery keeps IPv6 alive, unless a rule says otherwise;
# - a new connection on a decided 5-tuple is judged afresh, while the SYN
#   that made a flow, sent again, still belongs to it;
# - a drop stays a drop: the FINs and RSTs it drops do not end it;
# - a RST outside the window does not end an accepted flow, FINs both ways do;
# - a QUIC Initial on a UDP flow afwd allowed goes back to the queue;
# - a ping is its identifier's flow: a rule that passes the requests lets
#   their replies and the errors about them back (to the pinger alone),
#   and nothing else, forwarded or on the pinging host;
# - a reject rule without ports refuses connections with afw's own RST;
# - flows time out by protocol, and list as their initiator sees them.
. "$AFW_SRC/tests/vm/lib.sh"
ECHO=$AFW_SRC/tests/tools/tcpecho.py
work=$(mktemp -d)
on_exit rm -rf "$work"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
RMAC=$(nsx $NS_R cat /sys/class/net/rc/address)
r() { "$AFWCTL" -n $NS_R "$@"; }
flows() { r -j flow list; }
stat() { r -j stats | jq -r ".$1"; }
# flow_of SPORT FIELD: a field of the flow whose ends include port SPORT.
flow_of() { flows | jq -r --argjson p "$1" "[.[] | select(.sport == \$p or .dport == \$p)][0].$2"; }

# One sender in the client's namespace (lib.sh); tcp_seg sends a TCP
# segment from the client to the server through the router.
craft_start $NS_C
tcp_seg() { craft --proto tcp "$@" c0 $RMAC $C4 $S4; }

nsx $NS_S python3 $ECHO server $S4 5202 &
on_exit "kill $!"
wait_listen $NS_S tcp :5202
# tcp_from SPORT [SECONDS [PROGRESS]]: one echo client (tcpecho.py).
tcp_from() { nsx $NS_C timeout 150 python3 $ECHO client $S4 5202 "$1" "${2:-0}" ${3:+"$3"}; }
# up/down ADDR N: N bytes to (from) the server's port 5201, counted exactly
# where they arrive (lib.sh). A flow whose replies are dropped stalls in its
# first window and arrives short.
up() { bytes_up $NS_C $NS_S "$1" 5201 "$2"; }
down() { bytes_down $NS_C $NS_S "$1" 5201 "$2"; }

# Replies: the client's connections to 5201 are accepted, nothing else is.
check "unknown drop, and a rule for the client's connections to 5201" sh -c "
	$AFWCTL -n $NS_R config set unknown drop &&
	$AFWCTL -n $NS_R rule add id 1 dir forward proto tcp dport 5201 accept"
check_eq "2 MiB upload: the replies pass by the rule's flow" 2097152 "$(up $S4 2097152)"
check_eq "2 MiB download, 64 KiB and far beyond" 2097152 "$(down $S4 2097152)"
check_eq "IPv6 too" 2097152 "$(down $S6 2097152)"
check_ge "the flows are rule 1's, and assured" 1 \
	"$(flows | jq '[.[] | select(.origin == "rule" and .rule == 1 and .dport == 5201 and .assured)] | length')"
check_ge "stats count them" 2 "$(stat flow_events.by_rule)"
nsx $NS_C python3 $ECHO server $C4 6000 &
on_exit "kill $!"
wait_listen $NS_C tcp :6000
check_fails "a connection the other way has no rule: dropped" \
	nsx $NS_S timeout 30 python3 $ECHO client $C4 6000 41000 0

# Related: the router's path to the client takes 1280 bytes at most, so the
# server's full-size segments draw "fragmentation needed" (IPv6: "packet
# too big") from the router. No rule accepts ICMP: only the flow they
# quote lets them through, or the download stalls.
nsx $NS_R ip link set rc mtu 1280
nsx $NS_S ip route flush cache
nsx $NS_S ip -6 route flush cache
# Here a dropped error stalls the download at its first full-size segment.
check_eq "a download through the 1280-byte link: frag-needed passes by its flow" 1048576 \
	"$(down $S4 1048576)"
check_eq "IPv6: packet-too-big passes by its flow" 1048576 "$(down $S6 1048576)"
check_grep "the server learnt the path MTU" "mtu 1280" "$(nsx $NS_S ip route get $C4)"
nsx $NS_R ip link set rc mtu 1500

# Neighbour discovery at the router's own interfaces passes whatever the
# unknown policy says; a rule may still drop it.
flush_neigh() { for ns in $NS_C $NS_R $NS_S; do nsx $ns ip -6 neigh flush all; done; }
check "a rule for forwarded ICMPv6 (the echo)" r rule add id 3 dir forward proto icmpv6 accept
flush_neigh
e0=$(stat exempt)
check "IPv6 ping across: the router's ND passes unknown drop" \
	nsx $NS_C ping -6 -q -c 2 -W 3 $S6
check_ge "counted as exempt" $((e0 + 2)) "$(stat exempt)"
check "a rule that drops ICMPv6 from the client's side" \
	r rule add id 4 prio 0 dir in proto icmpv6 iif rc drop
flush_neigh
check_fails "is obeyed: the router no longer answers the client's ND" \
	nsx $NS_C ping -6 -q -c 2 -W 2 $S6
r rule del 4

# A rule's flows go with it.
check "deleting rule 1" r rule del 1
check_eq "takes its flows with it" 0 \
	"$(flows | jq '[.[] | select(.origin == "rule" and .rule == 1)] | length')"
iperf_server $NS_S
check_eq "and its connections are dropped again" 0 \
	"$(nsx $NS_C timeout 120 iperf3 -J -c $S4 -n 100K --connect-timeout 5000 |
		jq '.end.sum_received.bytes // 0')"

# A new connection on a decided 5-tuple: the installed flow carried one
# connection; a new SYN from the same port, while that flow lingers after
# its FINs, is a new connection and meets the unknown-drop policy.
# A closing flow lingers 10 s, less than a Python client takes to start on
# the debug kernel: the new SYN comes from the sender already running.
r flow add proto tcp from $C4 to $S4 sport 40200 dport 5202 accept timeout 60
r0=$(stat flow_events.restarted)
check "the flow carries a connection from port 40200" tcp_from 40200
tcp_seg --sport 40200 --dport 5202 --flags S --seq 777000
check_eq "a new SYN on it, after FINs both ways, restarts it" $((r0 + 1)) \
	"$(stat flow_events.restarted)"
check_eq "and the flow is gone" null "$(flow_of 40200 verdict)"
check_fails "a new connection from port 40200 is judged afresh: dropped" tcp_from 40200
# The SYN that made a rule's flow, sent again, still belongs to it.
check "a rule for 5203" r rule add id 5 dir forward proto tcp dport 5203 accept
r0=$(stat flow_events.restarted)
tcp_seg --sport 40300 --dport 5203 --flags S --seq 1000
tcp_seg --sport 40300 --dport 5203 --flags S --seq 1000
check_eq "a SYN sent again keeps its flow" "$r0 rule" "$(stat flow_events.restarted) $(flow_of 40300 origin)"
tcp_seg --sport 40300 --dport 5203 --flags S --seq 900000
check_eq "a SYN with another ISN ends it" $((r0 + 1)) "$(stat flow_events.restarted)"
r rule del 5

# A drop stays a drop: what it drops reaches nobody, so it ends nothing.
r flow add proto tcp from $C4 to $S4 sport 40400 dport 5202 drop timeout 60
tcp_seg --sport 40400 --dport 5202 --flags FA --seq 5 --ack 7
tcp_seg --sport 40400 --dport 5202 --flags R --seq 6
tcp_seg --sport 40400 --dport 5202 --flags S --seq 99
check_ge "its FIN, RST and a new SYN leave the drop flow its 60 s" 50 "$(flow_of 40400 expires)"
check_eq "not closing" false "$(flow_of 40400 closing)"
check_eq "nor restarted" drop "$(flow_of 40400 verdict)"

# A RST the peer would ignore (its sequence number is nowhere near the
# window) leaves an accepted flow as it is; the FINs both ways end it.
r flow add proto tcp from $C4 to $S4 sport 40500 dport 5202 accept timeout 60
# The talker runs until told to stop: on the debug kernel a fixed span
# could end, FINs and all, before the RST is sent.
tcp_from 40500 120 "$work/talk" &
talker=$!
talks() { [ "$(flow_of 40500 packets)" -ge 6 ] 2>/dev/null; }
wait_until 60 talks
tcp_seg --sport 40500 --dport 5202 --flags R --seq 12345
check_eq "an out-of-window RST does not close the flow" false "$(flow_of 40500 closing)"
n0=$(cat "$work/talk")
talked() { [ "$(cat "$work/talk")" -ge $((n0 + 3)) ]; }
check "and the connection goes on" wait_until 60 talked
pkill -TERM -f "tcpecho.py client $S4 5202 40500"
check "every line came back" wait $talker
check_eq "after FINs both ways it closes" true "$(flow_of 40500 closing)"
check "with at most 10 s left" test "$(flow_of 40500 expires)" -le 10

# QUIC: afwd allowed one connection on this UDP flow; a new Initial from
# the same socket goes to the queue again (9: nobody listens, fail closed,
# so it is dropped), while other datagrams pass by the flow.
nsx $NS_S python3 "$AFW_SRC/tests/tools/udpsink.py" $S4 4433 "$work/udp.log" &
on_exit "kill $!"
nsx $NS_S python3 "$AFW_SRC/tests/tools/udpsink.py" $S4 4434 "$work/udp2.log" &
on_exit "kill $!"
wait_listen $NS_S udp :4433
wait_listen $NS_S udp :4434
# logged FILE N: the sink has logged N datagrams at least. The sink is a
# Python process, late to run on a loaded debug kernel: a count is taken
# once what must arrive has, and a second later, for what must not.
logged() { [ "$(cat "$1" 2> /dev/null | wc -l)" -ge "$2" ]; }
r config set unknown queue queue 9 fail closed
r flow add proto udp from $C4 to $S4 sport 40600 dport 4433 accept
i0=$(stat decided.flow.inspect)
nsx $NS_C python3 "$AFW_SRC/tests/tools/quicinit.py" $S4 4433 40600 junk \
	hello:0102030405060708:denied.test junk
wait_until 20 logged "$work/udp.log" 2
sleep 1
check_eq "datagrams pass by the flow, the Initial does not" "40600 1200 5a
40600 1200 5a" "$(cat "$work/udp.log" 2>/dev/null)"
check_eq "the Initial went to the queue" $((i0 + 1)) "$(stat decided.flow.inspect)"
# An accept rule's UDP flow is the rule's, whatever runs over it.
r rule add id 6 dir forward proto udp dport 4434 accept
nsx $NS_C python3 "$AFW_SRC/tests/tools/quicinit.py" $S4 4434 40601 junk \
	hello:0102030405060708:denied.test
wait_until 20 logged "$work/udp2.log" 2
sleep 1
check_eq "on a rule's flow, Initials pass" 2 "$(wc -l < "$work/udp2.log")"

# Timeouts by protocol, and the initiator first.
r flow add proto tcp from $S4 to $C4 sport 5202 dport 40700 accept
check_eq "a flow lists as its initiator sees it" "$S4 $C4 5202 40700" \
	"$(flows | jq -r '.[] | select(.dport == 40700) | "\(.src) \(.dst) \(.sport) \(.dport)"')"
check_eq "TCP flows idle a day by default" 86400 "$(flow_of 40700 timeout)"
r flow add proto udp from $C4 to $S4 sport 40701 dport 53 accept
check_eq "UDP flows two minutes" 120 "$(flow_of 40701 timeout)"
check "tcp_timeout is a setting" r config set tcp_timeout 3600
r flow add proto tcp from $C4 to $S4 sport 40702 dport 5202 accept
check_eq "that new TCP flows take" 3600 "$(flow_of 40702 timeout)"
r flow flush

# Pings: an accept rule that passes the client's echo requests installs a
# flow of their identifier, which lets the replies back, and the errors
# about the requests (a traceroute's time exceeded, sent by the router
# itself); the server's own requests, with the same identifier, are no
# part of it, and stay unknown: dropped.
r rule del 3
echo_flows() {
	flows | jq -r --argjson id "$1" \
		'[.[] | select(.icmp_id == $id) | "\(.proto) \(.src) \(.dst) \(.origin) \(.rule) \(.assured)"] | join(",")'
}
check "rules for the client's pings alone, IPv4 and IPv6" sh -c "
	$AFWCTL -n $NS_R rule add id 7 dir forward iif rc proto icmp accept &&
	$AFWCTL -n $NS_R rule add id 8 dir forward iif rc proto icmpv6 accept"
check "the client's ping gets its replies" nsx $NS_C ping -q -c 2 -W 3 -e 4242 $S4
check "IPv6 too" nsx $NS_C ping -6 -q -c 2 -W 3 -e 4243 $S6
check_eq "each is its rule's flow, by its identifier, the pinger first, never assured" \
	"icmp $C4 $S4 rule 7 false;icmpv6 $C6 $S6 rule 8 false" \
	"$(echo_flows 4242);$(echo_flows 4243)"
check_eq "and idles 30 s, as conntrack's ICMP entries" 30 \
	"$(flows | jq '.[] | select(.icmp_id == 4242) | .timeout')"
# An error about the ping goes back to the pinger; one sent to another
# address (one more of the client's) is no answer, and stays unknown.
nsx $NS_C ip addr add 192.0.2.3/24 dev c0
forge='
import socket, struct, sys
def sum16(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff
src, dst, to, ident = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 1, 1, 0,
                 socket.inet_aton(src), socket.inet_aton(dst))
ip = ip[:10] + struct.pack("!H", sum16(ip)) + ip[12:]
te = struct.pack("!BBHI", 11, 0, 0, 0) + ip + struct.pack("!BBHHH", 8, 0, 0, ident, 1)
te = te[:2] + struct.pack("!H", sum16(te)) + te[4:]
socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).sendto(te, (to, 0))'
# te_seen TO: 1 when a time exceeded the server sends to TO about the
# client's ping 4242 (its flow just refreshed) reaches the client within
# 5 s, else 0. tcpdump hands each packet on as it comes (--immediate-mode),
# and ends at the first.
te_seen() {
	: > $work/te.err
	ip netns exec $NS_C timeout 60 tcpdump --immediate-mode -l -c 1 -ni c0 \
		"icmp[0] == 11 and dst host $1" > $work/te.out 2> $work/te.err &
	local p=$!
	if ! wait_until 30 grep -q listening $work/te.err; then
		echo "tcpdump did not start"
		kill $p
		return
	fi
	nsx $NS_C ping -q -c 1 -W 3 -e 4242 $S4 > /dev/null
	nsx $NS_S python3 -c "$forge" $C4 $S4 $1 4242
	wait_until 5 grep -q "time exceeded" $work/te.out
	kill -INT $p 2> /dev/null
	wait $p
	grep -c "time exceeded" $work/te.out
}
check_eq "an error about the ping, sent to the pinger, passes by its flow" 1 "$(te_seen $C4)"
# The router's unknown flows go to a queue nobody reads (fail closed) since
# the QUIC checks above: dropped there.
unknown_out() { stat "decided.unknown.drop + .decided.unknown.queue"; }
d0=$(unknown_out)
check_eq "the same error sent to another of the client's addresses is dropped" 0 \
	"$(te_seen 192.0.2.3)"
check_ge "by the router, as unknown" $((d0 + 1)) "$(unknown_out)"
# fresh ID [-6] ADDR: the client pings again, so that the flow of ID is
# alive (a ping's idles out in 30 s, some checks' worth on the debug kernel).
fresh() { check "ping $1 again, its flow alive" nsx $NS_C ping -q -c 1 -W 3 -e "$@"; }
fresh 4242 $S4
check_fails "the server's ping with the same identifier is dropped" \
	nsx $NS_S ping -q -c 1 -W 2 -e 4242 $C4
fresh 4243 -6 $S6
check_fails "IPv6 too" nsx $NS_S ping -6 -q -c 1 -W 2 -e 4243 $C6
fresh 4242 $S4
check_grep "the router's time exceeded about the client's ping passes by its flow" \
	"Time to live exceeded" "$(nsx $NS_C ping -c 1 -t 1 -W 3 -e 4242 $S4)"
fresh 4243 -6 $S6
check_grep "IPv6: hop limit exceeded" "Time exceeded" \
	"$(nsx $NS_C ping -6 -c 1 -t 1 -W 3 -e 4243 $S6)"
check_fails "about a ping with no flow, it is dropped" \
	sh -c "ip netns exec $NS_C ping -c 1 -t 1 -W 3 -e 4244 $S4 | grep -q 'Time to live'"
r rule del 7
r rule del 8
check_fails "without the rules, a new ping is dropped" nsx $NS_C ping -q -c 1 -W 2 -e 4245 $S4
check "an echo's flow installed by hand: flow add ... id" \
	r flow add proto icmp from $C4 to $S4 id 4245 accept
check "lets that ping through" nsx $NS_C ping -q -c 2 -W 3 -e 4245 $S4
check_fails "and no other identifier" nsx $NS_C ping -q -c 1 -W 2 -e 4246 $S4
check_fails "nor the other way" nsx $NS_S ping -q -c 1 -W 2 -e 4245 $C4
check "flow del takes it by the same key" r flow del proto icmp from $C4 to $S4 id 4245
check_fails "and the ping is dropped again" nsx $NS_C ping -q -c 1 -W 2 -e 4245 $S4
check "an ICMP flow without an identifier" r flow add proto icmp from $C4 to $S4 accept
check "carries every ping between the two" sh -c "
	ip netns exec $NS_C ping -q -c 1 -W 3 -e 4247 $S4 &&
	ip netns exec $NS_S ping -q -c 1 -W 3 -e 4248 $C4"
check_grep "and the router's errors about them" "Time to live exceeded" \
	"$(nsx $NS_C ping -c 1 -t 1 -W 3 -e 4249 $S4)"
r flow flush

# On the pinging host itself: everything out, nothing in but replies (the
# router lets everything through meanwhile).
c() { "$AFWCTL" -n $NS_C "$@"; }
r config set unknown accept
check "the client: unknown drop, and everything out accepted" sh -c "
	$AFWCTL -n $NS_C config set unknown drop && $AFWCTL -n $NS_C rule add dir out accept"
check "its ping gets its replies" nsx $NS_C ping -q -c 2 -W 3 $S4
check "IPv6 too" nsx $NS_C ping -6 -q -c 2 -W 3 $S6
check "and so does its ping to itself" nsx $NS_C ping -q -c 2 -W 3 127.0.0.1
check_fails "while the server's ping to it is dropped" nsx $NS_S ping -q -c 1 -W 2 $C4
c rule flush
c config set unknown accept
r config set unknown drop

# Reject without ports, on the client itself: its own connections out are
# refused at once by afw's RST, which leaves through LOCAL_OUT itself.
refused() {
	nsx $NS_C python3 -c "
import socket, sys
s = socket.socket()
s.settimeout(10)
try:
    s.connect(('$S4', 5202))
except ConnectionRefusedError:
    sys.exit(0)
except OSError:
    pass
sys.exit(1)"
}
check "a reject rule without ports on the client" \
	"$AFWCTL" -n $NS_C rule add dir out proto tcp reject
check "a connection out is refused at once, not left to time out" refused
check_ge "afw's own RST passed, exempt" 1 "$("$AFWCTL" -n $NS_C -j stats | jq .exempt)"

exit $AFW_FAILED
