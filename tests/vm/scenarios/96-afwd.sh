#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd with the module: the router queues unknown flows to afwd, which reads
# each ClientHello, decides by its policy and installs the flow, so that the
# rest of an allowed transfer never leaves the kernel.
. "$AFW_SRC/tests/vm/lib.sh"
AFWD=$AFW_SRC/build/afwd
work=$(mktemp -d)
# afwd reads the policy here as the user afw once it runs.
chmod 755 $work
on_exit rm -rf "$work"
bytes=${AFW_AFWD_BYTES:-200000000}
# Every packet of an inspected flow crosses afwd: a tenth of the above.
inspect_bytes=$((bytes / 10))

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
	-addext "subjectAltName=DNS:allowed.test,DNS:denied.test,DNS:x.rej.test,DNS:inspect.test" \
	-keyout $work/key.pem -out $work/cert.pem 2> /dev/null
nsx $NS_S python3 "$AFW_SRC/tests/tools/tlsserver.py" $S4 443 $work/cert.pem $work/key.pem \
	$work/server.log &
wait_listen $NS_S tcp :443
fetch() {
	nsx $NS_C curl -sS --max-time "${3:-5}" --resolve "$1:443:$S4" --cacert $work/cert.pem \
		-o "${4:--}" -w "${5:-}" "https://$1/${2:-}"
}
handshakes() { grep -c "^handshake $1 " $work/server.log 2> /dev/null; }
afwd_stat() { "$AFWD" --stats --ctl $work/afwd.sock | jq ".$1"; }

cat > $work/policy.conf << 'POLICY'
default deny
prio 10 host allowed.test l7 tls allow
prio 20 host *.rej.test reject
prio 30 host inspect.test inspect
prio 40 l7 unknown dport 5201 inspect
POLICY
check "the router queues unknown TCP to 443 to queues 0-1, fail closed" \
	"$AFWCTL" -n $NS_R config set unknown queue queue 0-1 fail closed
# Only the test's TLS flows are unknown; ping and the rest pass by rule.
# Both directions: afwd installs an allow once it sees the server's ACK.
"$AFWCTL" -n $NS_R rule add prio 100 proto tcp dport 443 queue
"$AFWCTL" -n $NS_R rule add prio 101 proto tcp sport 443 queue
"$AFWCTL" -n $NS_R rule add prio 102 proto tcp dport 5201 queue
"$AFWCTL" -n $NS_R rule add prio 103 proto tcp sport 5201 queue
"$AFWCTL" -n $NS_R config set unknown accept

# ready_after N: the log says "ready" more than N times.
ready_after() { [ "$(grep -c 'afwd: ready' $work/afwd.log)" -gt "$1" ]; }
start_afwd() {
	local n
	n=$(grep -c 'afwd: ready' $work/afwd.log 2> /dev/null)
	nsx $NS_R "$AFWD" -q 0-1 --module on -p $work/policy.conf --ctl $work/afwd.sock -j "$@" \
		2>> $work/afwd.log &
	# The socket comes before the queues are ready: wait for afwd to say so.
	wait_until 30 ready_after "${n:-0}"
}
check "afwd starts on queues 0-1 with the module" start_afwd
on_exit pkill -f "$AFWD -q 0-1"
check_grep "and says flows go to the module" "decided flows go to the afw module" \
	"$(cat $work/afwd.log)"
check_grep "and that its queues wait with io_uring" "queues wait with io_uring" \
	"$(cat $work/afwd.log)"
check_grep "and that a full queue fails closed, as the module's fail setting says" \
	"a full queue fails closed \\(the module's fail setting\\)" "$(cat $work/afwd.log)"

# What the module keeps (the verdict) and what afwd knows (the host, the
# line), side by side, as someone tracing a cut connection reads them.
# joined NAME: "VERDICT HOST DECIDED_BY" of NAME's flows in flow list.
joined() {
	"$AFWCTL" -n $NS_R --afwd $work/afwd.sock -j flow list |
		jq -r --arg h "$1" '.[] | select(.host == $h) | "\(.verdict) \(.host) \(.decided_by)"'
}
# Both listings at once after the connection: it closed, and its flow goes
# 10 s after the FINs, which a debug kernel's checks can outlast.
page=$(fetch allowed.test)
flows=$("$AFWCTL" -n $NS_R -j flow list)
allowed_joined=$(joined allowed.test)
check_eq "curl to an allowed name gets the page" ok "$page"
check_eq "the server completed its handshake" 1 "$(handshakes allowed.test)"
check_eq "the decided flow is in afwctl flow list, as accept" accept \
	"$(jq -r --arg c $C4 '.[] | select(.src == $c or .dst == $c) | select(.dport == 443 or .sport == 443) | .verdict' <<< "$flows" | head -n 1)"
