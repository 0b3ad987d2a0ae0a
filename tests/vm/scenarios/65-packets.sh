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

status() { nsx "$1" "$AFWCTL" -j status | jq -r ".$2"; }
rule_field() {
	nsx "$1" "$AFWCTL" -j rule list | jq -r --argjson id "$2" ".[] | select(.id == \$id) | .$3"
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
wait_until 20 grep -q '^ready' "$cap" || not_ok "the capture on the server starts" "no 'ready'"

# deliver SRC CRAFT-SEND-ARGS...: sends from the client to the router's MAC
# and prints how many packets from SRC reached the server's interface.
deliver() {
	local src=$1 n0
	shift
	n0=$(grep -vc '^ready' "$cap")
	nsx $NS_C python3 "$CRAFT" send "$@" c0 $RMAC "$src" "$dst" > /dev/null
	sleep 1
	echo $(( $(grep -vc '^ready' "$cap") - n0 ))
}

# fwd NAME DELIVERED MALFORMED RULE RULE_PACKETS -- CRAFT-SEND-ARGS...: one
# forwarded case. MALFORMED and RULE_PACKETS are how much the router's
# malformed counter and the packet counter of rule RULE must grow.
fwd() {
	local name=$1 want="delivered $2, malformed +$3, rule $4 +$5" rule=$4 m0 r0 n m r
	shift 6
	m0=$(status $NS_R malformed)
	r0=$(rule_field $NS_R "$rule" packets)
	n=$(deliver "$src" "$@")
	m=$(( $(status $NS_R malformed) - m0 ))
	r=$(( $(rule_field $NS_R "$rule" packets) - r0 ))
	check_eq "$name: $want" "$want" "delivered $n, malformed +$m, rule $rule +$r"
}

# The router drops TCP to 5201 and UDP to 7777 and accepts the rest of TCP
# and UDP from the client (not the replies); the port rules make afw read
# the L4 header of every packet.
check "router rules: port drops, portless accepts" sh -c "
	ip netns exec $NS_R $AFWCTL rule add id 1 prio 10 dir forward proto tcp dport 5201 drop &&
	ip netns exec $NS_R $AFWCTL rule add id 2 prio 10 dir forward proto udp dport 7777 drop &&
	ip netns exec $NS_R $AFWCTL rule add id 3 prio 20 dir forward proto udp iif rc accept &&
	ip netns exec $NS_R $AFWCTL rule add id 4 prio 20 dir forward proto tcp iif rc accept"

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

# Fragments: no conntrack in the router's namespace, so nothing reassembles
# them before FORWARD and afw sees each fragment as it is.
fwd "IPv4 first fragment to 7777 is dropped by the port rule" 0 0 2 1 -- \
	--dport 7777 --payload 24 --frag 8 --send first
fwd "IPv4 later fragment has no ports: the portless rule passes it" 1 0 3 1 -- \
	--dport 7777 --payload 24 --frag 8 --send later
fwd "IPv4 later fragment is not counted by the port rule" 1 0 2 0 -- \
	--dport 7777 --payload 24 --frag 8 --send later
fwd "IPv4 tiny first fragment (TCP ports, no flags) is malformed" 0 1 4 0 -- \
	--proto tcp --dport 80 --frag 8 --send first
fwd "IPv4 both fragments to 7778 pass, each counted" 2 0 3 2 -- \
	--dport 7778 --payload 24 --frag 8

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
fwd "IPv6 first fragment to 7777 is dropped by the port rule" 0 0 2 1 -- \
	--dport 7777 --payload 24 --frag 8 --send first
fwd "IPv6 first fragment behind hop-by-hop, dstopts: dropped by port" 0 0 2 1 -- \
	--dport 7777 --payload 24 --frag 8 --send first --ext hbh,dst
fwd "IPv6 later fragment is UDP without ports: the portless rule passes it" 1 0 3 1 -- \
	--dport 7777 --payload 24 --frag 8 --send later
fwd "IPv6 tiny first fragment (TCP ports, no flags) is malformed" 0 1 4 0 -- \
	--proto tcp --dport 80 --frag 8 --send first

# With no rule, flow or queue that needs ports, afw never reads the L4
# header: a truncated TCP segment is judged by addresses and protocol only.
nsx $NS_R "$AFWCTL" rule flush
check "router rule: portless TCP accept only" \
	nsx $NS_R "$AFWCTL" rule add id 5 dir forward proto tcp from $C4/32 accept
src=$C4 dst=$S4
fwd "IPv4 TCP cut to 2 bytes matches a portless rule, not malformed" 1 0 5 1 -- \
	--proto tcp --dport 80 --l4len 2
nsx $NS_R "$AFWCTL" rule flush

# LOCAL_IN: IPv4 reassembles in ip_local_deliver, before the hook, so afw
# sees one whole datagram. IPv6 reassembles after LOCAL_IN (the fragment
# header's handler), so afw sees each fragment as it is.
check "server rules: UDP 7777 by port, other UDP portless" sh -c "
	ip netns exec $NS_S $AFWCTL rule add id 1 prio 10 dir in proto udp dport 7777 accept &&
	ip netns exec $NS_S $AFWCTL rule add id 2 prio 20 dir in proto udp accept"
# local_frags SRC DST: both fragments of a 32-byte UDP datagram to the server;
# prints "port-rule PACKETS BYTES, portless PACKETS" as the deltas.
local_frags() {
	local p0 b0 q0 m0
	p0=$(rule_field $NS_S 1 packets) b0=$(rule_field $NS_S 1 bytes)
	q0=$(rule_field $NS_S 2 packets) m0=$(status $NS_S malformed)
	nsx $NS_C python3 "$CRAFT" send --dport 7777 --payload 24 --frag 8 \
		c0 $RMAC "$1" "$2" > /dev/null
	sleep 2
	echo "port rule +$(( $(rule_field $NS_S 1 packets) - p0 )) packets" \
	     "+$(( $(rule_field $NS_S 1 bytes) - b0 )) bytes," \
	     "portless +$(( $(rule_field $NS_S 2 packets) - q0 ))," \
	     "malformed +$(( $(status $NS_S malformed) - m0 ))"
}
check_eq "IPv4 fragments reach LOCAL_IN reassembled: one 52-byte datagram" \
	"port rule +1 packets +52 bytes, portless +0, malformed +0" "$(local_frags $C4 $S4)"
check_eq "IPv6 fragments reach LOCAL_IN one by one: 56-byte first, then a later one" \
	"port rule +1 packets +56 bytes, portless +1, malformed +0" "$(local_frags $C6 $S6)"
check_eq "the server saw no malformed packet at all" 0 "$(status $NS_S malformed)"

exit $AFW_FAILED
