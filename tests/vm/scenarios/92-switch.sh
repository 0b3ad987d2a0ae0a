#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The off switch: "afwctl disable" lets every packet pass and keeps the
# rules and settings; "afwctl enable" puts them back in force, but first
# judges the open SSH sessions as the kernel would (an accept rule either
# way installs the session's flow, which takes the other way), and refuses
# (no terminal) or asks (a terminal) when one would be cut; config set, with
# afw on, does the same for the settings it sets, and load for the file's
# settings and rules. The session here is
# SSH-like: a TCP connection from the client to port 22 of the server,
# where afw runs, with a line echoed every 0.2 s.
. "$AFW_SRC/tests/vm/lib.sh"
ECHO=$AFW_SRC/tests/tools/tcpecho.py
work=$(mktemp -d)
on_exit rm -rf "$work"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
s() { "$AFWCTL" -n $NS_S "$@"; }
ping_ok() { nsx $NS_C ping -q -c 1 -W 2 $S4 > /dev/null 2>&1; }
lines() { cat $work/progress 2> /dev/null || echo 0; }
# alive: the session echoes lines now (one every 0.2 s; its reads time out
# after 3 s, so more than 4 s of silence means it is cut).
more_than() { [ "$(lines)" -gt "$1" ]; }
alive() {
	local n
	n=$(lines)
	# A function, so that each try reads the count afresh.
	wait_until 5 more_than "$n" && return
	# What the kernel made of the session, for the log.
	s -j flow list >&2
	s -j stats >&2
	nsx $NS_C ss -tnio state all "( sport = :45022 or sport = :45023 )" >&2
	return 1
}

check_eq "afw starts enabled" true "$(s -j config | jq .enabled)"
check "disable" s disable
check_eq "config says enabled no" "enabled no" "$(s config | grep '^enabled')"
check_grep "status says so first" "^DISABLED: every packet passes" "$(s status)"
check "unknown drop, set while disabled" s config set unknown drop
check "pings pass: disabled passes everything" ping_ok
out=$(s -j status | jq -c '[.counters[].packets]')
ping_ok
check_eq "and counts nothing" "$out" "$(s -j status | jq -c '[.counters[].packets]')"
check_grep "save keeps the switch off" "^set enabled no$" "$(s save)"

nsx $NS_S python3 "$ECHO" server $S4 22 &
on_exit pkill -f "tcpecho.py server $S4 22"
wait_listen $NS_S tcp $S4:22
nsx $NS_C python3 "$ECHO" client $S4 22 45022 600 $work/progress &
on_exit pkill -f "tcpecho.py client $S4 22"
started() { [ "$(lines)" -gt 0 ]; }
# session_starts: its first line echoed. The client is a new python3, which
# on a starved CPU took more than 20 s (a CI run's 6.1 boot at nice 10,
# beside the debug kernel's); what the kernel made of it if it never does.
session_starts() {
	wait_until 60 started && return
	s -j stats >&2
	nsx $NS_C ss -tnio state all "( dport = :22 )" >&2
	return 1
}
check "an SSH-like session to port 22 runs" session_starts

out=$(s enable < /dev/null 2>&1)
check_eq "enable with unknown drop and no rule for it: refused, exit 1" 1 "$(s enable < /dev/null > /dev/null 2>&1; echo $?)"
check_grep "the warning names the session and what would cut it" \
	"the SSH session from $C4 port 45022 to port 22 would be cut: its packets in would be dropped \\(unknown drop\\)" "$out"
check_grep "and says how to keep it, and how to enable anyway" "dport 22 accept.*lets the replies out" "$out"
check_grep "and that nothing changed" "not enabled; 'afwctl enable --yes' enables anyway" "$out"
check_eq "still disabled" false "$(s -j config | jq .enabled)"
check "the session still runs" alive

check "rules for the session, both ways" sh -c "
	$AFWCTL -n $NS_S rule add id 1 prio 10 dir in proto tcp dport 22 accept &&
	$AFWCTL -n $NS_S rule add id 2 prio 10 dir out proto tcp sport 22 accept"
out=$(s enable < /dev/null 2>&1)
check_eq "with them, enable goes ahead without a word of warning" \
	"afw is enabled: rules, flows and settings are in force again" "$out"
check_fails "unknown drop is in force again: pings are dropped" ping_ok
check "and the session runs on" alive
check_eq "enable again: nothing to do" "afw is already enabled" "$(s enable 2>&1)"

# A rule that drops the session, ahead of the accept, is seen as the kernel
# sees it. Flushed, the session's flow no longer vouches for it.
s disable
s rule del 2
s flow flush
s rule add id 3 prio 0 dir in proto tcp from $C4/32 dport 20-30 drop
check_eq "a drop rule ahead of the accept, no rule out: refused" 1 \
	"$(s enable < /dev/null > /dev/null 2>&1; echo $?)"
