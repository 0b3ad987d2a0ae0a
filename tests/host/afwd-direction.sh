#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who starts a flow, as afwd's policy sees it: "dir", "from", "sport",
# "iif", "oif" against real TCP connections both ways; and the replies of
# a connection that a rule let through before afwd are never judged, so
# afwd never cuts it. Behind the iptables NFQUEUE chain of docs/afwd.md.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd-direction] "
pair_init afwdir 10.196.0
pair_up
echo_py="$src/tests/tools/tcpecho.py"

for port in 2222 7000 7001; do
	ip netns exec $S python3 "$echo_py" server $SA $port &
	ip netns exec $C python3 "$echo_py" server $CA $port &
done
listening() {
	[ "$(ip netns exec $S ss -ltn | grep -c ':700[01] \|:2222 ')" = 3 ] &&
	[ "$(ip netns exec $C ss -ltn | grep -c ':700[01] \|:2222 ')" = 3 ]
}
wait_until 20 listening || { not_ok "echo servers listen" "they did not start"; exit 1; }

# Every TCP packet of the server's namespace goes through the chain, but an
# administrator's rule accepts inbound port 2222 before it: afwd sees only
# that service's replies.
chain() {
	pair_chain "-p tcp" "-p tcp" &&
	ip netns exec $S iptables -I INPUT 1 -p tcp --dport 2222 -j ACCEPT
}
check "iptables NFQUEUE chain, inbound 2222 accepted before it" chain

start_afwd() {
	local try
	# The queue of an afwd just stopped may stay bound a moment (its
	# io_uring goes asynchronously): try again while it does.
	for try in 1 2 3 4 5 6 7 8 9 10; do
		: > $work/afwd.log
		ip netns exec $S "$afwd" -q 0 -p $work/policy.conf --ctl $work/afwd.sock -j \
			--max-time 500 2> $work/afwd.log &
		apid=$!
		wait_until 10 grep -q 'afwd: ready\|binding the queue' $work/afwd.log || return 1
		grep -q 'afwd: ready' $work/afwd.log && return 0
		wait $apid 2> /dev/null
		sleep 0.5
	done
	return 1
}
stop_afwd() { kill $apid; wait $apid 2> /dev/null; apid=; }

# conn NS ADDR PORT SPORT SECONDS: an echo session; 0 when every line came back.
conn() { ip netns exec $1 timeout 10 python3 "$echo_py" client $2 $3 $4 $5; }

# 1. Replies. Under default deny, with an analysis time of 0.5 s, a session
# of 3 s to the accepted port must live: afwd sees only its replies.
echo "default deny" > $work/policy.conf
check "afwd starts under default deny" start_afwd
check "a session to a port a rule accepted lives past afwd's analysis time" \
	conn $C $SA 2222 41000 3
check_eq "afwd decided nothing for its replies" "" \
	"$(grep '"sport":2222\|"dport":2222' $work/afwd.log)"
check_grep "and counts them as replies it passed" '"replies":[1-9]' \
	"$("$afwd" --stats --ctl $work/afwd.sock 2>&1)"
stop_afwd

# 2. Direction. The server's namespace takes SSH-like port 7000 from the
# client's prefix and high ports on veth0, and itself opens port 7001 out.
cat > $work/policy.conf << POLICY
default deny
prio 10 dir in from $CA/32 sport 1024-65535 iif veth0 proto tcp dport 7000 allow
prio 20 dir out oif veth0 proto tcp dport 7001 allow
POLICY
check "afwd starts with dir, from, sport, iif and oif" start_afwd
check "inbound to 7000, started by the client: allowed" conn $C $SA 7000 42000 0
check_fails "inbound to 7001: 'dir out' does not cover it" conn $C $SA 7001 42001 0
check "outbound to 7001, started by this host: allowed" conn $S $CA 7001 42002 0
check_fails "outbound to 7000: 'dir in' does not cover it" conn $S $CA 7000 42003 0
check_fails "inbound to 7000 from a low source port: 'sport' refuses it" \
	conn $C $SA 7000 900 0
log=$(cat $work/afwd.log)
check_grep "the log shows the inbound flow allowed by line 2" \
	'"sport":42000,"dport":7000.*"verdict":"allow","reason":"[^"]*policy line 2"' "$log"
check_grep "and the outbound one by line 3" \
	'"sport":42002,"dport":7001.*"verdict":"allow","reason":"[^"]*policy line 3"' "$log"
check_grep "and the inbound one to 7001 denied by the default" \
	'"sport":42001,"dport":7001.*"verdict":"deny","reason":"[^"]*default' "$log"
stop_afwd

# 3. Pings. Each is a flow of its own, its pinger's: the server's namespace
# may ping out, nobody may ping it. Its ping's replies pass; the client's
# ping, sent while that one runs and with the same identifier, is judged
# as the inbound flow it is, not carried by the other (conntrack keys a
# ping by its identifier, so the chain's marks are per ping too). Other
# ICMP is answered message by message: nothing decided for it carries a
# ping.
check "iptables NFQUEUE chain for ICMP" pair_chain "-p icmp" "-p icmp"
cat > $work/policy.conf << POLICY
default deny
prio 10 dir out proto icmp allow
POLICY
check "afwd starts: ICMP out allowed, the rest denied" start_afwd
ip netns exec $S ping -q -i 0.2 -c 25 -e 4711 $CA > $work/ping-out.txt 2>&1 &
pping=$!
sleep 1
check_fails "the client's ping in, same identifier, while the server's runs: dropped" \
	ip netns exec $C ping -q -c 2 -W 1 -e 4711 $SA
check_fails "and with another" ip netns exec $C ping -q -c 2 -W 1 -e 4712 $SA
wait $pping
check_grep "the server's own ping out got every reply" ' 25 received, 0% packet loss' \
	"$(cat $work/ping-out.txt)"
log=$(cat $work/afwd.log)
check_grep "the log names the ping out: its identifier, allowed by line 2" \
	'"l4":"icmp","src":"'$SA'","dst":"'$CA'".*"echo":"request","icmp_id":4711.*"verdict":"allow","reason":"[^"]*line 2' "$log"
check_grep "and the ping in, denied by the default" \
	'"src":"'$CA'","dst":"'$SA'".*"echo":"request","icmp_id":4711.*"verdict":"deny","reason":"[^"]*default' "$log"
# A reload that denies ICMP out reaches a running ping through its
# conntrack mark, whatever echo code the pinger chose: conntrack keys the
# code with the identifier, and Linux answers any code.
: > $work/code5.txt
ip netns exec $S python3 "$src/tests/tools/icmpcode.py" $CA 4800 5 6 $work/code5.txt &
pcode=$!
replies() { wc -l < $work/code5.txt; }
check "a ping out with echo code 5 gets replies" wait_until 5 eval '[ "$(replies)" -ge 5 ]'
echo "default deny" > $work/policy.conf
check_grep "a reload to deny everything changes its recorded verdict" \
	"recorded flow.* changed verdict" "$("$afwd" --reload --ctl $work/afwd.sock 2>&1)"
sleep 0.5
n=$(replies)
wait $pcode
check_eq "its replies stop: the mark was found by the ping's code" "$n" "$(replies)"
stop_afwd

echo "default deny
iif afwnosuch0 allow" > $work/policy.conf
out=$("$afwd" --check $work/policy.conf 2>&1)
check_grep "an interface that does not exist is refused by name" \
	"policy.conf:2:5: 'afwnosuch0': no such interface" "$out"

exit $AFW_FAILED
