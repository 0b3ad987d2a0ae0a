#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a real server could act on another name than the one afwd judged:
# shapes of TLS (a second ClientHello after the server's HelloRetryRequest),
# HTTP/1.x and HTTP/2 sent through NFQUEUE to OpenSSL (python ssl), nginx
# and Python's http.server, which log the names they act on. A denied name
# must never reach a server's log; an allowed request a real client would
# send must be served. Each check also says what afwd decided, from its log.
# $AFWD names another afwd binary to test.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd differential] "
pair_tools="openssl nginx jq"
pair_init afwdd 10.195.0
pair_up
# A refused request is one without an answer within 3 s: less, and an
# allowed one may miss it on a loaded machine (answers come at once).
export AFW_RAW_WAIT=3

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
	-keyout $work/key.pem -out $work/cert.pem 2> /dev/null ||
	{ not_ok "a test certificate" "openssl req failed"; exit 1; }
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 443 $work/cert.pem $work/key.pem \
	$work/tls.log &
# The same, taking P-256 key shares only: a client offering X25519 first
# gets a HelloRetryRequest.
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 4443 $work/cert.pem $work/key.pem \
	$work/tls-p256.log prime256v1 &
# One more on a port no policy line refuses mid-stream flows on.
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 6443 $work/cert.pem $work/key.pem \
	$work/tls-6443.log &
# One more, that only a guard on the client's host stands before.
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 5443 $work/cert.pem $work/key.pem \
	$work/tls-c.log &
ip netns exec $S python3 "$src/tests/tools/hostserver.py" $SA 8000 $work/py.log &
pair_nginx
for port in 443 4443 5443 6443 8000 80 8080; do
	wait_until 5 sh -c "ip netns exec $S ss -ltn | grep -q '$SA:$port '" ||
		{ not_ok "the server on port $port listens" "see $work"; exit 1; }
done
ports=80,443,4443,6443,8000,8080
check "the chain of docs/afwd.md for TCP $ports" \
	pair_chain "-p tcp -m multiport --dports $ports" "-p tcp -m multiport --sports $ports"

# The crafting client's kernel has no socket for its connections and would
# reset them: its own resets (not the crafted ones, marked 0x100) go.
ip netns exec $C iptables -A OUTPUT -p tcp --tcp-flags RST RST -m mark ! --mark 0x100/0x100 -j DROP
# A closed connection's conntrack entry goes after a second, not ten.
ip netns exec $S sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_close=1

# The shipped policy, and names to judge. afwd remembers 64 decided flows
# (--max-decided), so that a client can make it forget one cheaply.
{ cat "$src/dist/policy.conf"; cat << 'POLICY'
prio 10 host denied.test deny
prio 20 host inspect.test inspect
prio 100 proto tcp dport 4443,8000,8080 reason timeout,bound,table-full,not-tls,malformed,evasion,undecodable,mid-stream deny
POLICY
} > $work/policy.conf
ip netns exec $S "$afwd" -q 0 --module off -p $work/policy.conf --ctl $work/afwd.sock -j \
	--max-decided 64 2> $work/afwd.log &
apid=$!
check "afwd starts on queue 0" wait_until 5 grep -q 'afwd: ready' $work/afwd.log

# count LOG PATTERN: lines of a server's log that match.
count() { cat "$work/$1" 2> /dev/null | grep -c -- "$2"; }
# decided SPORT-PATTERN: afwd's "sni verdict giveup" for the flows so far, by port.
afwd_said() { grep '^{' $work/afwd.log | jq -r "$1" | tr '\n' ' ' | sed 's/ $//'; }
hello() { ip netns exec $C python3 "$src/tests/tools/hellocraft.py" "$@" $SA 443 \
	allowed.test denied.test 2> /dev/null; }

# TLS 1.3: a HelloRetryRequest lets the client send a second hello, and
# OpenSSL reads its server_name anew (the SNI callback runs again).
check_eq "HelloRetryRequest: the server answers the first hello with one" "hrr" \
	"$(hello hrr | cut -d' ' -f1)"
check_eq "a second hello naming a denied name after it: OpenSSL never parses that name" 0 \
	"$(count tls.log '^sni denied.test$')"
hello hrr-ccs > /dev/null
check_eq "the same after a change_cipher_spec record (middlebox compatibility)" 0 \
	"$(count tls.log '^sni denied.test$')"
hello hrr-early > /dev/null
check_eq "both hellos in one segment, before the server answers: never parsed" 0 \
	"$(count tls.log '^sni denied.test$')"
check_eq "afwd denied each of them as evasion" "evasion evasion evasion" \
	"$(afwd_said 'select(.dport == 443) | select(.giveup == "evasion") | .giveup')"
check_eq "TLS 1.2: a second hello after the ServerHello is refused by OpenSSL itself" \
	"server-hello" "$(hello tls12 | cut -d' ' -f1)"
check_eq "and never parsed" 0 "$(count tls.log '^sni denied.test$')"
# The same second hello naming the same name is what real clients send.
check_eq "a second hello naming the same allowed name: the server answers it" \
	"hrr server-hello" "$(ip netns exec $C python3 "$src/tests/tools/hellocraft.py" hrr-ccs \
		$SA 443 allowed.test allowed.test 2> /dev/null | cut -d' ' -f1-2)"
