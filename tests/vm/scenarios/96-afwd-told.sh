#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Told handshakes against clients that show afwd one stream and the server
# another (tests/host/afwd-evasion.sh's attempts, there without the module):
# the module on the router passes each new connection's bare handshake at
# once and tells afwd, which must still judge what the server (OpenSSL,
# python ssl) parses. For every attempt, the name the server parsed must be
# one afwd allowed, or the server parsed nothing. The crafting client's
# packets carry checksums nobody verified on the way, so the module queues
# them whole, for afwd to check as the server will: of its connections,
# the server's handshake packets are told. Real clients over the client's
# own stack (checksums the stack fills in) have theirs told both ways. And
# the policies under which no handshake is told: one that refuses a port by
# its ends, and afwd --handshakes queued.
. "$AFW_SRC/tests/vm/lib.sh"
AFWD=$AFW_SRC/build/afwd
work=$(mktemp -d)
# afwd reads the policy here as the user afw once it runs.
chmod 755 $work
on_exit rm -rf "$work"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
# veth marks a raw socket's packets as checksum-verified unless told not
# to: then the server would take a bad checksum, as no real one does.
nsx $NS_S ethtool -K s0 rx off > /dev/null
nsx $NS_R ethtool -K rc rx off > /dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
	-addext "subjectAltName=DNS:allowed.test,DNS:denied.test" \
	-keyout $work/key.pem -out $work/cert.pem 2> /dev/null
nsx $NS_S python3 "$AFW_SRC/tests/tools/tlsserver.py" $S4 443 $work/cert.pem $work/key.pem \
	$work/server.log &
wait_listen $NS_S tcp :443

check "the router queues unknown TCP to queue 0, fail closed" \
	"$AFWCTL" -n $NS_R config set unknown queue queue 0 fail closed
# The crafting client's kernel has no socket for its connections and would
# reset them: its own resets (not the crafted ones, marked 0x100) go.
nsx $NS_C iptables -A OUTPUT -p tcp --dport 443 --tcp-flags RST RST \
	-m mark ! --mark 0x100/0x100 -j DROP

cat > $work/policy.conf << 'POLICY'
default allow
prio 10 host allowed.test allow
prio 20 host denied.test deny
POLICY
ready_after() { [ "$(grep -c 'afwd: ready' $work/afwd.log)" -gt "$1" ]; }
start_afwd() {
	local n
	n=$(grep -c 'afwd: ready' $work/afwd.log 2> /dev/null)
	# The analysis time cut to a second and the packets without new bytes
	# to 8: real_clients' late, paused and kept-alive hellos come past them.
	nsx $NS_R "$AFWD" -q 0 --module on -p $work/policy.conf --ctl $work/afwd.sock -j \
		--max-time 1000 --max-packets 8 "$@" 2>> $work/afwd.log &
	wait_until 30 ready_after "${n:-0}"
}
# The module keeps the flows afwd installed, as when afwd restarts: the
# denied connections above, whose clients still send their hellos again,
# stay dropped. (Flushed, they would come back to the next afwd as flows
# joined mid-stream: a hello whole in its segment is read there and refused
# by its name, one cut across segments is left to the default.)
# (pgrep run by a shell of its own would find that shell's command line.)
afwd_gone() { ! pgrep -f "$AFWD -q 0 --module on" > /dev/null; }
stop_afwd() {
	pkill -f "$AFWD -q 0 --module on"
	wait_until 30 afwd_gone
}
on_exit pkill -f "$AFWD -q 0 --module on"
told() { "$AFWCTL" -n $NS_R -j stats | jq .handshakes.told; }
afwd_stat() { "$AFWD" --stats --ctl $work/afwd.sock | jq "$1"; }

. "$AFW_SRC/tests/lib/evasion.sh"
# A denied name parsed: which connection it was (the server's stderr), what
# the module held and afwd decided then.
evasion_dump() {
	echo "# the server parsed denied.test during: $1"
	"$AFWCTL" -n $NS_R flow list | sed 's/^/# module: /'
	"$AFWCTL" -n $NS_R -j stats | sed 's/^/# module stats: /'
	afwd_stat . | sed 's/^/# afwd stats: /'
	tail -n 40 $work/afwd.log | sed 's/^/# afwd: /'
}
craft() {
	ip netns exec $NS_C python3 "$AFW_SRC/tests/tools/tcpcraft.py" --wait 0.8 "$@" \
		c0 $C4 $S4
}

told_on() { [ "$(afwd_stat '.queues[0].handshakes_told')" = true ]; }
check "afwd starts with the module" start_afwd
# Said once the worker's first round ends.
check "and the module tells it its queue's handshakes" wait_until 10 told_on

