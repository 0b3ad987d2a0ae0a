#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rules decide packets: accept, drop and reject in every direction, for TCP,
# UDP and ICMP over IPv4 and IPv6, with priorities and counters.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko selftest=1" afw_load selftest=1
on_exit afw_unload
check_grep "the classifier selftest agrees with the linear scan" \
	'afw: selftest: pass: 2000 rules, 28000 packets .* built whole and a rule at a time' "$(dmesg)"

topo_routed || not_ok "routed topology comes up" "ping across the router failed"
iperf_server $NS_S

# A connection's bound, in seconds. It covers the start of ip netns exec and
# bash too: about 1.7 s on an idle debug kernel, two to three times that in
# a busy CI run (docs/reliability.md). With 3 s, one such run saw a
# connection fail before its SYN was sent, and a drop check pass with
# nothing sent (the drop rule counted 0 SYNs).
conn_s=10
# tcp_ok NS ADDR: a TCP connection from NS to ADDR port 5201 completes.
tcp_ok() { nsx "$1" timeout $conn_s bash -c "exec 3<>/dev/tcp/$2/5201" 2>/dev/null; }
# tcp_refused NS ADDR: the connection is refused at once (a RST came back).
tcp_refused() {
	local out
	out=$(nsx "$1" timeout $conn_s bash -c "exec 3<>/dev/tcp/$2/5201" 2>&1)
	[[ "$out" == *"Connection refused"* ]]
}
# udp_refused NS ADDR: a UDP datagram to port 9 draws an ICMP unreachable.
udp_refused() {
	nsx "$1" python3 - "$2" <<'PY'
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.settimeout(3)
s.connect((sys.argv[1], 9))
s.send(b"x")
try:
    s.recv(1)
except ConnectionRefusedError:
    sys.exit(0)
except socket.timeout:
    sys.exit(1)
sys.exit(1)
PY
}
ping_ok() { nsx "$1" ping -q -c 1 -W 2 "$2" > /dev/null 2>&1; }
rule_packets() {
	"$AFWCTL" -n "$1" -j rule list | jq -r --argjson id "$2" '.[] | select(.id == $id) | .packets'
}

check "TCP client -> server passes with no rules" tcp_ok $NS_C $S4

# Forward: the router drops TCP to port 5201 for IPv4 only.
check "rule add on the router" \
	"$AFWCTL" -n $NS_R rule add id 10 dir forward family ipv4 proto tcp dport 5201 drop
check_fails "forwarded TCP to 5201 is dropped" tcp_ok $NS_C $S4
check "forwarded IPv6 TCP still passes" tcp_ok $NS_C $S6
check "ping still passes the router" ping_ok $NS_C $S4
check_ge "the drop rule counted the SYNs" 1 "$(rule_packets $NS_R 10)"
check "a higher-priority accept overrides the drop" \
	"$AFWCTL" -n $NS_R rule add id 5 prio 0 dir forward proto tcp from $C4/32 accept
"$AFWCTL" -n $NS_R rule del 10 2>/dev/null || true
check "rule 10 is gone; rule add with prio 10 drop again" \
	"$AFWCTL" -n $NS_R rule add id 10 prio 10 dir forward family ipv4 proto tcp dport 5201 drop
check "TCP passes while the prio 0 accept exists" tcp_ok $NS_C $S4
check "rule del 5" "$AFWCTL" -n $NS_R rule del 5
check_fails "TCP is dropped again without it" tcp_ok $NS_C $S4
check "rule flush" "$AFWCTL" -n $NS_R rule flush
check "TCP passes after the flush" tcp_ok $NS_C $S4
check_eq "no rules listed after the flush" 0 "$("$AFWCTL" -n $NS_R -j rule list | jq length)"

# In: the server rejects; TCP gets a RST, UDP and ping an ICMP error.
check "server rejects TCP 5201, UDP and ICMP inbound" sh -c "
	$AFWCTL -n $NS_S rule add dir in proto tcp dport 5201 reject &&
	$AFWCTL -n $NS_S rule add dir in proto udp reject &&
	$AFWCTL -n $NS_S rule add dir in proto icmp reject &&
	$AFWCTL -n $NS_S rule add dir in proto icmpv6 from $C6/128 reject"
check "IPv4 TCP is refused by a RST" tcp_refused $NS_C $S4
check "IPv4 UDP draws port unreachable" udp_refused $NS_C $S4
check_grep "ping gets Destination Port Unreachable" '[Uu]nreachable' \
	"$(nsx $NS_C ping -c 1 -W 2 $S4 2>&1)"
