#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QUIC live through NFQUEUE, on this host's kernel without the module: real
# Chromium sends its QUIC Initials (a post-quantum ClientHello of about
# 1.9 KB over two Initials, CRYPTO frames scrambled) to a UDP server that
# logs what arrives and never answers. afwd must decrypt the Initials,
# reassemble the ClientHello and decide by its SNI. An allowed flow's
# datagrams all reach the server; a denied flow's server never receives the
# Initial that completes the ClientHello, nor anything after it. afwd runs
# with --io poll here, so that the poll() way is tested too (the other host
# tests use io_uring).
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd quic] "
pair_tools="chromium"
pair_init afwdq 10.198.0
pair_up

ip netns exec $S python3 "$src/tests/tools/udpsink.py" $SA 443 $work/sink.log &
wait_until 5 sh -c "ip netns exec $S ss -lun | grep -q '$SA:443 '" ||
	{ not_ok "the UDP server listens" "udpsink.py did not start"; exit 1; }

# With the module's re-queueing of client Initials on decided flows: Chromium's
# later Initials must be known as its connection's, and pass.
requeue() { pair_chain "-p udp --dport 443" "-p udp --sport 443" && pair_quic_requeue; }
check "the chain of docs/afwd.md for UDP 443 in the server's namespace, Initials re-queued" \
	requeue

cat > $work/policy.conf << 'POLICY'
default deny
prio 10 host allowed.test l7 quic alpn h3 allow
POLICY
ip netns exec $S "$afwd" -q 0 --module off --io poll -p $work/policy.conf --ctl $work/afwd.sock -j \
	2> $work/afwd.log &
apid=$!
check "afwd starts on queue 0" wait_until 5 grep -q 'afwd: ready' $work/afwd.log
check_grep "waiting with poll(), as told" "queues wait with poll" "$(cat $work/afwd.log)"

# quic NAME: Chromium loads https://NAME/ over QUIC only; it gives up after
# a few seconds without an answer. Prints the source port it used, read
# from the server's log (empty if nothing arrived).
quic() {
	local before
	before=$(wc -l < $work/sink.log)
	ip netns exec $C timeout 30 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir=$work/chromium-$1 --enable-quic \
		--origin-to-force-quic-on="$1:443" --host-resolver-rules="MAP $1 $SA" \
		--dump-dom "https://$1/" > /dev/null 2> $work/chromium-$1.log
	tail -n +"$((before + 1))" $work/sink.log > $work/sink-$1.log
}
# datagrams NAME: how many of NAME's datagrams reached the server.
datagrams() { wc -l < $work/sink-$1.log; }

quic allowed.test
log=$(cat $work/afwd.log)
check_grep "afwd decodes Chromium's Initials and allows the name" \
	'"proto":"quic".*"sni":"allowed.test".*"alpn":\["h3"\].*"verdict":"allow"' "$log"
check_grep "with a JA4 of QUIC (q13...)" '"sni":"allowed.test".*"ja4":"q13' "$log"
check_ge "every datagram of the allowed flow reached the server (two Initials and retries)" \
	3 "$(datagrams allowed.test)"

quic denied.test
log=$(cat $work/afwd.log)
check_grep "the denied name is decided from its ClientHello" \
	'"proto":"quic".*"sni":"denied.test".*"verdict":"deny"' "$log"
n=$(datagrams denied.test)
check "the server received at most the first Initial of the denied flow (got $n)" \
	test "$n" -le 1

stats=$("$afwd" --stats --ctl $work/afwd.sock)
check_grep "afwd counts a quic decision for each" '"allow":1,"deny":1' "$stats"
exit $AFW_FAILED
