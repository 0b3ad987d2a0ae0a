#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What afwd reads is what real servers read, through NFQUEUE on this host's
# kernel: streams OpenSSL (python ssl), nginx and Python's http.server
# accept in shapes afwd once called "neither TLS nor HTTP". Each shape is
# sent once to an allowed name and once to a denied one: the allowed
# request must reach the server, which logs the name it acted on; the
# denied one must not. $AFWD names another afwd binary to test.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd readers] "
pair_tools="curl openssl nginx"
pair_init afwdr 10.197.0
pair_up

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
	-keyout $work/key.pem -out $work/cert.pem 2> /dev/null ||
	{ not_ok "a test certificate" "openssl req failed"; exit 1; }
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 443 $work/cert.pem $work/key.pem \
	$work/tls.log &
ip netns exec $S python3 "$src/tests/tools/hostserver.py" $SA 8000 $work/py.log &
pair_nginx
for port in 443 8000 80 8080; do
	wait_until 5 sh -c "ip netns exec $S ss -ltn | grep -q '$SA:$port '" ||
		{ not_ok "the server on port $port listens" "see $work"; exit 1; }
done
check "the chain of docs/afwd.md for TCP 80, 443, 8000 and 8080" \
	pair_chain "-p tcp -m multiport --dports 80,443,8000,8080" \
		"-p tcp -m multiport --sports 80,443,8000,8080"

cat > $work/policy.conf << 'POLICY'
default allow
prio 10 host denied.test deny
prio 20 host inspect.test inspect
prio 30 proto tcp dport 80,443,8000,8080 reason timeout,bound,table-full,not-tls,malformed,evasion,undecodable deny
prio 40 l7 http name none dport 80 deny
POLICY
ip netns exec $S "$afwd" -q 0 --module off -p $work/policy.conf --ctl $work/afwd.sock -j \
	2> $work/afwd.log &
apid=$!
check "afwd starts on queue 0" wait_until 5 grep -q 'afwd: ready' $work/afwd.log

hex() { printf '%b' "$1" | od -An -v -tx1 | tr -d ' \n'; }
# http PORT BYTES [BYTES2]: the status line(s) the server answered, "-" for none.
http() {
	ip netns exec $C python3 "$src/tests/tools/rawclient.py" http $SA "$1" "$(hex "$2")" \
		${3:+"$(hex "$3")"} 2> /dev/null
}
tls() { ip netns exec $C python3 "$src/tests/tools/rawclient.py" tls $SA 443 "$@" 2> /dev/null; }
served() { grep -c "$2" "$work/$1" 2> /dev/null; }

# TLS: OpenSSL 3.0 takes any record version 3.x and skips empty records.
for v in 0305 03ff; do
	check_eq "TLS, first record version $v, allowed name: the handshake completes" ok \
		"$(tls allowed.test $v)"
	check_eq "TLS, first record version $v, denied name: no handshake" - "$(tls denied.test $v)"
done
check_eq "TLS after 3 empty handshake records, allowed name: completes" ok \
	"$(tls allowed.test 0303 3)"
check_eq "TLS after 3 empty handshake records, denied name: no handshake" - \
	"$(tls denied.test 0303 3)"
check_eq "the TLS server completed handshakes for the allowed name only" \
	"3 0" "$(served tls.log '^handshake allowed.test ') $(served tls.log '^handshake denied.test ')"

# HTTP/1.x shapes nginx 1.22 serves.
for shape in '\r\n' '\r\n\r\n\n' ; do
	check_eq "nginx, request after empty lines, allowed: served" "HTTP/1.1 200 OK" \
		"$(http 80 "${shape}GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n")"
	check_eq "nginx, request after empty lines, denied: no answer" - \
		"$(http 80 "${shape}GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n")"
done
for method in X-Y A_B ABCDEFGHIJKLMNOPQRSTUVWXYZ; do
	check_eq "nginx, method $method, allowed: served" "HTTP/1.1 200 OK" \
		"$(http 80 "$method / HTTP/1.1\r\nHost: allowed.test\r\n\r\n")"
	check_eq "nginx, method $method, denied: no answer" - \
		"$(http 80 "$method / HTTP/1.1\r\nHost: denied.test\r\n\r\n")"
done
check_eq "nginx, blanks between the parts, allowed: served" "HTTP/1.1 200 OK" \
	"$(http 80 "GET  /  HTTP/1.1 \r\nHost: allowed.test\r\n\r\n")"
check_eq "nginx, blanks between the parts, denied: no answer" - \
	"$(http 80 "GET  /  HTTP/1.1 \r\nHost: denied.test\r\n\r\n")"
check_eq "nginx, HTTP/0.9 without a name, port 80: denied by 'name none'" - \
	"$(http 80 "GET /\r\n")"
check_eq "nginx served every allowed request, and no denied one" "6 0" \
	"$(served nginx.log '^allowed.test ') $(served nginx.log '^denied.test ')"
