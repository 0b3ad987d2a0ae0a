#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd decides by the process that started a flow (exe, user, cgroup,
# comm), from the kernel's record of the flow's first packet: the right
# program is judged even when it sent one datagram and exited before afwd
# looked; afwd's log names it; a reload judges installed flows by their
# programs again.
. "$AFW_SRC/tests/vm/lib.sh"
afwd_work
apid=
on_exit 'kill $apid'

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo=$AFW_SRC/tests/tools/tcpecho.py
echo_server $NS_S $S4 5201
# Every datagram to port 5300, a line each.
: > $work/udp.log
nsx $NS_S python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 5300))
while True:
    with open(sys.argv[2], "ab") as f:
        f.write(s.recv(100))' $S4 $work/udp.log &
on_exit "kill $!"
wait_listen $NS_S udp :5300

cg=/sys/fs/cgroup
cgroup2_here
mkdir -p $cg/afw-b $cg/afw-c
on_exit "rmdir $cg/afw-b $cg/afw-c"
for p in a b c; do cp /usr/bin/bash $work/prog-$p; done

cat > $work/policy.conf << POLICY
default allow
prio 1 exe $work/prog-a reject
prio 2 user 1001 reject
prio 3 cgroup /afw-b reject
prio 4 comm prog-c reject
prio 5 dir in cgroup /afw-c reject
POLICY
check "the client's unknown flows go to afwd, failing closed" \
	"$AFWCTL" -n $NS_C config set unknown queue queue 0 fail closed
: > $work/afwd.log
ip netns exec $NS_C "$AFWD" -q 0 -p $work/policy.conf --ctl $work/afwd.sock -j --module on \
	2> $work/afwd.log &
apid=$!
check "afwd starts with the module" wait_until 60 grep -q 'afwd: ready' $work/afwd.log

# talk PROG [CGROUP [UID]]: PROG's TCP echo exchange, from the client's
# namespace (nsenter keeps the cgroup2 mount that ip netns exec hides).
talk() {
	(
		[ -n "${2:-}" ] && echo $BASHPID > $cg/$2/cgroup.procs
		exec nsenter --net=/run/netns/$NS_C setpriv --reuid=${3:-0} --regid=${3:-0} \
			--clear-groups timeout 10 $work/$1 -c \
			"exec 3<>/dev/tcp/$S4/5201 && echo hi >&3 && read -r r <&3 && [ \"\$r\" = hi ]"
	) 2> /dev/null
}
check "prog-b, as root, talks" talk prog-b
check_fails "prog-a is rejected by its program" talk prog-a
check_fails "prog-b as user 1001 is rejected by its user" talk prog-b "" 1001
check_fails "prog-b in cgroup /afw-b is rejected by its cgroup" talk prog-b afw-b
check_fails "prog-c is rejected by its task name" talk prog-c
check "and prog-b, as root, still talks" talk prog-b

# Inbound: a connection to a local listener is judged by the listener's
# record, its cgroup here; the same connection to another passes.
nsenter --net=/run/netns/$NS_C bash -c 'echo $$ > "$1/afw-c/cgroup.procs"
	exec python3 "$2" server "$3" 5400' - $cg "$echo" $C4 &
on_exit "kill $!"
nsenter --net=/run/netns/$NS_C python3 "$echo" server $C4 5401 &
on_exit "kill $!"
wait_listen $NS_C tcp :5400
wait_listen $NS_C tcp :5401
check "a connection in to a listener in the root cgroup is allowed" \
	nsx $NS_S timeout 10 python3 $echo client $C4 5401 43100 0
check_fails "one to the listener in /afw-c is rejected by its cgroup" \
	nsx $NS_S timeout 10 python3 $echo client $C4 5400 43101 0
check_eq "afwd's log says so: the rule of the listener's cgroup, line 6" "reject 6" \
	"$(grep '"dport":5400' $work/afwd.log | jq -rs '.[0] | "\(.verdict) \(.policy_line)"')"
check_eq "and marks the owner as the listener's, with no process" "true null" \
	"$(grep '"dport":5400' $work/afwd.log | jq -rs '.[0] | "\(.listener) \(.pid)"')"

# One datagram each, from processes that exit at once: afwd decides after
# they are gone, and still judges the program that sent it.
nsenter --net=/run/netns/$NS_C $work/prog-a -c "echo from-a > /dev/udp/$S4/5300"
nsenter --net=/run/netns/$NS_C $work/prog-b -c "echo from-b > /dev/udp/$S4/5300"
check "prog-b's datagram arrives" wait_until 20 grep -q from-b $work/udp.log
sleep 1
check_fails "prog-a's does not" grep -q from-a $work/udp.log
rec=$(grep '"dport":5300' $work/afwd.log | grep '"verdict":"reject"' | head -1)
check_eq "afwd's log names the program it rejected, and its pid and name" \
	"$work/prog-a prog-a true" "$(jq -r '"\(.exe) \(.comm) \(.pid > 1)"' <<< "$rec")"
check_eq "both flows are installed with their verdicts, each listed as its program's" \
	"accept $work/prog-b reject $work/prog-a" \
	"$("$AFWCTL" -n $NS_C -j flow list | jq -r '.[] | select(.dport == 5300) |
		"\(.verdict) \(.owner.exe)"' | sort | tr '\n' ' ' | sed 's/ $//')"

st=$("$AFWD" --stats --ctl $work/afwd.sock)
check_ge "afwd --stats counts the owners it asked for and found" 6 \
	"$(jq '[.queues[].owners_found] | add' <<< "$st")"
check "and no more answers than questions" \
	jq -e '[.queues[] | .owners_found <= .owners_asked] | all' <<< "$st"

# A reload judges the flows afwd installed by their programs again.
ip netns exec $NS_C python3 $echo client $S4 5201 43000 30 &
long=$!
long_listed() {
	"$AFWCTL" -n $NS_C -j flow list | jq -e '.[] | select(.sport == 43000) |
		select(.verdict == "accept")' > /dev/null
}
check "a long-lived python3 connection is installed" wait_until 20 long_listed
{ echo "prio 0 exe /usr/bin/python3* deny"; cat $work/policy.conf; } > $work/new.conf
mv $work/new.conf $work/policy.conf
check_grep "a reload that denies python3 changes that flow's verdict" \
	"^ok .*; 1 recorded flow changed verdict" \
	"$("$AFWD" --reload --ctl $work/afwd.sock)"
check_eq "the module now drops it" drop "$("$AFWCTL" -n $NS_C -j flow list |
	jq -r '.[] | select(.sport == 43000) | .verdict')"
check_fails "and the connection breaks" wait $long
