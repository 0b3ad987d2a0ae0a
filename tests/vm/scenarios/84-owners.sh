#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flow owners: the process that started a flow is recorded by the kernel as
# the flow's first packet leaves, so that a process gone before anyone looks
# is still named: its pid, uid, program and cgroup, for 50 processes at once
# (20 on the debug kernel) from three users, two programs and two cgroups;
# a flow still waiting for afwd has its owner too; forwarded flows have
# none; the records are bounded by max_flows and go once their flows are
# gone. An inbound flow is its local socket's: the listener's, or the bound
# UDP socket's, user and cgroup.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo=$AFW_SRC/tests/tools/tcpecho.py
echo_server $NS_S $S4 5201

cg=/sys/fs/cgroup
cgroup2_here
mkdir -p $cg/afw-a $cg/afw-b
on_exit "rmdir $cg/afw-a $cg/afw-b"
# Two programs: copies of bash, which connects with /dev/tcp.
bin=$(mktemp -d /tmp/afw-owners.XXXXXX)
chmod 755 "$bin"
cp /usr/bin/bash "$bin/prog-a"
cp /usr/bin/bash "$bin/prog-b"
on_exit "rm -rf $bin"

c() { "$AFWCTL" -n $NS_C "$@"; }
check "an accept rule for the client's connections out" \
	c rule add dir out proto tcp dport 5201 accept
check "unknown drop, so the rule installs flows" c config set unknown drop

# One process, started by a shell that exits at once: the flow's owner is
# the program that connected, though it is gone before the listing.
ip netns exec $NS_C sh -c "$bin/prog-a -c 'exec 3<>/dev/tcp/$S4/5201; echo x >&3; read -t 5 r <&3' & echo \$! > $bin/one.pid; exit"
one=$(cat $bin/one.pid)
wait_until 20 sh -c "! kill -0 $one 2>/dev/null"
check_fails "the connecting process has exited" kill -0 "$one"
got=$(c -j flow list | jq -r --arg pid "$one" '.[] | select(.owner.pid == ($pid | tonumber)) |
	"\(.dport) \(.owner.uid) \(.owner.exe) \(.owner.comm)"')
check_eq "its flow names it: port, uid, program, task name" "5201 0 $bin/prog-a prog-a" "$got"
row=$(c flow list | awk -v pid="$one" '$(NF-2) == pid')
check_grep "flow list shows uid, pid and program in its last columns" \
	" 0 $one $bin/prog-a /" "$row"

# $procs at once (50, at most the rule's 50 ports; the debug kernel, where
# each start takes two seconds, runs 20): users 0, 1001, 1002; programs a
# and b; cgroups afw-a, afw-b.
# Each child moves itself into its cgroup, then becomes its program, which
# sends one datagram and exits: the pid $! names is the pid that sends.
# UDP, whose flows outlive their senders by the UDP timeout: a TCP flow
# goes 10 s after its FIN, sooner than these starts take on the debug
# kernel.
procs=${AFW_OWNER_PROCS:-50}
# nsenter, not ip netns exec, which mounts a /sys of its own, without the
# cgroups. A port each: a UDP socket that came to reuse an earlier one's
# port would find its flow, and that flow's owner.
c flow flush
c rule add dir out proto udp dport 5300-5349 accept
c config set udp_timeout 900
nsenter --net=/run/netns/$NS_C bash -c '
	bin=$1 cg=$2 s4=$3 n=$4
	for i in $(seq 0 $((n - 1))); do
		case $((i % 3)) in 0) uid=0 ;; 1) uid=1001 ;; 2) uid=1002 ;; esac
		prog=$bin/prog-$([ $((i % 2)) = 0 ] && echo a || echo b)
		grp=afw-$([ $((i % 5)) -lt 2 ] && echo a || echo b)
		(
			echo $BASHPID > $cg/$grp/cgroup.procs
			exec setpriv --reuid=$uid --regid=$uid --clear-groups $prog -c \
				"echo x > /dev/udp/$s4/$((5300 + i))"
		) &
		echo "$! $uid $prog /$grp"
	done > $bin/want
	wait' - "$bin" $cg $S4 "$procs" 2>/dev/null
