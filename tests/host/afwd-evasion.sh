#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd against clients that show it one stream and the server another, with
# a real OpenSSL server (python ssl) that logs every name it parses. afwd
# guards the client's host (OUTPUT and INPUT, the chain of docs/afwd.md,
# without the module); a router stands between the client and the server,
# so that a packet can die on the way. For every attempt, the name the
# server parsed must be one afwd allowed, or the server parsed nothing.
#
#   client C 10.201.1.1 --- R 10.201.1.2 | 10.201.2.1 --- server S 10.201.2.2
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host afwd evasion] "
afwd=$src/build/afwd
C=afwe-c-$$
R=afwe-r-$$
S=afwe-s-$$
CA=10.201.1.1
SA=10.201.2.2
apid=
work=$(mktemp -d)

cleanup() {
	[ -n "$apid" ] && kill "$apid" 2> /dev/null
	for ns in $C $R $S; do
		ip netns pids "$ns" 2> /dev/null | xargs -r kill 2> /dev/null
		ip netns del "$ns" 2> /dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
for tool in ip iptables ethtool python3 openssl jq; do
	command -v "$tool" > /dev/null || { not_ok "$tool is installed" "run 'make deps'"; exit 1; }
done
[ -x "$afwd" ] || { not_ok "afwd is built" "run 'make'"; exit 1; }

up() {
	ip netns add $C && ip netns add $R && ip netns add $S &&
	ip -n $C link add veth0 type veth peer name c0 netns $R &&
	ip -n $S link add veth0 type veth peer name s0 netns $R &&
	ip -n $C addr add $CA/24 dev veth0 && ip -n $R addr add 10.201.1.2/24 dev c0 &&
	ip -n $S addr add $SA/24 dev veth0 && ip -n $R addr add 10.201.2.1/24 dev s0 &&
	for l in "$C veth0" "$C lo" "$R c0" "$R s0" "$R lo" "$S veth0" "$S lo"; do
		ip -n ${l% *} link set ${l#* } up || return 1
	done &&
	ip -n $C route add default via 10.201.1.2 && ip -n $S route add default via 10.201.2.1 &&
	ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 &&
	# veth marks a raw socket's packets as checksum-verified unless told not
	# to: then the server would take a bad checksum, as no real one does.
	ip netns exec $R ethtool -K c0 rx off > /dev/null &&
	ip netns exec $S ethtool -K veth0 rx off > /dev/null &&
	ip netns exec $C ping -c1 -W2 $SA > /dev/null
}
check "client, router and server namespaces, routed" up || exit 1

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
	-addext "subjectAltName=DNS:allowed.test,DNS:denied.test" \
	-keyout $work/key.pem -out $work/cert.pem 2> /dev/null ||
	{ not_ok "a test certificate" "openssl req failed"; exit 1; }
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 443 $work/cert.pem $work/key.pem \
	$work/server.log &
for i in $(seq 50); do
	ip netns exec $S ss -ltn | grep -q ":443 " && break
	sleep 0.1
done

# The chain of docs/afwd.md on the client's host, both directions. The
# crafting client's kernel has no socket for its connections and would
# reset them: its own resets (not the crafted ones, marked 0x100) go.
chain() {
	local ipt="ip netns exec $C iptables"
	$ipt -N afw &&
	$ipt -A afw -m mark ! --mark 0x0/0xff -j CONNMARK --save-mark --nfmask 0xff --ctmask 0xff &&
	$ipt -A afw -m connmark --mark 0xa1/0xff -j ACCEPT &&
	$ipt -A afw -m connmark --mark 0xa2/0xff -j DROP &&
	$ipt -A afw -j NFQUEUE --queue-num 0 &&
	$ipt -A OUTPUT -p tcp --dport 443 --tcp-flags RST RST -m mark ! --mark 0x100/0x100 -j DROP &&
	$ipt -A OUTPUT -p tcp --dport 443 -j afw &&
	$ipt -A INPUT -p tcp --sport 443 -j afw
}
check "the afw chain on the client, OUTPUT and INPUT" chain

cat > $work/policy.conf << 'POLICY'
default allow
prio 10 host allowed.test allow
prio 20 host denied.test deny
POLICY
# The analysis time cut to a second and the packets without new bytes to
# 8, so that real_clients' late, paused and kept-alive hellos come past them.
ip netns exec $C "$afwd" -q 0 --module off -p $work/policy.conf --ctl $work/afwd.sock -j \
	--max-time 1000 --max-packets 8 2> $work/afwd.log &
apid=$!
for i in $(seq 50); do grep -q 'afwd: ready' $work/afwd.log && break; sleep 0.1; done
check_grep "afwd runs" "afwd: ready" "$(cat $work/afwd.log)"

. "$src/tests/lib/evasion.sh"
afwd_stat() { "$afwd" --stats --ctl $work/afwd.sock | jq "$1"; }
craft() { ip netns exec $C python3 "$src/tests/tools/tcpcraft.py" --wait 0.8 "$@" veth0 $CA $SA; }
client() { ip netns exec $C python3 "$src/tests/tools/helloclient.py" "$1" $SA "$2"; }

# The crafting client itself works: a plain hello reaches the server.
craft plain --real allowed.test > $work/out 2>&1
check_eq "a crafted connection to an allowed name: the server parses it" 1 \
	"$(parsed allowed.test)"
check_grep "and acknowledges it" "acked" "$(cat $work/out)"
craft plain --real denied.test > /dev/null 2>&1
check_eq "a crafted connection to a denied name: the server never parses it" 0 \
	"$(parsed denied.test)"

# A fake hello for the allowed name that the server's stack never takes,
# then the real one for the denied name at the same offsets.
for how in ttl csum noack badack syndata; do
	check_eq "$how: the server never parses the denied name" 0 "$(denied craft $how)"
done
check_eq "none of those fakes reached OpenSSL either" 1 "$(parsed allowed.test)"
# A connection to the allowed name, reset, then the same ports again.
check_eq "reuse: the second connection's denied name is never parsed" 0 "$(denied craft reuse)"
check_eq "reuse: the first connection's name was" 2 "$(parsed allowed.test)"

# Real clients over this host's own stack.
check_eq "urgent byte, then an allowed hello: the handshake completes" handshake \
	"$(client oob allowed.test)"
real_clients

# What the server parsed is what afwd allowed, name by name.
log=$(cat $work/afwd.log)
allowed=$(grep '^{' $work/afwd.log | jq -r 'select(.verdict == "allow") | .sni' | sort -u)
for name in $(sed -n 's/^sni //p' $work/server.log | sort -u); do
	check_grep "the server parsed $name: afwd allowed it" "^$name\$" "$allowed"
done
check_grep "the TTL and SYN-data fakes were refused as evasion" \
	'"giveup":"evasion","verdict":"deny"' "$log"
check_eq "the denied name was denied each time afwd read it (at least 9)" yes \
	"$(grep '^{' $work/afwd.log | jq -r 'select(.sni == "denied.test") | .verdict' |
		awk '$1 == "deny" { n++ } END { print (n >= 9 ? "yes" : "no") }')"
exit $AFW_FAILED