check_grep "naming the rule, and the unknown policy out" \
	"its packets in would be dropped by a rule; out, dropped \\(unknown drop\\)" \
	"$(s enable < /dev/null 2>&1)"
s rule del 3
out=$(s enable < /dev/null 2>&1)
check_eq "one accept rule, for the packets in, is enough: its flow lets the replies out" \
	"afw is enabled: rules, flows and settings are in force again" "$out"
check "and the session runs on, by a flow of rule 1" alive
check_eq "the session's flow is rule 1's" 1 \
	"$(s -j flow list | jq '[.[] | select(.dport == 22 and .origin == "rule" and .rule == 1)] | length')"
s disable
s rule flush

out=$(s enable --yes < /dev/null 2>&1)
check_eq "enable --yes goes ahead" 0 $?
check_grep "after the warning" "would be cut" "$out"
check_fails "and the session is cut" alive

# config set, with afw on, judges the settings it would put in force the
# same way before it sends them.
s config set unknown accept
rm -f $work/progress
nsx $NS_C python3 "$ECHO" client $S4 22 45023 600 $work/progress &
check "a new SSH-like session runs, under unknown accept" session_starts
out=$(s config set unknown drop < /dev/null 2>&1)
check_eq "config set unknown drop would cut it: refused, exit 1" 1 \
	"$(s config set unknown drop < /dev/null > /dev/null 2>&1; echo $?)"
check_grep "the warning names the session" \
	"the SSH session from $C4 port 45023 to port 22 would be cut: its packets in would be dropped \\(unknown drop\\)" "$out"
check_grep "and says that nothing changed" \
	"config set: nothing changed; 'afwctl config set --yes KEY VALUE...' sets it anyway" "$out"
check_eq "unknown is still accept" accept "$(s -j config | jq -r .unknown)"
check_grep "unknown queue, fail closed, is judged too" "dropped while afwd is not running" \
	"$(s config set unknown queue fail closed < /dev/null 2>&1)"
check "the session runs on" alive

# load judges a file the same way, by its settings and by its rules, which
# replace those in force, taken in the kernel's order: prio, then id, a
# rule without one numbered after the highest given.
printf 'set unknown drop\n' > $work/cut.conf
out=$(s load $work/cut.conf < /dev/null 2>&1)
check_eq "load of a file with unknown drop and no rule for it: refused, exit 1" 1 \
	"$(s load $work/cut.conf < /dev/null > /dev/null 2>&1; echo $?)"
check_grep "the warning names the session" \
	"the SSH session from $C4 port 45023 to port 22 would be cut: its packets in would be dropped \\(unknown drop\\)" "$out"
check_grep "and says that nothing changed" \
	"load: nothing changed; 'afwctl load --yes FILE' loads it anyway" "$out"
check_eq "unknown is still accept" accept "$(s -j config | jq -r .unknown)"
printf 'set unknown accept\nprio 1 dir in proto tcp dport 22 drop\n' > $work/drop22.conf
check_grep "under unknown accept too, a file whose rule drops the session is refused" \
	"its packets in would be dropped by a rule; out, accepted \\(unknown accept\\)" \
	"$(s load $work/drop22.conf < /dev/null 2>&1)"
printf 'set unknown drop\nid 8 prio 10 dir in proto tcp dport 22 accept\nprio 5 dir in proto tcp dport 22 drop\n' \
	> $work/prio.conf
check_grep "a drop rule written after the accept but of a lower prio is judged first" \
	"its packets in would be dropped by a rule" "$(s load $work/prio.conf < /dev/null 2>&1)"
printf 'set unknown drop\nid 9 prio 10 dir in proto tcp dport 22 drop\nprio 10 dir in proto tcp dport 22 accept\n' \
	> $work/id.conf
check_grep "so is a drop whose id comes before the one the accept will get" \
	"its packets in would be dropped by a rule" "$(s load $work/id.conf < /dev/null 2>&1)"
check_eq "and nothing was loaded" 0 "$(s -j rule list | jq length)"
printf 'set unknown drop\nid 7 prio 10 dir in proto tcp dport 22 accept\n' > $work/keep.conf
check_eq "a file whose own rule keeps the session loads without a word" "" \
	"$(s load $work/keep.conf < /dev/null 2>&1)"
check_eq "unknown drop is in force" drop "$(s -j config | jq -r .unknown)"
check "and the session runs on" alive
printf 'set unknown accept\n' > $work/open.conf
s load $work/open.conf
s flow flush
out=$(s config set --yes unknown drop < /dev/null 2>&1)
check_eq "config set --yes goes ahead" 0 $?
check_fails "and cuts it" alive

nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)
out=$(nsx $NS_S "${nobody[@]}" "$AFWCTL" disable 2>&1)
check_grep "nobody may not disable" "permission denied" "$out"
check_eq "and afw stays enabled" true "$(s -j config | jq .enabled)"
s config set unknown accept

exit $AFW_FAILED
