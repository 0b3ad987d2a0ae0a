#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd on this host's own kernel, without the module: behind an iptables
# NFQUEUE rule in a network namespace, with conntrack marks (docs/afwd.md).
# Real curl against a real TLS server; the server logs every handshake.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd] "
pair_tools="curl openssl"
pair_init afwdt 10.199.0
pair_up
# afwd guards the server's namespace (INPUT). The server offers a small MSS,
# so the client's ClientHello of about 500 bytes arrives in several segments,
# and with GRO off each is queued on its own: afwd must reassemble them.
ip -n $S route change 10.199.0.0/24 dev veth0 advmss 120
if command -v ethtool > /dev/null; then
	ip netns exec $C ethtool -K veth0 tso off gso off > /dev/null 2>&1
	ip netns exec $S ethtool -K veth0 tso off gso off gro off > /dev/null 2>&1
fi

pair_tls_server allowed.test denied.test x.rej.test inspect.test

# fetch NAME: curl in the client namespace; prints the body.
fetch() {
	ip netns exec $C curl -sS --max-time 4 --resolve "$1:443:$SA" --cacert $work/cert.pem \
		"https://$1/${2:-}"
}
handshakes() { grep -c "^handshake $1 " $work/server.log 2> /dev/null; }

# The chain of docs/afwd.md, for this test's TLS traffic only.
chain() { pair_chain "-p tcp --dport 443" "-p tcp --sport 443" "$1"; }
check "iptables NFQUEUE chain in the server namespace" chain ""

cat > $work/policy.conf << 'POLICY'
default deny
prio 10 host allowed.test l7 tls allow
prio 20 host *.rej.test reject
prio 30 host inspect.test inspect
POLICY

start_afwd() { pair_afwd -j; }
check "afwd starts on queue 0" start_afwd
check_grep "and says it runs without the module" "afw module not used" "$(cat $work/afwd.log)"
check_grep "and waits with io_uring" "queues wait with io_uring" "$(cat $work/afwd.log)"

check_eq "curl to an allowed name gets the page" "ok" "$(fetch allowed.test)"
check_eq "the server completed that handshake" 1 "$(handshakes allowed.test)"
out=$(fetch denied.test 2>&1)
check_eq "curl to a denied name fails" "" "$(fetch denied.test 2> /dev/null)"
check_eq "the server never completed a handshake for it" 0 "$(handshakes denied.test)"
out=$(fetch x.rej.test 2>&1)
check_grep "a rejected name is refused by a reset" "reset" "$out"
check_eq "the server never completed a handshake for that either" 0 "$(handshakes x.rej.test)"

log=$(cat $work/afwd.log)
check_grep "the decision log names the allowed flow, its SNI and rule" \
	'"proto":"tls".*"sni":"allowed.test".*"verdict":"allow","reason":"tls, policy line 2"' "$log"
check_grep "and the denied flow, by the default" '"sni":"denied.test".*"verdict":"deny","reason":"tls, default' "$log"
check_grep "and offers the client's ALPN and a JA4" '"alpn":\["h2","http/1.1"\].*"ja4":"t13d' "$log"

# afwd --flows: what it decided, by what, for whom. Without the module the
# verdicts are conntrack marks.
flows=$("$afwd" --flows --ctl $work/afwd.sock)
check_grep "afwd --flows lists the allowed flow, client to server, with its host and line" \
	"^{\"queue\":0,\"family\":\"ipv4\",\"proto\":6,\"src\":\"$CA\",\"sport\":[0-9]*,\"dst\":\"$SA\",\"dport\":443,\"decision\":\"allow\",\"where\":\"mark\",\"l7\":\"tls\",\"by\":\"$work/policy.conf:2\",\"host\":\"allowed.test\"}\$" \
	"$flows"
check_grep "and the denied one, by the default line" \
	"\"decision\":\"deny\",.*\"by\":\"$work/policy.conf:1 default\",\"host\":\"denied.test\"}" "$flows"
