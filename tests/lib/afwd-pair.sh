# SPDX-License-Identifier: GPL-2.0
#
# For afwd's host tests: a client and a server network namespace on a veth
# pair, afwd guarding the server with the iptables chain of docs/afwd.md,
# both directions of a flow queued (INPUT and OUTPUT). Source after tap.sh,
# with $src set.
#
#   pair_init TAG NET     names C and S from TAG, CA=NET.1 and SA=NET.2,
#                         makes $work, cleans both up on exit; checks that
#                         the TOOLS in $pair_tools and afwd are there
#   pair_up               the namespaces and the veth pair, addressed
#   pair_chain IN OUT [BYPASS]  the chain, for INPUT packets matching IN
#                         (e.g. "-p tcp --dport 443") and OUTPUT packets
#                         matching OUT (the replies: "-p tcp --sport 443"),
#                         queue 0, and NFQUEUE's BYPASS option
#                         (--queue-bypass) or none; the marks are
#                         $pair_mark_base (default 0xa0) + 1..3
#   pair_afwd ARG...      afwd on queue 0 in $S, waited for until ready
#   pair_tls_server NAME...  a TLS server for the NAMEs on $SA:443
#   pair_quic_requeue     adds what the module does for installed UDP flows:
#                         client QUIC Initials (long header, fixed bit, 1200
#                         bytes or more) of a decided flow go to queue 0 again
# $apid, when set, is afwd's pid: it is killed on exit.

afwd=${AFWD:-$src/build/afwd}
apid=

pair_cleanup() {
	[ -n "$apid" ] && kill "$apid" 2> /dev/null
	ip netns pids "$S" 2> /dev/null | xargs -r kill 2> /dev/null
	ip netns pids "$C" 2> /dev/null | xargs -r kill 2> /dev/null
	ip netns del "$C" 2> /dev/null
	ip netns del "$S" 2> /dev/null
	rm -rf "$work"
}

pair_init() {
	local tool
	C=$1-c-$$
	S=$1-s-$$
	CA=$2.1
	SA=$2.2
	work=$(mktemp -d)
	# afwd reads the policy here as the user afw once it runs.
	chmod 755 "$work"
	trap pair_cleanup EXIT
	for tool in ip iptables python3 ${pair_tools:-}; do
		command -v "$tool" > /dev/null ||
			{ not_ok "$tool is installed" "run 'make deps'"; exit 1; }
	done
	[ -x "$afwd" ] || { not_ok "afwd is built" "run 'make'"; exit 1; }
}

pair_up() {
	ip netns add "$C" && ip netns add "$S" &&
	ip -n "$C" link add veth0 type veth peer name veth0 netns "$S" &&
	ip -n "$C" addr add "$CA/24" dev veth0 && ip -n "$S" addr add "$SA/24" dev veth0 &&
	ip -n "$C" link set veth0 up && ip -n "$S" link set veth0 up &&
	ip -n "$C" link set lo up && ip -n "$S" link set lo up ||
		{ not_ok "two network namespaces on a veth pair" "ip failed"; exit 1; }
}

pair_chain() {
	local in=$1 out=$2 bypass=${3:-} ipt="ip netns exec $S iptables"
	local base=$((${pair_mark_base:-0xa0}))
	$ipt -F INPUT && $ipt -F OUTPUT &&
	{ $ipt -F afw 2> /dev/null || $ipt -N afw; } &&
	$ipt -A afw -m mark ! --mark 0x0/0xff -j CONNMARK --save-mark --nfmask 0xff --ctmask 0xff &&
	$ipt -A afw -m connmark --mark $((base + 1))/0xff -j ACCEPT &&
	$ipt -A afw -m connmark --mark $((base + 2))/0xff -j DROP &&
	$ipt -A afw -p tcp --tcp-flags RST RST -m connmark --mark $((base + 3))/0xff -j ACCEPT &&
	$ipt -A afw -p tcp -m connmark --mark $((base + 3))/0xff -j REJECT --reject-with tcp-reset &&
	$ipt -A afw -j NFQUEUE --queue-num 0 $bypass &&
	$ipt -A INPUT $in -j afw &&
	$ipt -A OUTPUT $out -j afw
}

# pair_afwd ARG...: afwd in $S on queue 0 with $work/policy.conf and the
# control socket $work/afwd.sock, and ARGs; its stderr to $work/afwd.log
# (emptied first), its pid in $apid. Fails unless it says it is ready
# within 5 s.
pair_afwd() {
	local i
	: > "$work/afwd.log"
	ip netns exec "$S" "$afwd" -q 0 -p "$work/policy.conf" --ctl "$work/afwd.sock" "$@" \
		2> "$work/afwd.log" &
	apid=$!
	for i in $(seq 50); do
		grep -q 'afwd: ready' "$work/afwd.log" && return 0
		sleep 0.1
	done
	return 1
}

# pair_tls_server NAME...: a certificate for the NAMEs ($work/cert.pem and
# key.pem), and tests/tools/tlsserver.py on $SA:443 in $S, which logs each
# handshake to $work/server.log; returns once it listens.
pair_tls_server() {
	local san i
	san=$(printf 'DNS:%s,' "$@")
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
		-addext "subjectAltName=${san%,}" \
		-keyout "$work/key.pem" -out "$work/cert.pem" 2> /dev/null ||
		{ not_ok "a test certificate" "openssl req failed"; exit 1; }
	ip netns exec "$S" python3 "$src/tests/tools/tlsserver.py" "$SA" 443 "$work/cert.pem" \
		"$work/key.pem" "$work/server.log" &
	for i in $(seq 50); do
		ip netns exec "$S" ss -ltn | grep -q ":443 " && return 0
		sleep 0.1
	done
}

pair_quic_requeue() {
	# Only packets afwd has not marked: a re-injected one goes on to the connmark rules.
	ip netns exec "$S" iptables -I afw 1 -p udp -m mark --mark 0x0/0xff \
		-m length --length 1228:65535 -m u32 --u32 "0>>22&0x3C@8>>24&0xC0=0xC0" \
		-j NFQUEUE --queue-num 0
}

# pair_nginx: nginx in $S on $SA, a server that logs the Host it acts on:
# HTTP/1.1 on port 80 (log $work/nginx.log) and HTTP/2 with prior knowledge
# on 8080 ($work/nginx-h2.log), one line "HOST METHOD STATUS" a request.
pair_nginx() {
	cat > "$work/nginx.conf" << EOF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 64; }
http {
	log_format h '\$host \$request_method \$status';
	client_body_temp_path $work/nginx-body;
	server { listen $SA:80; access_log $work/nginx.log h; location / { return 200 "ok\n"; } }
	server { listen $SA:8080 http2; access_log $work/nginx-h2.log h;
		location / { return 200 "ok\n"; } }
}
EOF
	ip netns exec "$S" nginx -c "$work/nginx.conf" -p "$work" 2> "$work/nginx.out" &
}