check_eq "flow list names the allowed flow's host and policy line, from afwd" \
	"accept allowed.test $work/policy.conf:2" "$allowed_joined"
# The policy refuses no connection by its ends: the module passes each new
# connection's bare handshake at once and tells afwd, which read it.
check_ge "the module told afwd the allowed connection's SYN, SYN-ACK and ACK, and passed them" \
	3 "$("$AFWCTL" -n $NS_R -j stats | jq .handshakes.told)"
check_eq "and had room to tell each" 0 "$("$AFWCTL" -n $NS_R -j stats | jq .handshakes.queued)"
check_ge "afwd read them" 3 "$(afwd_stat 'queues | map(.handshakes) | add')"
check_eq "and says both its queues are told their handshakes" "2 true" \
	"$(afwd_stat 'queues | "\(length) \(map(.handshakes_told) | all)"' | tr -d '"')"
# A TLS 1.2 hello needs no answer of the server's read, only its
# acknowledgement: afwd has the module hold the allow unconfirmed, and the
# module confirms it on the server's ACK (the kernel path of
# 96-afwd-told's checks, here under the debug kernel's).
confirmed() { "$AFWCTL" -n $NS_R -j stats | jq .flow_events.confirmed; }
c0=$(confirmed)
check_eq "curl over TLS 1.2 to an allowed name gets the page" ok \
	"$(nsx $NS_C curl -sS --tls-max 1.2 --max-time 5 --resolve allowed.test:443:$S4 \
		--cacert $work/cert.pem https://allowed.test/)"
check_eq "the module confirmed its allow on the server's acknowledgement" $((c0 + 1)) \
	"$(confirmed)"
module_confirmed() { [ "$(afwd_stat 'queues | map(.module_confirmed) | add')" -ge 1 ]; }
check "afwd read the module's word of it" wait_until 10 module_confirmed
check_eq "with -n and no --afwd, afwd is not asked" "" \
	"$("$AFWCTL" -n $NS_R -j flow list | jq -r '.[] | .host // empty')"
check_eq "curl to a denied name fails" "" "$(fetch denied.test 2> /dev/null)"
check_eq "the server never completed a handshake for it" 0 "$(handshakes denied.test)"
check_grep "the denied flow is installed as drop" '"verdict": *"drop"' \
	"$("$AFWCTL" -n $NS_R -j flow list)"
got=$(joined denied.test)
check_eq "and flow list names its host and the default line" \
	"drop denied.test $work/policy.conf:1 default" "$got"
[ -n "$got" ] || { "$AFWD" --flows --ctl $work/afwd.sock >&2; "$AFWCTL" -n $NS_R -j flow list >&2; }
check_grep "the table shows them in its host and decided-by columns, no owner after" \
	" $C4 .* $S4 .*443 drop .* denied\\.test $work/policy\\.conf:1 default - - - -\$" \
	"$("$AFWCTL" -n $NS_R --afwd $work/afwd.sock flow list)"
out=$(fetch x.rej.test 2>&1)
check_grep "a rejected name gets a reset from the module" "reset" "$out"
check_eq "and no handshake" 0 "$(handshakes x.rej.test)"
log=$(cat $work/afwd.log)
check_grep "the decision log has the allowed flow, with its rule" \
	'"sni":"allowed.test".*"verdict":"allow","reason":"tls, policy line 2"' "$log"

# A long transfer: after the first few packets, the flow is the kernel's.
p0=$(afwd_stat packets)
got=$(fetch allowed.test "bytes/$bytes" 600 /dev/null '%{size_download}')
p1=$(afwd_stat packets)
check_eq "a $bytes-byte transfer over an allowed TLS flow completes" "$bytes" "$got"
check "and afwd saw at most 20 of its packets (saw $((p1 - p0)))" test $((p1 - p0)) -le 20
# At least what the bytes take in 64 KiB GSO packets: how many more, GRO
# and the host's load decide (936 for 8 MB on a busy debug kernel).
check_ge "the module counted the flow's packets itself" $((bytes / 65536)) \
	"$("$AFWCTL" -n $NS_R -j flow list | jq '[.[] | .packets] | max')"
stats=$("$AFWD" --stats --ctl $work/afwd.sock)
check_eq "no flow was refused by the module" 0 "$(jq '[.queues[].install_failed] | add' <<< "$stats")"

# An inspected flow: installed as inspect, so the module keeps queueing
# every packet of it, and afwd reads them in batches and answers each.
p0=$(afwd_stat packets)
got=$(fetch inspect.test "bytes/$inspect_bytes" 300 /dev/null '%{size_download}')
p1=$(afwd_stat packets)
check_eq "a $inspect_bytes-byte transfer over an inspected flow completes" "$inspect_bytes" "$got"
# One packet (GSO: up to 64 KiB) per 40 kB at the least, 500 for 20 MB.
check_ge "and afwd saw its packets (at least $((inspect_bytes / 40000)); saw $((p1 - p0)))" \
	$((inspect_bytes / 40000)) $((p1 - p0))
