#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QUIC connections on one UDP flow, live through NFQUEUE: a client sends
# sealed Initials (tests/tools/quicinit.py) to a UDP server that logs what
# arrives. An iptables rule does what the module does for installed UDP
# flows, for the Initials that can open a connection: client Initials (long
# header, fixed bit, 1200 bytes or more) of a decided flow are queued to
# afwd again (the module queues every client long header of the Initial
# type, or of a version afwd may not know; afwd passes the rest by the
# flow's verdict). afwd must let those of the connection it decided
# through, and judge a new connection on its own.
# $AFWD names another afwd binary to test.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd quic connections] "
pair_init afwdc 10.196.0
pair_up
python3 -c 'import cryptography' 2> /dev/null ||
	{ not_ok "python3-cryptography is installed" "run 'make deps'"; exit 1; }

ip netns exec $S python3 "$src/tests/tools/udpsink.py" $SA 443 $work/sink.log &
wait_until 5 sh -c "ip netns exec $S ss -lun | grep -q '$SA:443 '" ||
	{ not_ok "the UDP server listens" "udpsink.py did not start"; exit 1; }
requeue() { pair_chain "-p udp --dport 443" "-p udp --sport 443" && pair_quic_requeue; }
check "the chain for UDP 443, with the module's re-queueing of client Initials" requeue

cat > $work/policy.conf << 'POLICY'
default allow
prio 10 host denied.test deny
POLICY
ip netns exec $S "$afwd" -q 0 --module off -p $work/policy.conf --ctl $work/afwd.sock -j \
	2> $work/afwd.log &
apid=$!
check "afwd starts on queue 0" wait_until 5 grep -q 'afwd: ready' $work/afwd.log

# send SPORT STEP...: the steps of quicinit.py from client port SPORT.
send() { ip netns exec $C python3 "$src/tests/tools/quicinit.py" $SA 443 "$@"; }
# arrived SPORT: the datagrams from SPORT the server received.
arrived() { sleep 0.3; awk -v p="$1" '$1 == p' $work/sink.log | wc -l; }

send 41001 junk hello:0101010101010101:denied.test
check_eq "a junk datagram, then an Initial to a denied name: only the junk arrives" 1 \
	"$(arrived 41001)"
check_grep "afwd judged the junk as not-tls, then the Initial as a connection of its own" \
	'"sport":41001.*"giveup":"not-tls".*\n?.*"sport":41001.*"sni":"denied.test".*"verdict":"deny"' \
	"$(grep '"sport":41001' $work/afwd.log | tr -d '\n')"

send 41002 hello:0202020202020202:allowed.test hello:0202020202020202:allowed.test:1 \
	more:0202020202020202:0909090909090909:2
check_eq "an allowed connection: its Initial, a retransmit and one to the server's ID arrive" 3 \
	"$(arrived 41002)"
send 41002 hello:0303030303030303:denied.test
check_eq "a new connection on the same ports to a denied name does not" 3 "$(arrived 41002)"
check_eq "afwd decided the two connections of that flow, each by its own name" \
	"allowed.test allow denied.test deny" \
	"$(grep '"sport":41002' $work/afwd.log | jq -r '"\(.sni) \(.verdict)"' | tr '\n' ' ' |
	   sed 's/ $//')"
exit $AFW_FAILED