rawtls() { ip netns exec $C python3 "$src/tests/tools/rawclient.py" tls $SA "$@" 2> /dev/null; }
check_eq "python ssl's own client, allowed name: the handshake completes" ok \
	"$(rawtls 443 allowed.test 0303)"
check_eq "the same, the server asking for another key share first: it completes" ok \
	"$(rawtls 4443 allowed.test 0303)"
check_eq "and the server read the allowed name from both hellos" 2 \
	"$(count tls-p256.log '^sni allowed.test$')"
check_eq "a denied name, the server asking for another key share: never parsed" "- 0" \
	"$(rawtls 4443 denied.test 0303) $(count tls-p256.log '^sni denied.test$')"

# HTTP/1.x: the name nginx and http.server act on, in every place a
# request can give one.
hex() { printf '%b' "$1" | od -An -v -tx1 | tr -d ' \n'; }
http() {
	ip netns exec $C python3 "$src/tests/tools/rawclient.py" http $SA "$1" "$(hex "$2")" \
		${3:+"$(hex "$3")"} 2> /dev/null
}
split() {
	local port=$1 args=() p
	shift
	for p in "$@"; do args+=("$(hex "$p")"); done
	ip netns exec $C python3 "$src/tests/tools/rawclient.py" split $SA $port "${args[@]}" \
		2> /dev/null
}
OK="HTTP/1.1 200 OK"
# shape NAME OK|- BYTES: nginx's answer to BYTES must be the status line or
# none; the shapes are all sent at once by shapes_check, which waits 3 s
# for the answers that do not come.
shapes=()
shape() { shapes+=("$1" "$2" "$3"); }
shapes_check() {
	local i pids=()
	for ((i = 0; i < ${#shapes[@]}; i += 3)); do
		http 80 "${shapes[i + 2]}" > $work/shape.$i &
		pids+=($!)
	done
	wait "${pids[@]}"
	for ((i = 0; i < ${#shapes[@]}; i += 3)); do
		check_eq "nginx, ${shapes[i]}" "${shapes[i + 1]}" "$(cat $work/shape.$i)"
	done
	shapes=()
}
shape "absolute-form target naming the allowed name, Host the same: served" "$OK" \
	"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n"
# RFC 9112 3.2.2: the target's authority wins, and nginx serves it.
shape "absolute-form target naming a denied name, Host the allowed one: refused" - \
	"GET http://denied.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n"
shape "absolute-form target naming a denied name, no Host: refused" - \
	"GET http://denied.test/ HTTP/1.1\r\n\r\n"
shape "absolute-form target in upper case, another scheme: refused" - \
	"GET FTP://DENIED.TEST:80/x HTTP/1.1\r\nHost: denied.test\r\n\r\n"
shape "two Host headers, the denied one second: refused" - \
	"GET / HTTP/1.1\r\nHost: allowed.test\r\nHost: denied.test\r\n\r\n"
for host in DENIED.TEST denied.test. denied.test:80 denied.test.:8080 ' denied.test '; do
	shape "Host '$host': refused" - "GET / HTTP/1.1\r\nHost:$host\r\n\r\n"
done
for host in 'x@denied.test' 'denied%2etest' 'denied.test\t:80'; do
	shape "Host '$host': refused" - "GET / HTTP/1.1\r\nHost: $host\r\n\r\n"
done
shape "Host continued on a folded line: refused" - \
	"GET / HTTP/1.1\r\nHost: allowed.test\r\n denied.test\r\n\r\n"
shape "a space before the colon, 'Host : denied.test': refused" - \
	"GET / HTTP/1.1\r\nHost : denied.test\r\nHost: allowed.test\r\n\r\n"
shape "bare LF line ends, allowed name: served" "$OK" "GET / HTTP/1.1\nHost: allowed.test\n\n"
shape "bare LF line ends, denied name: refused" - "GET / HTTP/1.1\nHost: denied.test\n\n"
shape "a body on a GET, Expect: 100-continue, allowed name: served" "HTTP/1.1 200 OK" \
	"GET / HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 4\r\n\r\nbody"
shapes_check
check_eq "nginx, the Host line in a segment of its own, after a pause: denied" - \
	"$(split 80 "GET / HTTP/1.1\r\nUser-Agent: x\r\n" "Host: denied.te" "st\r\n\r\n")"
check_eq "nginx, the same with the allowed name: served" "$OK" \
	"$(split 80 "GET / HTTP/1.1\r\nUser-Agent: x\r\n" "Host: allowed.te" "st\r\n\r\n")"
check_eq "nginx served allowed.test only, never denied.test" "0" "$(count nginx.log '^denied')"
check_eq "http.server, absolute-form target, Host the allowed name: refused (malformed)" - \
	"$(http 8000 "GET http://denied.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n")"
# Under inspect, every request head is read, bodies skipped by their
# length; http.server's handlers that do not read a body (as this one)
# leave it to be read as the next request.
body="GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n"
check_eq "http.server, inspected: a POST whose body is a request to a denied name: refused" - \
	"$(http 8000 "POST / HTTP/1.1\r\nHost: inspect.test\r\nContent-Length: 38\r\n\r\n$body" |
		tail -1)"
# The smuggled head left open, to be ended by the next real request: the
# server reads a head with two Hosts, and http.server serves the first.
body="GET / HTTP/1.1\r\nHost: denied.test\r\nX: "
check_eq "http.server, inspected: a body that opens a request the next one ends: refused" \
	"HTTP/1.1 200 OK -" "$(http 8000 \
		"POST / HTTP/1.1\r\nHost: inspect.test\r\nContent-Length: 38\r\n\r\n$body" \
		"GET / HTTP/1.1\r\nHost: inspect.test\r\n\r\n" | tr '\n' ' ' | sed 's/ $//')"
check_eq "http.server never served denied.test" "0" "$(count py.log 'denied.test')"
check_eq "nginx, inspected: a POST with a body, then a GET: both served" "$OK $OK" \
	"$(http 80 "POST / HTTP/1.1\r\nHost: inspect.test\r\nContent-Length: 7\r\n\r\n{\"a\":1}" \
		"GET / HTTP/1.1\r\nHost: inspect.test\r\n\r\n" | tr '\n' ' ' | sed 's/ $//')"

# A flow denied on its hello, forgotten: conntrack drops its entry after a
# reset (the server never sees it), and 80 flows without a SYN push afwd's
# record of it out; then the hello again, in the middle of the connection.
n0=$(count tls.log '^sni denied.test$')
ip netns exec $C python3 "$src/tests/tools/tcpcraft.py" --wait 1 --pause 1.5 --flood 80 \
	resume veth0 $CA $SA > $work/resume.out 2>&1
check_eq "a denied flow forgotten, its hello again mid-stream: OpenSSL never parses it" "$n0" \
	"$(count tls.log '^sni denied.test$')"
check_eq "the shipped policy refuses mid-stream flows on port 443 (reset)" reject \
	"$(grep '^{' $work/afwd.log | jq -r 'select(.giveup == "mid-stream" and .dport == 443 and
		.sport == '"$(sed -n 's/^sport //p' $work/resume.out)"') | .verdict' | sort -u)"
# The same where the policy lets mid-stream flows through ("reason
# mid-stream allow"): the hello, whole in its segment, is read all the same,
# and the name it gives refused.
ip netns exec $C python3 "$src/tests/tools/tcpcraft.py" --dport 6443 --wait 1 --pause 1.5 \
	--flood 80 resume veth0 $CA $SA > $work/resume-6443.out 2>&1
check_eq "the same where mid-stream flows pass: OpenSSL never parses the hello" 0 \
	"$(count tls-6443.log '^sni denied.test$')"
check_eq "afwd read it mid-stream, and denied it by its name" deny \
	"$(afwd_said 'select(.dport == 6443 and .sport == '"$(sed -n 's/^sport //p' \
		$work/resume-6443.out)"' and (.reason | startswith("joined mid-stream: tls"))) |
		.verdict' | tr ' ' '\n' | sort -u)"

# A guard on the client's own host, as a router without conntrack is:
# marks on the deciding packet, and every other packet asks afwd again. No
# conntrack runs there, so IP fragments come to afwd as they are, and only
# the server's host puts them together.
cguard() {
	local ipt="ip netns exec $C iptables"
	$ipt -N afwc && $ipt -A afwc -m mark --mark 0xa1/0xff -j ACCEPT &&
	$ipt -A afwc -m mark --mark 0xa2/0xff -j DROP &&
	$ipt -A afwc -j NFQUEUE --queue-num 0 &&
	$ipt -A OUTPUT -p tcp -d $SA -j afwc && $ipt -A INPUT -p tcp -s $SA -j afwc
}
check "a guard on the client's host, without conntrack" cguard
printf 'default allow\nprio 10 host denied.test deny\n' > $work/client.conf
ip netns exec $C "$afwd" -q 0 --module off -p $work/client.conf --ctl $work/afwd-c.sock -j \
	2> $work/afwd-c.log &
capid=$!
check "afwd starts on the client's host" wait_until 5 grep -q 'afwd: ready' $work/afwd-c.log
ip netns exec $C python3 "$src/tests/tools/tcpcraft.py" --dport 5443 --wait 1 frag veth0 $CA $SA \
	> $work/frag.out 2>&1
check_eq "a hello in two IP fragments: the server never parses the denied name" 0 \
	"$(count tls-c.log '^sni denied.test$')"
ip netns exec $C python3 "$src/tests/tools/tcpcraft.py" --dport 5443 --wait 1 --real allowed.test \
	plain veth0 $CA $SA > $work/plain.out 2>&1
check_eq "the same guard lets a whole hello for the allowed name through" 1 \
	"$(count tls-c.log '^sni allowed.test$')"
kill $capid

[ -n "${AFW_KEEP:-}" ] && cp -r $work /tmp/afwd-differential-work
exit $AFW_FAILED
