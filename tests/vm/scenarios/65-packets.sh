#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Crafted packets, malformed or odd, get the treatments docs/architecture.md
# documents: truncated IPv4, IPv6 and TCP headers, IPv4 options and bad IHLs,
# IPv6 extension header chains, and fragments. The client sends each one
# through the router (FORWARD), or to the server (LOCAL_IN); every case
# checks whether the packet reached the server, afw's malformed counter and
# the counter of the rule it should match.
. "$AFW_SRC/tests/vm/lib.sh"

CRAFT=$AFW_SRC/tests/tools/craft.py
cap=$(mktemp)
on_exit rm -f "$cap"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
RMAC=$(nsx $NS_R cat /sys/class/net/rc/address)

status() { "$AFWCTL" -n "$1" -j status | jq -r ".$2"; }
rule_field() {
	"$AFWCTL" -n "$1" -j rule list | jq -r --argjson id "$2" ".[] | select(.id == \$id) | .$3"
}
# snmp NS FIELD: one IPv4 counter of /proc/net/snmp, e.g. InHdrErrors.
snmp() {
	nsx "$1" awk -v k="$2" '
		$1 == "Ip:" && !n { for (i = 2; i <= NF; i++) h[i] = $i; n = 1; next }
		$1 == "Ip:" { for (i = 2; i <= NF; i++) if (h[i] == k) print $i }' /proc/net/snmp
}

# One capture on the server's interface for the whole scenario, of packets
# from the client's two addresses: starting one per case cost seconds each.
ip netns exec $NS_S python3 "$CRAFT" capture s0 "$C4,$C6" 3600 > "$cap" &
cap_pid=$!
on_exit kill $cap_pid
# A minute, as wait_listen gives a server: a Python start on the debug
# kernel in a busy CI run took more than 20 s.
wait_until 60 grep -q '^ready' "$cap" || not_ok "the capture on the server starts" "no 'ready'"

# One sender in the client's namespace for the whole scenario (lib.sh).
craft_start $NS_C