check_grep "and the rejected one, by its line" \
	"\"decision\":\"reject\",.*\"by\":\"$work/policy.conf:3\",\"host\":\"x.rej.test\"}" "$flows"
check_eq "every line of it is JSON" "$(echo "$flows" | wc -l)" \
	"$(echo "$flows" | jq -c . 2> /dev/null | wc -l)"
check_grep "the allowed ClientHello arrived in several segments" \
	'"sni":"allowed.test".*"packets":([5-9]|[1-9][0-9])' "$log"
stats=$("$afwd" --stats --ctl $work/afwd.sock)
check_grep "afwd --stats reports the packets it saw" '"packets":[1-9]' "$stats"
check_grep "and its system calls per packet" '"syscalls_per_packet":[0-9.]*' "$stats"

# An inspected flow: every packet keeps coming to afwd, which reads them in
# batches under load and must answer every one of them, in order.
s0=$("$afwd" --stats --ctl $work/afwd.sock)
got=$(ip netns exec $C curl -sS --max-time 60 --resolve "inspect.test:443:$SA" \
	--cacert $work/cert.pem -o /dev/null -w '%{size_download}' https://inspect.test/bytes/80000000)
check_eq "an inspected 80 MB download arrives whole" 80000000 "$got"
s1=$("$afwd" --stats --ctl $work/afwd.sock)
queued=$(jq -n --argjson a "$s0" --argjson b "$s1" '$b.packets - $a.packets')
check_ge "afwd saw its packets (more than 1000; saw $queued)" 1000 "$queued"
# /proc/net/netfilter/nfnetlink_queue: queue, portid, waiting, copy mode,
# copy range, dropped (queue full), dropped (send to afwd failed), last id.
read -r _ _ waiting _ _ qdrop udrop _ < <(ip netns exec $S awk '$1 == 0' \
	/proc/net/netfilter/nfnetlink_queue)
check_eq "and answered each: none is left waiting in the queue" 0 "$waiting"
check_eq "and the kernel dropped none for a full queue or socket" "0 0" "$qdrop $udrop"

# Reload: a broken file keeps the old policy; a good one takes over.
cp $work/policy.conf $work/good.conf
echo "prio 5 host denied.test alow" >> $work/policy.conf
out=$("$afwd" --reload --ctl $work/afwd.sock)
check_eq "a reload of a broken file fails" 1 $?
check_grep "and names the line" "policy.conf:5:" "$out"
check_eq "the old policy still denies" "" "$(fetch denied.test 2> /dev/null)"
{ echo "prio 5 host denied.test allow"; cat $work/good.conf; } > $work/policy.conf
kill -HUP $apid
for i in $(seq 30); do grep -q "reloaded" $work/afwd.log && break; sleep 0.1; done
check_eq "after SIGHUP with a good file the name is allowed" "ok" "$(fetch denied.test)"
cp $work/good.conf $work/policy.conf
kill -HUP $apid

# Stopped daemon: fail-closed without --queue-bypass, fail-open with it.
kill -KILL $apid
wait $apid 2> /dev/null
apid=
check_eq "with afwd killed, fail-closed: curl fails" "" "$(fetch allowed.test 2> /dev/null)"
chain --queue-bypass
check_eq "with afwd killed, fail-open (--queue-bypass): curl passes" "ok" "$(fetch allowed.test)"
chain ""
check "a restarted afwd" start_afwd
check_eq "decides again: allowed passes" "ok" "$(fetch allowed.test)"
check_eq "and denied fails" "" "$(fetch denied.test 2> /dev/null)"

out=$("$afwd" --check $work/policy.conf)
check_eq "afwd --check accepts the policy" 0 $?
printf 'default deny\nprio x host a.test allow\n' > $work/bad.conf
out=$("$afwd" --check $work/bad.conf 2>&1)
check_eq "afwd --check refuses a bad file" 1 $?
check_grep "naming FILE:LINE" "bad.conf:2:" "$out"
exit $AFW_FAILED