check_grep "the inspected flow is installed as inspect" '"verdict": *"inspect"' \
	"$("$AFWCTL" -n $NS_R -j flow list)"
# queue, portid, waiting, copy mode, copy range, dropped (full), dropped
# (send failed), last id: for each of the two queues.
check_eq "nothing is left waiting in queues 0-1, and nothing was dropped" "0 0 0 0 0 0" \
	"$(nsx $NS_R awk '$1 <= 1 { printf "%s%s %s %s", (n++ ? " " : ""), $3, $6, $7 }' \
		/proc/net/netfilter/nfnetlink_queue)"

# An inspected stream that is neither TLS nor HTTP (iperf3): once its first
# bytes are judged, its headers are all afwd reads, and the module sends
# its packets to the worker's headers queue (the queue's number with the
# top bit flipped), which copies 256 bytes of each, however large.
iperf_server $NS_S -B $S4 -p 5201
stats_sum() { "$AFWD" --stats --ctl $work/afwd.sock | jq "[.queues[].$1] | add"; }
heads() { stats_sum head_packets; }
h0=$(heads)
nsx $NS_C iperf3 -c $S4 -p 5201 -t 8 -J > $work/iperf.json &
ipid=$!
# iperf_ran FILE: iperf3's JSON says the stream ran to its end, with no
# error, and moved more than 256 KiB: four windows, far past a stream that
# stalls (a queue nobody reads holds it within its first). The debug kernel
# on a busy host moved 1 MB or less in 8 s (afwd read 666 of its packets,
# 1,927 on a quieter one). Says what it got when not.
iperf_ran() {
	jq -e '.end.sum_received.bytes > 262144 and .error == null' "$1" > /dev/null ||
		{ jq -c '{bytes: .end.sum_received.bytes, error}' "$1" >&2; return 1; }
}
head_flows() {
	[ "$("$AFWCTL" -n $NS_R -j flow list |
	     jq '[.[] | select(.dport == 5201 and .verdict == "inspect" and .queue >= 32768)] |
		 length')" -ge 1 ]
}
check "while it runs, its flows are installed as inspect, a headers queue their own" \
	wait_until 20 head_flows
wait $ipid
check "the inspected iperf3 stream ran its 8 s without an error" \
	iperf_ran $work/iperf.json
h1=$(heads)
check_ge "afwd read its packets from the headers queues (at least 300; read $((h1 - h0)))" \
	300 $((h1 - h0))
check_eq "no flow went back to whole packets" 0 "$(stats_sum head_back)"
# afwd's own logic as it restarts under inspected streams: what it gives
# back, and when. AFW_AFWD_RESTARTS=0 (the debug kernel's run) leaves it to
# 6.12: its kernel side is the flow updates and queues checked above.
if [ "${AFW_AFWD_RESTARTS:-1}" = 1 ]; then
	# afwd restarted under an inspected stream: the new one knows nothing of
	# its flows. What it sees first of each decides how it takes it over:
	# a cut packet (data) is dropped and its flow goes back to whole
	# packets, to be judged from the next; a whole one (a bare ACK of the
	# server's) is judged at once, as joined mid-stream. Which comes first
	# is the two ends' race, so either counts, but one of them must, for
	# every flow of the stream; the stream goes on. It runs 40 s: on the
	# debug kernel, in CI, afwd took 27 s to start again, and a 12 s stream
	# had ended by then, leaving the new afwd no packet to judge.
	nsx $NS_C iperf3 -c $S4 -p 5201 -t 40 -J > $work/iperf2.json &
	ipid=$!
	check "a second inspected stream runs on the headers queues" wait_until 20 head_flows
	pkill -KILL -f "$AFWD -q 0-1"
	old_lines=$(wc -l < $work/afwd.log)
	check "afwd restarts under it" start_afwd
	wait $ipid
	check "the stream ran its 40 s without an error" \
		iperf_ran $work/iperf2.json
	# taken_over: how the new afwd took over the stream's flows (port
	# 5201), by its log: "back N mid M flows K", K the client ports named
	# either way (a flow given back may be judged mid-stream after).
	taken_over() {
		tail -n +$((old_lines + 1)) $work/afwd.log | awk '
			/inspected with whole packets again \(a flow this afwd did not decide\)/ &&
			    /:5201[^0-9]/ {
				back++
				s = $0
				while (match(s, /:[0-9]+/)) {
					port = substr(s, RSTART + 1, RLENGTH - 1)
					s = substr(s, RSTART + RLENGTH)
					if (port != 5201 && port > 1023)
						seen[port] = 1
				}
			}
			/"dport":5201,/ && /"giveup":"mid-stream"/ {
				mid++
				if (match($0, /"sport":[0-9]+/))
					seen[substr($0, RSTART + 8, RLENGTH - 8)] = 1
			}
			END { for (p in seen) k++; printf "back %d mid %d flows %d", back, mid, k }'
	}
	got=$(taken_over)
	echo "the new afwd took the stream's flows over: $got (head_back $(stats_sum head_back))" >&2
	check_eq "the new afwd took over both flows of the stream, control and data ($got)" \
		2 "$(awk '{ print $6 }' <<< "$got")"
	check_ge "the flows it gave back to whole packets are counted" \
		"$(awk '{ print $2 }' <<< "$got")" "$(stats_sum head_back)"
	# Restarted with no headers queues at all: the flows an earlier afwd gave
	# one would wait on a queue nobody reads. It gives them back at start.
	nsx $NS_C iperf3 -c $S4 -p 5201 -t 12 -J > $work/iperf3.json &
	ipid=$!
	check "a third inspected stream runs on the headers queues" wait_until 20 head_flows
	pkill -KILL -f "$AFWD -q 0-1"
	check "afwd restarts under it with --head-queue off" start_afwd --head-queue off
	wait $ipid
	check "the stream ran its 12 s without an error" \
		iperf_ran $work/iperf3.json
	check_grep "afwd gave the old headers queue's flows back at start" \
		"inspected flows had a headers queue nobody reads" "$(cat $work/afwd.log)"
	pkill -TERM -f "$AFWD -q 0-1"
	afwd_gone() { ! pgrep -f "$AFWD -q 0-1" > /dev/null; }
	wait_until 15 afwd_gone
	check "afwd starts again with its defaults" start_afwd
	check_eq "the headers queues are bound with a copy range of 256" "256 256" \
		"$(nsx $NS_R awk '$1 >= 32768 { printf "%s%s", (n++ ? " " : ""), $5 }' \
			/proc/net/netfilter/nfnetlink_queue)"
fi

# A new connection on a decided 5-tuple, through the module: a connection
# to the allowed name, acknowledged and installed, reset; then a new one
# from the same port (new ISN) to the denied name. The module hands its SYN
# to afwd again, which judges the new hello: the server never parses it.
# The client writes its own segments (tcpcraft.py), so its kernel's resets
# for them go; the crafted ones carry the mark 0x100.
parsed() { grep -c "^sni $1\$" $work/server.log 2> /dev/null; }
check "the client drops its own kernel's resets to 443" \
	nsx $NS_C iptables -A OUTPUT -p tcp --dport 443 --tcp-flags RST RST \
	-m mark ! --mark 0x100/0x100 -j DROP
a0=$(parsed allowed.test) d0=$(parsed denied.test) r0=$("$AFWCTL" -n $NS_R -j stats |
	jq .flow_events.restarted)
ip netns exec $NS_C python3 "$AFW_SRC/tests/tools/tcpcraft.py" --wait 2 reuse \
	--fake allowed.test --real denied.test c0 $C4 $S4 > $work/reuse.log 2>&1
check_eq "reuse: the first connection's allowed name was parsed" $((a0 + 1)) "$(parsed allowed.test)"
check_eq "reuse: the second connection's denied name never was" "$d0" "$(parsed denied.test)"
check_ge "the module ended the decided flow for the new SYN" $((r0 + 1)) \
	"$("$AFWCTL" -n $NS_R -j stats | jq .flow_events.restarted)"
nsx $NS_C iptables -F OUTPUT

# afwd stopped: the module's fail mode decides.
pkill -KILL -f "$AFWD -q 0-1"
sleep 0.5
"$AFWCTL" -n $NS_R flow flush
check_eq "with afwd killed and fail closed, curl fails" "" "$(fetch allowed.test "" 3 2> /dev/null)"
"$AFWCTL" -n $NS_R config set fail open
check_eq "fail open: curl passes without afwd" ok "$(fetch allowed.test)"
"$AFWCTL" -n $NS_R config set fail closed
"$AFWCTL" -n $NS_R flow flush
"$AFWCTL" -n $NS_R config set fail open
check "a restarted afwd" start_afwd
check_grep "takes the module's fail open for its queues: one setting" \
	"a full queue fails open \\(the module's fail setting\\)" "$(tail -n 3 $work/afwd.log)"
"$AFWCTL" -n $NS_R config set fail closed
check_eq "decides again: allowed passes" ok "$(fetch allowed.test)"
check_eq "and denied fails" "" "$(fetch denied.test "" 3 2> /dev/null)"
pkill -TERM -f "$AFWD -q 0-1"
"$AFWCTL" -n $NS_R rule flush
"$AFWCTL" -n $NS_R flow flush
exit $AFW_FAILED