# deliver WANT SRC CRAFT-SEND-ARGS...: sends from the client to the router's
# MAC and prints how many packets from SRC reached the server's interface
# ("?" when the send failed). Where WANT are expected it waits up to 10 s
# for them (the capture is a Python process, late to run on a loaded debug
# kernel), then a moment for any extra; where none is, a second.
# Each case (fwd) comes from a source port of its own: an accept rule that
# passes a packet installs its flow, which would then decide the next
# case's packets of the same 5-tuple instead of the rules under test.
case_sport=40000
# The capture's lines, less its "ready", counted by bash itself: a grep
# per poll cost a process start each.
captured() {
	local lines n
	mapfile -t lines < "$cap"
	n=${#lines[@]}
	[[ "${lines[0]:-}" == ready* ]] && n=$((n - 1))
	echo $((n - $1))
}
captured_ge() { [ "$(captured "$1")" -ge "$2" ]; }
deliver() {
	local want=$1 src=$2 n0
	shift 2
	n0=$(captured 0)
	craft --sport $case_sport "$@" c0 $RMAC "$src" "$dst" || { echo "?"; return; }
	if [ "$want" -gt 0 ]; then
		wait_until 10 captured_ge "$n0" "$want"
		sleep 0.3
	else
		sleep 1
	fi
	captured "$n0"
}

# snap NS RULE: "MALFORMED RULE_PACKETS" from one afwctl status and one rule
# list, read by one jq: a process costs a second under the debug kernel, and
# each case takes two snapshots.
snap() {
	{ "$AFWCTL" -n "$1" -j status && "$AFWCTL" -n "$1" -j rule list; } |
		jq -rs --argjson id "$2" '"\(.[0].malformed) \([.[1][] | select(.id == $id) | .packets][0])"'
}

num_delta() { [ "$1" = ? ] && echo ? || echo $(( $1 - $2 )); }

# fwd NAME DELIVERED MALFORMED RULE RULE_PACKETS -- CRAFT-SEND-ARGS...: one
# forwarded case. MALFORMED and RULE_PACKETS are how much the router's
# malformed counter and the packet counter of rule RULE must grow.
fwd() {
	local name=$1 want="delivered $2, malformed +$3, rule $4 +$5" rule=$4 expect=$2 m0 r0 n m r
	shift 6
	case_sport=$((case_sport + 1))
	read -r m0 r0 <<< "$(snap $NS_R "$rule")"
	n=$(deliver "$expect" "$src" "$@")
	read -r m r <<< "$(snap $NS_R "$rule")"
	# A snapshot that failed reads as "?", never as no change.
	[[ "$m0$r0$m$r" =~ ^[0-9]+$ ]] || m=? r=? m0=0 r0=0
	check_eq "$name: $want" "$want" "delivered $n, malformed +$(num_delta $m $m0), rule $rule +$(num_delta $r $r0)"
}

# The router drops TCP to 5201 and UDP to 7777 and accepts the rest of TCP
# and UDP from the client (not the replies); the port rules make afw read
# the L4 header of every packet.
check "router rules: port drops, portless accepts" sh -c "
	$AFWCTL -n $NS_R rule add id 1 prio 10 dir forward proto tcp dport 5201 drop &&
	$AFWCTL -n $NS_R rule add id 2 prio 10 dir forward proto udp dport 7777 drop &&
	$AFWCTL -n $NS_R rule add id 3 prio 20 dir forward proto udp iif rc accept &&
	$AFWCTL -n $NS_R rule add id 4 prio 20 dir forward proto tcp iif rc accept"

# Arguments: name, delivered, malformed, rule, rule packets, -- craft args.
src=$C4 dst=$S4
fwd "IPv4 UDP to 7777 is dropped by its rule" 0 0 2 1 -- --dport 7777
fwd "IPv4 UDP to 7778 passes by the portless rule" 1 0 3 1 -- --dport 7778
fwd "IPv4 TCP with ports but no flags (4 bytes) is malformed" 0 1 1 0 -- \
	--proto tcp --dport 5201 --l4len 4
fwd "IPv4 TCP cut to 13 bytes, one short of the flags, is malformed" 0 1 4 0 -- \
	--proto tcp --dport 80 --l4len 13
fwd "IPv4 TCP cut to 2 bytes, short of the ports, is malformed" 0 1 4 0 -- \
	--proto tcp --dport 80 --l4len 2
fwd "IPv4 TCP with IHL 6 (one option word) passes" 1 0 4 1 -- --proto tcp --dport 80 --ihl 6
fwd "IPv4 TCP with IHL 15: ports are read past 40 bytes of options" 0 0 1 1 -- \
	--proto tcp --dport 5201 --ihl 15
fwd "IPv4 UDP with IHL 15 to 7778 passes" 1 0 3 1 -- --dport 7778 --ihl 15

# A bad IHL never reaches a netfilter hook: IPv4 input (ip_rcv_core) drops
# it first and counts an InHdrErrors. afw neither sees nor counts it.
for bad in "IHL 4:--ihl 4" "IHL 15 over a total length of 40:--ihl 15 --tot-len 40"; do
	e0=$(snmp $NS_R InHdrErrors)
	h0=$(counter $NS_R ipv4 forward packets)
	fwd "IPv4 ${bad%%:*} is not delivered and not malformed to afw" 0 0 3 0 -- ${bad#*:}
	check_eq "IPv4 ${bad%%:*}: the router's IP input counted a header error" \
		$((e0 + 1)) "$(snmp $NS_R InHdrErrors)"
	check_eq "IPv4 ${bad%%:*}: afw's forward hook never saw it" \
		"$h0" "$(counter $NS_R ipv4 forward packets)"
done

# Fragments: a configured namespace reassembles them before afw looks, as
# conntrack does, so the datagram is judged whole, by its ports, and goes
# on in the fragments it came in. A fragment whose partner never comes is
# held until the reassembly gives up; afw never sees it.
fwd "IPv4 first fragment alone waits for the rest: not delivered, not seen" 0 0 2 0 -- \
	--dport 7777 --payload 24 --frag 8 --send first
fwd "IPv4 later fragment alone waits for the rest: not delivered, not seen" 0 0 3 0 -- \
	--dport 7777 --payload 24 --frag 8 --send later
fwd "IPv4 both fragments to 7777: reassembled, dropped by the port rule" 0 0 2 1 -- \
	--dport 7777 --payload 24 --frag 8
fwd "IPv4 both fragments to 7778 pass: judged once, sent on as two" 2 0 3 1 -- \
	--dport 7778 --payload 24 --frag 8
fwd "IPv4 tiny first fragment (TCP ports, no flags) and the rest: one segment" 2 0 4 1 -- \
	--proto tcp --dport 80 --frag 8

src=$C6 dst=$S6
fwd "IPv6 UDP to 7777 is dropped by its rule" 0 0 2 1 -- --dport 7777
fwd "IPv6 UDP behind hop-by-hop, dstopts, routing: dropped by port" 0 0 2 1 -- \
	--dport 7777 --ext hbh,dst,rt
fwd "IPv6 TCP behind hop-by-hop, dstopts, routing: passes" 1 0 4 1 -- \
	--proto tcp --dport 80 --ext hbh,dst,rt
fwd "IPv6 TCP behind routing, dstopts to 5201 is dropped by port" 0 0 1 1 -- \
	--proto tcp --dport 5201 --ext rt,dst
fwd "IPv6 chain cut short after hop-by-hop, dstopts is malformed" 0 1 3 0 -- \
	--ext hbh,dst --cut
fwd "IPv6 chain cut short after routing is malformed" 0 1 3 0 -- --ext rt --cut
fwd "IPv6 TCP with ports but no flags is malformed" 0 1 1 0 -- \
	--proto tcp --dport 5201 --l4len 4
fwd "IPv6 UDP cut to 3 bytes is malformed" 0 1 3 0 -- --l4len 3
fwd "IPv6 first fragment alone waits for the rest: not delivered, not seen" 0 0 2 0 -- \
	--dport 7777 --payload 24 --frag 8 --send first
fwd "IPv6 both fragments to 7777: reassembled, dropped by the port rule" 0 0 2 1 -- \
	--dport 7777 --payload 24 --frag 8
fwd "IPv6 both fragments behind hop-by-hop, dstopts: dropped by port" 0 0 2 1 -- \
	--dport 7777 --payload 24 --frag 8 --ext hbh,dst
# IPv6 sends the datagram on whole: it fits the next link.
fwd "IPv6 both fragments to 7778 pass: judged once, sent on whole" 1 0 3 1 -- \
	--dport 7778 --payload 24 --frag 8
# RFC 8200 4.5: a first fragment without the whole TCP header is not
# reassembled; alone it is malformed to afw.
fwd "IPv6 tiny first fragment (TCP header cut in two) is dropped, malformed" 0 1 4 0 -- \
	--proto tcp --dport 80 --frag 8
check "router rule: protocol 59 (no next header)" \
	"$AFWCTL" -n $NS_R rule add id 6 prio 20 dir forward proto 59 accept
fwd "IPv6 with no next header (59) is a protocol, not malformed" 1 0 6 1 -- \
	--proto none --ext dst

# With no rule, flow or queue that needs ports, afw never reads the L4
# header: a truncated TCP segment is judged by addresses and protocol only.
"$AFWCTL" -n $NS_R rule flush
check "router rule: portless TCP accept only" \
	"$AFWCTL" -n $NS_R rule add id 5 dir forward proto tcp from $C4/32 accept
src=$C4 dst=$S4
fwd "IPv4 TCP cut to 2 bytes matches a portless rule, not malformed" 1 0 5 1 -- \
	--proto tcp --dport 80 --l4len 2
"$AFWCTL" -n $NS_R rule flush

# LOCAL_IN: both families reassemble before the hook, IPv6 too (without
# afw's defragmentation it would reassemble after LOCAL_IN, in the fragment
# header's handler), so afw sees one whole datagram.
check "server rules: UDP 7777 by port, other UDP portless" sh -c "
	$AFWCTL -n $NS_S rule add id 1 prio 10 dir in proto udp dport 7777 accept &&
	$AFWCTL -n $NS_S rule add id 2 prio 20 dir in proto udp accept"
# local_frags SRC DST: both fragments of a 32-byte UDP datagram to the server;
# prints "port-rule PACKETS BYTES, portless PACKETS" as the deltas.
local_frags() {
	local p0 b0 q0 m0
	p0=$(rule_field $NS_S 1 packets) b0=$(rule_field $NS_S 1 bytes)
	q0=$(rule_field $NS_S 2 packets) m0=$(status $NS_S malformed)
	craft --dport 7777 --payload 24 --frag 8 c0 $RMAC "$1" "$2" || echo "send failed"
	sleep 2
	echo "port rule +$(( $(rule_field $NS_S 1 packets) - p0 )) packets" \
	     "+$(( $(rule_field $NS_S 1 bytes) - b0 )) bytes," \
	     "portless +$(( $(rule_field $NS_S 2 packets) - q0 ))," \
	     "malformed +$(( $(status $NS_S malformed) - m0 ))"
}
check_eq "IPv4 fragments reach LOCAL_IN reassembled: one 52-byte datagram" \
	"port rule +1 packets +52 bytes, portless +0, malformed +0" "$(local_frags $C4 $S4)"
check_eq "IPv6 fragments reach LOCAL_IN reassembled: one 72-byte datagram" \
	"port rule +1 packets +72 bytes, portless +0, malformed +0" "$(local_frags $C6 $S6)"
check_eq "the server saw no malformed packet at all" 0 "$(status $NS_S malformed)"

exit $AFW_FAILED