check "IPv6 UDP draws port unreachable" udp_refused $NS_C $S6
check "IPv6 TCP is refused too: the rule names no family" \
	tcp_refused $NS_C $S6
check_grep "IPv6 ping from the client gets an ICMPv6 error" '[Uu]nreachable' \
	"$(nsx $NS_C ping -6 -c 1 -W 2 $S6 2>&1)"
check_eq "the server lists 4 rules" 4 "$("$AFWCTL" -n $NS_S -j rule list | jq length)"
check_eq "ids were given 1, 2, 3, 4" "1 2 3 4" \
	"$("$AFWCTL" -n $NS_S -j rule list | jq -r '[.[].id] | map(tostring) | join(" ")')"
"$AFWCTL" -n $NS_S rule flush

# Out: the client's own packets, by owner.
check "client drops TCP from uid 65534 (nobody) only" \
	"$AFWCTL" -n $NS_C rule add dir out proto tcp uid 65534 drop
check "root's TCP still goes out" tcp_ok $NS_C $S4
check_fails "nobody's TCP is dropped" nsx $NS_C setpriv --reuid=nobody --regid=nogroup --clear-groups \
	timeout $conn_s bash -c "exec 3<>/dev/tcp/$S4/5201"
check "interface rule: drop IPv6 out of c0" "$AFWCTL" -n $NS_C rule add dir out family ipv6 oif c0 drop
check_fails "IPv6 ping out of c0 is dropped" ping_ok $NS_C $S6
check "IPv4 ping out of c0 passes" ping_ok $NS_C $S4
"$AFWCTL" -n $NS_C rule flush

# Exact counters: a rule counts every packet it decides, once, with its IP
# length (IPv4 total length, IPv6 40 + payload length).
rule_counts() {
	"$AFWCTL" -n "$1" -j rule list | jq -r --argjson id "$2" \
		'.[] | select(.id == $id) | "\(.packets) packets \(.bytes) bytes"'
}
# The 18 cases of direction, action and family run together, each on a
# port of its own (9100 + its number), so that one load per namespace, one
# sender and one list per namespace do what 108 process starts did: each
# costs seconds under the debug kernel. A datagram meets a case's rule in
# one namespace only, and no rule elsewhere (unknown flows pass).
declare -A dir_ns=([in]=$NS_S [out]=$NS_C [forward]=$NS_R)
declare -A case_rules=() case_want=()
cases=() sends=() n=0
for dir in in out forward; do
	for action in accept drop reject; do
		for fam in 4 6; do
			if [ $fam = 4 ]; then c=$C4 s=$S4 len=128; else c=$C6 s=$S6 len=148; fi
			port=$((9100 + n))
			case_rules[$dir]+="id $((20 + n)) dir $dir proto udp from $c to $s dport $port $action"$'\n'
			cases+=("$dir $action IPv$fam|$dir|$((20 + n))|7 packets $((7 * len)) bytes")
			sends+=("$s/$port")
			n=$((n + 1))
		done
	done
done
for dir in in out forward; do
	check "$dir: the 6 rules load" sh -c "printf '%s' \"\$1\" | '$AFWCTL' -n ${dir_ns[$dir]} load --yes -" \
		_ "${case_rules[$dir]}"
done
# Seven datagrams of 100 bytes to each case's port, from a socket each
# (bash's /dev/udp), sent whatever becomes of them (a drop on output fails
# the send with EPERM); a read that times out on a FIFO for the pause.
nsx $NS_C bash -c 'f=$(mktemp -u) && mkfifo "$f" && exec 3<> "$f" && rm -f "$f" || exit 1
	for ((i = 0; i < 7; i++)); do
		for dst in "$@"; do
			printf "%100s" "" 2> /dev/null > "/dev/udp/${dst%/*}/${dst#*/}"
		done
		read -rt 0.05 -u 3
	done' _ "${sends[@]}"
declare -A counted=()
for dir in in out forward; do
	while read -r id line; do
		counted[$id]=$line
	done < <("$AFWCTL" -n ${dir_ns[$dir]} -j rule list |
		jq -r '.[] | "\(.id) \(.packets) packets \(.bytes) bytes"')
	"$AFWCTL" -n ${dir_ns[$dir]} rule flush
done
for c in "${cases[@]}"; do
	IFS='|' read -r name dir id want <<< "$c"
	check_eq "$name: 7 datagrams, $want" "$want" "${counted[$id]:-no such rule}"
