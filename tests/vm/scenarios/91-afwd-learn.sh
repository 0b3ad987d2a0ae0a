#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Learned decisions: a connection afwd decides by its destination alone
# teaches the module that decision, and the module decides the next
# connections to the same place itself, telling afwd after, which logs and
# records each as its own. Only that exact place: another port, address
# family or protocol still goes to afwd; a policy whose rules look at the
# source keeps every connection afwd's; a reload forgets what the old
# policy taught, and afwd's end takes it all.
. "$AFW_SRC/tests/vm/lib.sh"
afwd_work
apid=
on_exit 'kill $apid 2> /dev/null'

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo_server $NS_S $S4 7000
echo_server $NS_S $S4 7001
echo_server $NS_S $S6 7000
echo=$AFW_SRC/tests/tools/tcpecho.py

c() { "$AFWCTL" -n $NS_C "$@"; }
kstat() { c -j stats | jq -r ".learned.$1"; }
dstat() { "$AFWD" --stats --ctl $work/afwd.sock | jq "[.queues[].$1] | add"; }
# talk ADDR PORT SPORT: one echo exchange from the client, on that source port.
talk() { nsx $NS_C timeout 10 python3 $echo client "$1" "$2" "$3" 0 2> /dev/null; }
flow_of() {
	c -j flow list | jq -r ".[] | select(.sport == $1) | \"\(.origin) \(.line) \(.verdict)\""
}

cat > $work/policy.conf << 'POLICY'
default deny
prio 10 proto tcp dport 7000 allow
prio 20 proto tcp dport 7002 reject
POLICY
cp $work/policy.conf $work/taught.conf
check "the client's unknown flows go to afwd, failing closed" \
	c config set unknown queue queue 0 fail closed
start_afwd() {
	ip netns exec $NS_C "$AFWD" -q 0 -p $work/policy.conf --ctl $work/afwd.sock -j \
		--module on 2> $work/afwd.log &
	apid=$!
	wait_until 60 grep -q 'afwd: ready' $work/afwd.log
}
check "afwd starts with the module" start_afwd

check "the first connection to port 7000 passes, decided by afwd" talk $S4 7000 41000
check_eq "afwd taught the module that decision" 1 "$(kstat kept)"
check_eq "its own flow is afwd's" "control null accept" "$(flow_of 41000)"
check "a second connection passes" talk $S4 7000 41001
check "and a third" talk $S4 7000 41002
check_eq "the module decided those two itself" 2 "$(kstat flows)"
check_eq "listed as learned, by afwd's policy line 2" "learned 2 accept" "$(flow_of 41001)"
check_eq "with the program that made it" python3 \
	"$(c -j flow list | jq -r '.[] | select(.sport == 41002) | .owner.comm')"
logged() { [ "$(grep '"dport":7000' $work/afwd.log | grep -c '"verdict":"allow"')" -ge 3 ]; }
check "afwd was told of both, and logged each" wait_until 10 logged
check_eq "by policy line 2, with the owner's uid" "2 0" \
	"$(grep '"sport":41002' $work/afwd.log | jq -rs '.[0] | "\(.policy_line) \(.uid)"')"
check_eq "afwd --stats counts them as told" 2 "$(dstat told)"

# Only that place: not another port, not the other address family. The
# default deny is learned too: no rule before it looks past the destination.
check_fails "a connection to port 7001 is denied by afwd's default" talk $S4 7001 41003
check_eq "as afwd's own flow" "control null drop" "$(flow_of 41003)"
check_fails "and the next by the module" talk $S4 7001 41009
check_eq "listed as learned, by the default's line 1" "learned 1 drop" "$(flow_of 41009)"
check_eq "two decisions kept, three flows decided by them" "2 3" \
	"$(kstat kept) $(kstat flows)"
check "the first connection over IPv6 passes" talk $S6 7000 41004
check_eq "decided by afwd" "control null accept" "$(flow_of 41004)"
check "and the second" talk $S6 7000 41005
check_eq "by the module" "learned 2 accept" "$(flow_of 41005)"
check_eq "three decisions kept, four flows decided by them" "3 4" \
	"$(kstat kept) $(kstat flows)"

# A refusal is learned as well: the module answers the next with a reset.
check_fails "a connection to port 7002 is rejected by afwd" talk $S4 7002 41006
check_fails "and the next by the module" talk $S4 7002 41007
check_eq "listed as learned, reject" "learned 3 reject" "$(flow_of 41007)"
check_grep "refused at once, not timed out" "Connection refused" \
	"$(nsx $NS_C timeout 10 bash -c "exec 3<>/dev/tcp/$S4/7002" 2>&1)"

# What the module keeps, as afwctl lists it; a flush sends the next
# connection to afwd, which teaches the module again.
check_eq "afwctl learned lists the four decisions by destination" \
	"$S4 7000 accept 2 2,$S4 7001 drop 1 1,$S4 7002 reject 3 2,$S6 7000 accept 2 1" \
	"$(c -j learned | jq -r 'sort_by(.family, .dport) | map("\(.dst) \(.dport) \(.verdict) \(.line) \(.flows)") | join(",")')"
check_grep "and as a table, with the direction" "^out +tcp +$S4 +7000 +accept +2 +2\$" \
	"$(c learned)"
check "afwctl learned flush" c learned flush
check_eq "forgets them all" 0 "$(kstat kept)"
check "a connection to port 7000 passes" talk $S4 7000 41010
check_eq "decided by afwd again" "control null accept" "$(flow_of 41010)"
check_eq "which taught the module again" 1 "$(kstat kept)"

# A reload forgets what the old policy taught: a rule on the source port
# now denies one connection to port 7000, which a kept decision would pass.
cat > $work/policy.conf << 'POLICY'
default deny
prio 5 proto tcp dport 7000 sport 41100 deny
prio 10 proto tcp dport 7000 allow
POLICY
check "afwd reloads" "$AFWD" --reload --ctl $work/afwd.sock
check_eq "the module forgot every decision taught" 0 "$(kstat kept)"
check_fails "the connection from port 41100 is denied, by the rule on its source" \
	talk $S4 7000 41100
check "another from port 41101 passes" talk $S4 7000 41101
check "and one from 41102" talk $S4 7000 41102
check_eq "none was learned: the policy looks at their source" "0 6" \
	"$(kstat kept) $(kstat flows)"
check_eq "each was afwd's own" "control null accept" "$(flow_of 41102)"

# afwd's end takes what it taught with it: nothing passes failing closed.
cp $work/taught.conf $work/policy.conf
check "afwd reloads the first policy" "$AFWD" --reload --ctl $work/afwd.sock
check "a connection to port 7000 passes" talk $S4 7000 41200
check_eq "and teaches the module again" 1 "$(kstat kept)"
kill $apid
wait $apid 2> /dev/null
none_kept() { [ "$(kstat kept)" = 0 ]; }
check "once afwd is gone, the module keeps none of its decisions" wait_until 10 none_kept
check_fails "and a connection to port 7000 fails closed" talk $S4 7000 41201
check_eq "none was told untold, none left for want of room" "0 0" \
	"$(kstat untold) $(kstat full)"