check_eq "nginx never served an HTTP/0.9 request" 0 "$(served nginx.log '^_ ')"

# Shapes Python's http.server serves.
for line in ' GET / HTTP/1.1' 'get / HTTP/1.1' 'GET\t/ HTTP/1.1'; do
	check_eq "http.server, '$line', allowed: served" "HTTP/1.1 200 OK" \
		"$(http 8000 "$line\r\nHost: allowed.test\r\n\r\n")"
	check_eq "http.server, '$line', denied: no answer" - \
		"$(http 8000 "$line\r\nHost: denied.test\r\n\r\n")"
done
# A head ended by the client's FIN, without its empty line: http.server
# takes the end of the stream as the end of the head, and so does afwd.
eof() { ip netns exec $C python3 "$src/tests/tools/rawclient.py" eof $SA "$1" "$(hex "$2")" 2> /dev/null; }
check_eq "http.server, a head ended by a FIN, allowed: served" "HTTP/1.1 200 OK" \
	"$(eof 8000 "GET / HTTP/1.1\r\nHost: allowed.test\r\n")"
check_eq "http.server, a head ended by a FIN, denied: no answer" - \
	"$(eof 8000 "GET / HTTP/1.1\r\nHost: denied.test\r\n")"
check_eq "http.server, a head ended by a FIN inside its Host line, denied: no answer" - \
	"$(eof 8000 "GET / HTTP/1.1\r\nHost: denied.test")"
check_eq "http.server served the allowed requests, and no denied one" "4 0" \
	"$(served py.log ' allowed.test$') $(served py.log ' denied.test$')"

# HTTP/2 with prior knowledge: curl to nginx (listen ... http2).
h2() {
	ip netns exec $C curl -sS --max-time 3 --http2-prior-knowledge -o /dev/null \
		-w '%{http_version} %{http_code}' "http://$1:8080/" 2> /dev/null
}
check_eq "HTTP/2 prior knowledge, allowed :authority: served over h2" "2 200" \
	"$(ip netns exec $C curl -sS --max-time 3 --http2-prior-knowledge --resolve allowed.test:8080:$SA \
		-o /dev/null -w '%{http_version} %{http_code}' http://allowed.test:8080/)"
check_eq "HTTP/2 prior knowledge, denied :authority: not served" "" \
	"$(ip netns exec $C curl -sS --max-time 3 --http2-prior-knowledge --resolve denied.test:8080:$SA \
		-o /dev/null -w '%{http_code}' http://denied.test:8080/ 2> /dev/null | tr -d 0)"
check_eq "nginx served h2 for the allowed name only" "1 0" \
	"$(served nginx-h2.log '^allowed.test ') $(served nginx-h2.log '^denied.test ')"
check_grep "afwd logs the h2 request with its :authority" \
	'"proto":"http".*"http_host":"allowed.test","http_method":"GET".*"reason":"http/2' \
	"$(cat $work/afwd.log)"

# Pipelining under inspect: the second request on the connection is judged too.
check_eq "inspected connection: the first request is served, the second to a denied host is not" \
	"HTTP/1.1 200 OK -" "$(http 80 "GET / HTTP/1.1\r\nHost: inspect.test\r\n\r\n" \
		"GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n" | tr '\n' ' ' | sed 's/ $//')"
check_eq "and nginx saw only the first" "1 0" \
	"$(served nginx.log '^inspect.test ') $(served nginx.log '^denied.test ')"
check_eq "two requests in one segment: the denied second one stops the flow" "-" \
	"$(http 80 "GET / HTTP/1.1\r\nHost: inspect.test\r\n\r\nGET / HTTP/1.1\r\nHost: denied.test\r\n\r\n")"
check_eq "and nginx served neither of them" "1 0" \
	"$(served nginx.log '^inspect.test ') $(served nginx.log '^denied.test ')"
# ALPN: every id is matched, and every id is logged as a string of its own.
python3 "$src/tests/tools/hellopcap.py" $work/alpn.pcap alpn.test h2 'a,b' 'x\x00y' &&
	python3 "$src/tests/tools/hellopcap.py" $work/alpn40.pcap alpn.test $(seq -f 'proto-%g' 0 39)
printf 'default allow\nalpn proto-39 deny\n' > $work/alpn.conf
check_eq "an ALPN id with a comma or a NUL is logged as one escaped string" \
	'["h2","a,b","x\u0000y"]' \
	"$("$afwd" --pcap $work/alpn.pcap -p $work/alpn.conf -j 2> /dev/null | jq -c .alpn)"
check_eq "the 40th of 40 ALPN ids is matched" deny \
	"$("$afwd" --pcap $work/alpn40.pcap -p $work/alpn.conf -j 2> /dev/null | jq -r .verdict)"
[ -n "${AFW_KEEP:-}" ] && cp -r $work /tmp/afwd-readers-work
exit $AFW_FAILED