done
# ping -c 5: each echo request counted once (84 bytes IPv4, 104 IPv6), and
# the replies, which the rule does not match, still come back.
for dir in in out forward; do
	for fam in 4 6; do
		c=$C4 s=$S4 len=84 p=icmp
		[ $fam = 4 ] || c=$C6 s=$S6 len=104 p=icmpv6
		"$AFWCTL" -n ${dir_ns[$dir]} rule add id 21 dir $dir proto $p from $c to $s accept
		check_grep "$dir accept IPv$fam: ping -c 5 gets 5 replies" ' 5 received' \
			"$(nsx $NS_C ping -$fam -c 5 -i 0.2 -W 2 $s 2>&1)"
		check_eq "$dir accept IPv$fam: the rule counted 5 echo requests of $len bytes" \
			"5 packets $((5 * len)) bytes" "$(rule_counts ${dir_ns[$dir]} 21)"
		"$AFWCTL" -n ${dir_ns[$dir]} rule flush
	done
done
"$AFWCTL" -n $NS_S rule add id 22 dir in proto icmp from $C4 drop
check_grep "in drop IPv4: ping -c 5 gets no reply" ' 0 received' \
	"$(nsx $NS_C ping -c 5 -i 0.2 -W 1 $S4 2>&1)"
check_eq "in drop IPv4: the drop rule counted the 5 requests, 420 bytes" \
	"5 packets 420 bytes" "$(rule_counts $NS_S 22)"
"$AFWCTL" -n $NS_S rule flush

# Rules are per namespace.
"$AFWCTL" -n $NS_R rule add proto tcp drop
check_eq "a rule in the router is not listed in the client" 0 \
	"$("$AFWCTL" -n $NS_C -j rule list | jq length)"
check_eq "nor in the initial namespace" 0 "$("$AFWCTL" -j rule list | jq length)"
"$AFWCTL" -n $NS_R rule flush

# save-style text comes back from list.
"$AFWCTL" -n $NS_R rule add id 7 prio 3 family ipv6 dir in,forward proto udp from 2001:db8::/32 sport 1000-2000 dport 53 iif rc accept
check_grep "list prints the rule as it was written" \
	'^ +7 +0 +0  prio 3 family ipv6 dir in,forward proto udp from 2001:db8::/32 sport 1000-2000 dport 53 iif rc accept$' \
	"$("$AFWCTL" -n $NS_R rule list)"

# A comment is kept with the rule in the kernel: list, -j and save give it
# back, and load takes save's text as it is.
check "a rule with a comment" "$AFWCTL" -n $NS_R rule add id 8 proto tcp dport 22 accept \
	comment "ssh, from the admin net"
check_grep "list shows it after the action" \
	'dport 22 accept comment "ssh, from the admin net"$' "$("$AFWCTL" -n $NS_R rule list)"
check_eq "-j gives it as a field" "ssh, from the admin net" \
	"$("$AFWCTL" -n $NS_R -j rule list | jq -r '.[] | select(.id == 8) | .comment')"
saved=$(mktemp)
on_exit rm -f "$saved"
"$AFWCTL" -n $NS_R save > "$saved"
"$AFWCTL" -n $NS_R rule flush
check "save's text loads back" "$AFWCTL" -n $NS_R load "$saved"
check_eq "and saves the same" "$(cat "$saved")" "$("$AFWCTL" -n $NS_R save)"
out=$("$AFWCTL" -n $NS_R rule add proto tcp accept comment "$(printf 'x%.0s' $(seq 64))" 2>&1)
check_grep "a comment of 64 bytes is refused" "at most 63" "$out"
"$AFWCTL" -n $NS_R rule del 8

# Errors a user can act on.
out=$("$AFWCTL" -n $NS_R rule add dport 80 drop 2>&1)
check_grep "ports without a protocol are refused naming the word" "'dport': ports need proto" "$out"
out=$("$AFWCTL" -n $NS_R rule add from 192.0.2.1/24 drop 2>&1)
check_grep "host bits beyond the prefix are refused" "bits set beyond the prefix length" "$out"
out=$("$AFWCTL" -n $NS_R rule add id 7 drop 2>&1)
check_grep "a duplicate id is refused by the kernel with its reason" "a rule with this id exists" "$out"
out=$("$AFWCTL" -n $NS_R rule del 99 2>&1)
check_grep "deleting an unknown id says so" "no rule with this id" "$out"
out=$("$AFWCTL" -n $NS_R rule add dir out iif rc drop 2>&1)
check_grep "an input interface on an output rule is refused" "outgoing packets have no input interface" "$out"
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" rule add drop 2>&1)
check_grep "nobody cannot add rules" "permission denied" "$out"
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" rule list 2>&1)
check_grep "nobody cannot list rules" "permission denied" "$out"

exit $AFW_FAILED