check_eq "$procs processes started" "$procs" "$(wc -l < $bin/want)"
have=$(c -j flow list | jq -r '.[] | select(.dport >= 5300 and .dport < 5350 and .owner != null) |
	"\(.owner.pid) \(.owner.uid) \(.owner.exe) \(.owner.cgroup)"' | sort)
check_eq "$procs flows have owners" "$procs" "$(printf '%s\n' "$have" | grep -c .)"
wrong=$(diff <(sort $bin/want) <(printf '%s\n' "$have"))
check_eq "each is attributed to its own pid, user, program and cgroup" "" "$wrong"
check_eq "three users among them" 3 "$(printf '%s\n' "$have" | cut -d' ' -f2 | sort -u | wc -l)"
check_eq "two cgroups among them" 2 "$(printf '%s\n' "$have" | cut -d' ' -f4 | sort -u | wc -l)"

# A flow afwd has yet to decide: queued to nobody, failing closed; its
# owner is there before its flow is.
check "unknown queue, failing closed, no afwd" c config set unknown queue fail closed
check_fails "the connection cannot be made" \
	nsx $NS_C timeout 20 python3 $echo client $S4 5202 42000 0
out=$(c flow owner proto tcp from $C4 to $S4 sport 42000 dport 5202)
check_grep "flow owner names the waiting flow's program" \
	"^uid 0 gid 0 pid [0-9]+ comm python3 exe /usr/bin/python3[.0-9]* cgroup / age [0-9]+$" "$out"
out=$(c -j flow owner proto tcp from $S4 to $C4 sport 5202 dport 42000)
check_eq "asked from the other side, the same owner" "python3 0" \
	"$(jq -r '"\(.comm) \(.uid)"' <<< "$out")"
out=$(c flow owner proto tcp from $C4 to $S4 sport 42001 dport 5202 2>&1)
check_grep "a flow nobody started says so" "no owner recorded for this flow" "$out"
out=$("$AFWCTL" -n $NS_C flow owner proto tcp from $C4 to $S4 2>&1)
check_grep "a key without ports is refused" "needs sport and dport" "$out"
# A ping waiting for afwd: its owner is kept under the ping's own key, its
# pinger and identifier, as afwd asks for it; not under the two addresses,
# where another program's ping to the same host would find it.
check_fails "a ping waiting for afwd gets no reply" nsx $NS_C ping -q -c 1 -W 2 -e 4242 $S4
out=$(c flow owner proto icmp from $C4 to $S4 id 4242 2>&1)
check_grep "flow owner names the waiting ping's program, by its identifier" \
	"^uid 0 gid 0 pid [0-9]+ comm ping exe /usr/bin/ping cgroup / age [0-9]+$" "$out"
out=$(c flow owner proto icmp from $C4 to $S4 id 4243 2>&1)
check_grep "another identifier has no owner" "no owner recorded for this flow" "$out"
out=$(c flow owner proto icmp from $C4 to $S4 2>&1)
check_grep "nor have the two addresses alone" "no owner recorded for this flow" "$out"

# Forwarded flows were started elsewhere: no owner.
"$AFWCTL" -n $NS_R rule add dir forward proto tcp dport 5201 accept
"$AFWCTL" -n $NS_R config set unknown drop
c config set unknown drop
check "a connection through the router" nsx $NS_C timeout 20 python3 $echo client $S4 5201 42010 0
check_eq "the router's flow has no owner; the client's has" "1 null 1 0" \
	"$("$AFWCTL" -n $NS_R -j flow list | jq -r '[.[] | select(.sport == 42010)] |
		"\(length) \(.[0].owner)"') $(c -j flow list | jq -r '[.[] |
		select(.sport == 42010)] | "\(length) \(.[0].owner.uid)"')"

# Gone 30 s after their flows; then bounded by max_flows. Replies pass by
# a rule of their own, so that connections go on when the flows are full.
c flow flush
"$AFWCTL" -n $NS_R flow flush
owners_gone() { [ "$(c -j stats | jq .owners.recorded)" = 0 ]; }
check "with their flows gone, the owners go within a minute" wait_until 90 owners_gone
c rule add dir in proto tcp sport 5201 accept
c config set max_flows 20
ip netns exec $NS_C bash -c 'for i in $(seq 40); do exec 3<>/dev/tcp/$1/5201 && echo x >&3 && exec 3>&-; done' - $S4 2>/dev/null
st=$(c -j stats)
check_eq "40 connections, max_flows 20: 20 owners kept ($(jq -c .owners <<< "$st"))" 20 \
	"$(jq .owners.recorded <<< "$st")"
check_ge "the others are counted as lost" 20 "$(jq .owners.lost <<< "$st")"

# Turned off, nothing is recorded; on again, the next flows are.
c config set max_flows 65536
check "owners no" c config set owners no
check_grep "config says so" "^owners no$" "$(c config)"
check_grep "and save keeps it" "^set owners no$" "$(c save)"
c flow flush
noted=$(c -j stats | jq .owners.noted)
ip netns exec $NS_C bash -c 'echo x > /dev/udp/$1/5300' - $S4
check_eq "a new flow is listed without an owner" "1 null" \
	"$(c -j flow list | jq -r '[.[] | select(.dport == 5300)] | "\(length) \(.[0].owner)"')"
check_eq "and none was noted" "$noted" "$(c -j stats | jq .owners.noted)"
check "owners yes" c config set owners yes
check_fails "save leaves the default out" grep -q "owners" <(c save)
c flow flush
ip netns exec $NS_C bash -c 'echo x > /dev/udp/$1/5301' - $S4
check_eq "the next flow has its owner again" "0 bash" \
	"$(c -j flow list | jq -r '.[] | select(.dport == 5301) | "\(.owner.uid) \(.owner.comm)"')"

# Inbound: a flow to a local listener is attributed to the listening
# socket's owner (its opener's uid and gid, its cgroup); no process is
# named, for the listener may serve several. Here the server's namespace
# runs afw: a TCP listener of user 1001 in /afw-b, a UDP socket of user
# 1002 in /afw-a, and a queued flow that afwd would be asked about.
s() { "$AFWCTL" -n $NS_S "$@"; }
# The client and the router let everything through from here.
c config set unknown accept
"$AFWCTL" -n $NS_R config set unknown accept
nsenter --net=/run/netns/$NS_S bash -c '
	echo $$ > "$1/afw-b/cgroup.procs"
	exec setpriv --reuid=1001 --regid=1001 --clear-groups python3 "$2" server "$3" 5210' \
	- $cg "$echo" $S4 &
on_exit "kill $!"
nsenter --net=/run/netns/$NS_S bash -c '
	echo $$ > "$1/afw-a/cgroup.procs"
	exec setpriv --reuid=1002 --regid=1002 --clear-groups python3 "$2" "$3" 5310 /dev/null' \
	- $cg "$AFW_SRC/tests/tools/udpsink.py" $S4 &
on_exit "kill $!"
wait_listen $NS_S tcp :5210
wait_listen $NS_S udp :5310
check "the server accepts TCP 5210 and UDP 5310 in" \
	s rule add dir in proto tcp dport 5210 accept
s rule add dir in proto udp dport 5310 accept
s config set unknown drop
check "a connection to the listener" nsx $NS_C timeout 20 python3 $echo client $S4 5210 42100 0
ip netns exec $NS_C bash -c 'echo x > /dev/udp/$1/5310' - $S4
check_eq "the TCP flow is the listener's: user 1001, its cgroup, no process" \
	"1001 1001 0 /afw-b true null" \
	"$(s -j flow list | jq -r '.[] | select(.dport == 5210) |
		"\(.owner.uid) \(.owner.gid) \(.owner.pid) \(.owner.cgroup) \(.owner.listener) \(.owner.exe)"')"
check_grep "flow list shows it as the listener's" " 1001 - \(listener\) /afw-b$" \
	"$(s flow list | grep ' 5210 ')"
check_eq "the UDP flow is its bound socket's: user 1002 in /afw-a" "1002 /afw-a true" \
	"$(s -j flow list | jq -r '.[] | select(.dport == 5310) |
		"\(.owner.uid) \(.owner.cgroup) \(.owner.listener)"')"
check_eq "an outbound flow's owner is no listener" "false" \
	"$(c -j flow list | jq -r '[.[] | select(.owner != null)][0].owner.listener')"
# Before any decision: a flow queued to afwd (none here, failing closed)
# has its listener's record already, for afwd's first question.
s rule flush
s config set unknown queue fail closed
check_fails "a new connection waits for afwd" \
	nsx $NS_C timeout 20 python3 $echo client $S4 5210 42101 0
check_grep "flow owner names the listener of the waiting flow" \
	"^uid 1001 gid 1001 pid 0 comm - exe - cgroup /afw-b age [0-9]+ listener$" \
	"$(s flow owner proto tcp from $C4 to $S4 sport 42101 dport 5210)"
nsx $NS_C timeout 5 python3 $echo client $S4 5211 42102 0 2>/dev/null
out=$(s flow owner proto tcp from $C4 to $S4 sport 42102 dport 5211 2>&1)
check_grep "a connection to a port nobody listens on has no owner" "no owner recorded" "$out"