# attempts WHO HOW...: the evasion attempts HOW, then the connection reused.
attempts() {
	local who=$1 a0 t0 how
	shift
	a0=$(parsed allowed.test)
	t0=$(told)
	craft plain --real allowed.test > $work/out 2>&1
	check "$who: a crafted connection to an allowed name: the server parses it" \
		wait_until 10 at_least $((a0 + 1)) parsed allowed.test
	check_grep "$who: and acknowledges it" "acked" "$(cat $work/out)"
	check_eq "$who: a crafted connection to a denied name: the server never parses it" 0 \
		"$(denied craft plain --real denied.test)"
	for how; do
		check_eq "$who: $how: the server never parses the denied name" 0 \
			"$(denied craft $how)"
	done
	check_eq "$who: none of those fakes reached OpenSSL either" $((a0 + 1)) \
		"$(parsed allowed.test)"
	check_eq "$who: reuse: the second connection's denied name is never parsed" 0 \
		"$(denied craft reuse)"
	# A SYN-ACK for each connection but those whose fake is the SYN's data.
	check_ge "$who: the module told afwd the server's handshakes" $((t0 + $# + 2)) \
		"$(told)"
}
attempts "crafted" ttl csum noack badack syndata

# Real clients over the client's own stack: SYN, SYN-ACK and ACK told.
client() { nsx $NS_C python3 "$AFW_SRC/tests/tools/helloclient.py" "$1" $S4 "$2"; }
t0=$(told)
check_eq "urgent byte, then an allowed hello: the handshake completes" handshake \
	"$(client oob allowed.test)"
check_ge "and its SYN, SYN-ACK and ACK were told" $((t0 + 3)) "$(told)"
real_clients

# What the server parsed is what afwd allowed, name by name.
allowed=$(grep '^{' $work/afwd.log | jq -r 'select(.verdict == "allow") | .sni' | sort -u)
for name in $(sed -n 's/^sni //p' $work/server.log | sort -u); do
	check_grep "the server parsed $name: afwd allowed it" "^$name\$" "$allowed"
done
check_eq "afwd judged the denied name and denied it each time it read it" yes \
	"$(grep '^{' $work/afwd.log | jq -r 'select(.sni == "denied.test") | .verdict' |
		awk '$1 != "deny" { bad++ } $1 == "deny" { n++ } END { print (n >= 6 && !bad ? "yes" : "no") }')"

# The module confirms allows itself (AFW_FLOW_A_CONFIRM): where the server's
# acknowledgement of the judged bytes is all afwd waits for, the module
# holds the allow unconfirmed and lets that acknowledgement, and the
# server's answer, through at once. TLS 1.2 hellos are such: the crafted
# attempts and the real clients again, with them.
confirmed() { "$AFWCTL" -n $NS_R -j stats | jq .flow_events.confirmed; }
craft() {
	ip netns exec $NS_C python3 "$AFW_SRC/tests/tools/tcpcraft.py" --tls12 --wait 0.8 "$@" \
		c0 $C4 $S4
}
c0=$(confirmed)
attempts "crafted TLS 1.2" ttl csum noack badack syndata
check_ge "the module confirmed the allowed TLS 1.2 connection itself" $((c0 + 1)) \
	"$(confirmed)"
client() { nsx $NS_C python3 "$AFW_SRC/tests/tools/helloclient.py" "$1" $S4 "$2" 443 tls12; }
c0=$(confirmed)
real_clients
check_ge "and the real TLS 1.2 client's allowed one" $((c0 + 1)) "$(confirmed)"
allowed=$(grep '^{' $work/afwd.log | jq -r 'select(.verdict == "allow") | .sni' | sort -u)
for name in $(sed -n 's/^sni //p' $work/server.log | sort -u); do
	check_grep "TLS 1.2: the server parsed $name: afwd allowed it" "^$name\$" "$allowed"
done

# A plain TCP exchange: afwd reads the client's line, the module holds the
# allow unconfirmed, and the server's acknowledgement confirms it there.
nsx $NS_S python3 "$AFW_SRC/tests/tools/tcpecho.py" server $S4 7000 > /dev/null 2>&1 &
wait_listen $NS_S tcp :7000
c0=$(confirmed)
u0=$(afwd_stat '.queues[0].module_unconfirmed')
check "a plain TCP exchange through afwd completes" \
	nsx $NS_C python3 "$AFW_SRC/tests/tools/tcpecho.py" client $S4 7000 40070 0
# afwd publishes its counts as a round ends, which may be after the
# client it answered has finished.
wait_until 10 at_least $((u0 + 1)) afwd_stat '.queues[0].module_unconfirmed'
check_eq "afwd had the module hold the allow unconfirmed" $((u0 + 1)) \
	"$(afwd_stat '.queues[0].module_unconfirmed')"
check_eq "the module confirmed it on the server's acknowledgement" $((c0 + 1)) "$(confirmed)"
logged() { grep '^{' $work/afwd.log | jq -r "select(.sport == $1) | .verdict" | grep -q allow; }
check "afwd heard of it, and logged the allow" wait_until 10 logged 40070
check_ge "as a confirmation the module told" 1 "$(afwd_stat '.queues[0].module_confirmed')"
# The same over IPv6: the module holds and confirms the flow by its
# 128-bit addresses and the server's ACK through the router's other link.
nsx $NS_S python3 "$AFW_SRC/tests/tools/tcpecho.py" server $S6 7006 > /dev/null 2>&1 &
wait_listen $NS_S tcp :7006
c0=$(confirmed)
u0=$(afwd_stat '.queues[0].module_unconfirmed')
m0=$(afwd_stat '.queues[0].module_confirmed')
q0=$("$AFWCTL" -n $NS_R -j stats | jq .handshakes.queued)
t0=$(told)
check "a plain TCP exchange over IPv6 through afwd completes" \
	nsx $NS_C python3 "$AFW_SRC/tests/tools/tcpecho.py" client $S6 7006 40072 0
# Listed at once: a closed flow goes 10 s after its FINs.
flows6=$("$AFWCTL" -n $NS_R -j flow list)
# Each message sized to its packet: an IPv6 SYN's, its options and all,
# fits the room it was given, or the SYN would have been queued.
check_ge "IPv6: the module told afwd the handshake" $((t0 + 3)) "$(told)"
check_eq "IPv6: and had room in each message" "$q0" \
	"$("$AFWCTL" -n $NS_R -j stats | jq .handshakes.queued)"
wait_until 10 at_least $((u0 + 1)) afwd_stat '.queues[0].module_unconfirmed'
check_eq "IPv6: afwd had the module hold the allow unconfirmed" $((u0 + 1)) \
	"$(afwd_stat '.queues[0].module_unconfirmed')"
check_eq "IPv6: the module confirmed it on the server's acknowledgement" $((c0 + 1)) \
	"$(confirmed)"
check_eq "IPv6: the module lists the flow, accept and confirmed" "ipv6 accept false" \
	"$(jq -r '.[] | select(.sport == 40072) | "\(.family) \(.verdict) \(.unconfirmed)"' \
		<<< "$flows6")"
check "IPv6: afwd heard of it, and logged the allow" wait_until 10 logged 40072
# afwd reads the module's copies a batch at a time (its socket rests
# between them): the count comes to m0 + 1 once it has read this one, and
# may have more, copies of earlier flows read late among them.
check "IPv6: as a confirmation the module told" \
	wait_until 10 at_least $((m0 + 1)) afwd_stat '.queues[0].module_confirmed'

# The server's acknowledgements held back: the flow stays unconfirmed, and
# is listed so. An ACK forged on the client's side, its checksums right
# and marked verified (as a NIC's offload marks them), reaches the module
# and confirms nothing. Let go, the server's own does.
nsx $NS_S iptables -I OUTPUT -p tcp --sport 7000 --tcp-flags SYN,ACK ACK -j DROP
# Counts the forged ACK where it passes the filter table, just before afw.
nsx $NS_R iptables -I FORWARD -i rc -p tcp --sport 7000
c0=$(confirmed)
t0=$(told)
nsx $NS_C python3 "$AFW_SRC/tests/tools/ackforge.py" c0 $S4 7000 $work/go > $work/forge.out 2>&1 &
forge=$!
# afwd's 30 s wait for the server's acknowledgement starts when it reads the line.
held_at=$SECONDS
nsx $NS_C python3 -c 'import socket, sys
s = socket.create_connection((sys.argv[1], 7000), timeout=60, source_address=("", 40071))
s.sendall(b"held\n")
sys.exit(s.makefile().readline() != "held\n")' $S4 &
held=$!
unconfirmed() {
	"$AFWCTL" -n $NS_R -j flow list | jq -r '.[] | select(.sport == 40071) | .unconfirmed'
}
is_unconfirmed() { [ "$(unconfirmed)" = true ]; }
check "the flow is listed unconfirmed" wait_until 30 is_unconfirmed
check_grep "the table says so" " 40071 .* unconfirmed " "$("$AFWCTL" -n $NS_R flow list)"
touch $work/go
wait $forge
check_grep "an ACK is forged for the client's line" "forged ACK" "$(cat $work/forge.out)"
forwarded() { nsx $NS_R iptables -L FORWARD -v -x -n | awk '/spt:7000/ { print $1 }'; }
wait_until 10 at_least 1 forwarded
check_eq "it crossed the router's FORWARD hook, where afw is" 1 "$(forwarded)"
# SYN, SYN-ACK, ACK, and the forged ACK: an unconfirmed flow is not there
# for its packets, so the module passes a bare ACK as for an unknown flow.
check "the module passed it as a bare ACK, the flow unconfirmed, telling afwd" \
	wait_until 10 at_least $((t0 + 4)) told
check_eq "the forged ACK confirmed nothing" "$c0" "$(confirmed)"
u=$(unconfirmed)
if [ "$u" != true ] && [ $((SECONDS - held_at)) -ge 25 ]; then
	# Past afwd's wait, afwd takes the flow out of the module (below).
	echo "# the hold neared afwd's 30 s wait: the flow listed as '$u'" >&2
else
	check_eq "the flow is still listed unconfirmed" true "$u"
fi
nsx $NS_R iptables -D FORWARD -i rc -p tcp --sport 7000
nsx $NS_S iptables -D OUTPUT -p tcp --sport 7000 --tcp-flags SYN,ACK ACK -j DROP
check "let go, the line comes back" wait $held
c1=$(confirmed)
# afwd waits 30 s for the server to acknowledge what it judged; past that
# it takes the flow out of the module and installs it itself when the
# acknowledgement comes. A loaded host (the debug kernel beside other
# guests) can stretch the hold above past it; near that, afwd's log line
# may come a little after.
gave_up() {
	grep '^{' $work/afwd.log | jq -r 'select(.sport == 40071) | .reason' |
		grep -q 'not acknowledged by the server'
}
[ $((SECONDS - held_at)) -lt 25 ] || [ "$c1" != "$c0" ] || wait_until 15 gave_up
if gave_up; then
	echo "# the hold outlasted afwd's wait: afwd confirms the flow, not the module" >&2
	check_eq "afwd, done waiting, left the confirmation to itself" "$c0" "$c1"
else
	check_eq "the server's own acknowledgement confirmed the flow" $((c0 + 1)) "$c1"
fi
# afwd installs it itself, past its wait, when it reads the acknowledgement.
listed_confirmed() { [ "$(unconfirmed)" = false ]; }
check "and it is listed confirmed" wait_until 10 listed_confirmed

# A policy that refuses a port by its ends: no handshake is told, so that
# no SYN to that port reaches its server.
stop_afwd
cat > $work/policy.conf << 'POLICY'
default allow
prio 10 proto tcp dport 22 deny
prio 20 host denied.test deny
POLICY
check "afwd starts with a policy that denies port 22" start_afwd
check_eq "the module does not tell it handshakes" false \
	"$(afwd_stat '.queues[0].handshakes_told')"
t0=$(told)
nsx $NS_S python3 "$AFW_SRC/tests/tools/tcpecho.py" server $S4 22 > /dev/null 2>&1 &
wait_listen $NS_S tcp :22
nsx $NS_S iptables -A INPUT -p tcp --dport 22 --syn
check_fails "a connection to port 22 fails" \
	nsx $NS_C python3 "$AFW_SRC/tests/tools/tcpecho.py" client $S4 22 40022 0
check_eq "none of its handshake was told" "$t0" "$(told)"
check_eq "its SYN never reached the server" 0 \
	"$(nsx $NS_S iptables -L INPUT -v -x -n | awk '/dpt:22/ { print $1 }')"
printf 'default allow\nprio 20 host denied.test deny\n' > $work/policy.conf
check "a reload to a policy that refuses no port by its ends" \
	"$AFWD" --reload --ctl $work/afwd.sock
check "tells handshakes again" wait_until 30 told_on
check_eq "and a denied name still never reaches the server" 0 \
	"$(denied client oob denied.test)"
check_ge "its handshake was told" $((t0 + 3)) "$(told)"

# --handshakes queued: every packet waits for afwd, as before.
stop_afwd
check "afwd --handshakes queued starts" start_afwd --handshakes queued
check_eq "and is not told handshakes" false "$(afwd_stat '.queues[0].handshakes_told')"
t0=$(told)
check_eq "an allowed name still gets through" handshake "$(client oob allowed.test)"
check_eq "with nothing told" "$t0" "$(told)"
check_grep "afwd --help names the mode" "--handshakes MODE" "$("$AFWD" --help)"
