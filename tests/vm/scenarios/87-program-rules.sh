#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rules on programs and cgroups, enforced by the module alone, without
# afwd: a program's connections pass or not by its path, also once a new
# file replaces it there and from a process started before that; a copy
# elsewhere does not pass, nor does another program shown at the allowed
# path in an unprivileged user's own mount namespace. A cgroup rule covers
# the cgroup's descendants, and a cgroup made, or made again, after the
# rule. Rules list, save and load with their paths.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo_server $NS_S $S4 5201

cg=/sys/fs/cgroup
cgroup2_here
mkdir -p $cg/afw-a/child $cg/afw-b
on_exit "rmdir $cg/afw-a/child $cg/afw-a $cg/afw-b $cg/afw-c"
# Two programs, copies of bash, which connects with /dev/tcp.
bin=$(mktemp -d /tmp/afw-prog.XXXXXX)
chmod 755 "$bin"
cp /usr/bin/bash "$bin/prog-a"
cp /usr/bin/bash "$bin/prog-b"
on_exit "rm -rf $bin"

c() { "$AFWCTL" -n $NS_C "$@"; }
# A connection by PROGRAM, in cgroup CGROUP (default: this shell's), made
# through the client's network namespace only: nsenter, so that the process
# keeps this mount namespace, as a program a user starts does.
conn() {	# conn PROGRAM [CGROUP]
	nsenter --net=/run/netns/$NS_C bash -c '
		[ -z "$3" ] || echo $$ > "$3/cgroup.procs"
		exec timeout 10 "$1" -c "exec 3<>/dev/tcp/$2/5201 && echo x >&3 &&
			read -t 5 r <&3 && [ \"\$r\" = x ]"' - "$1" $S4 "${2:+$cg/$2}" 2>/dev/null
}
rule_packets() { c -j rule list | jq --argjson id "$1" '.[] | select(.id == $id) | .packets'; }

check "unknown drop: only rules let anything out" c config set unknown drop
# The rest is refused at once, so that a check that fails does not wait.
check "a last rule rejects the rest" c rule add id 100 prio 100 dir out proto tcp dport 5201 reject

# By program.
check "a rule for prog-a" c rule add id 10 prio 10 dir out proto tcp dport 5201 exe "$bin/prog-a" accept
check "prog-a connects" conn "$bin/prog-a"
check_fails "prog-b does not" conn "$bin/prog-b"
out=$(nsenter --net=/run/netns/$NS_C timeout 10 "$bin/prog-b" -c "exec 3<>/dev/tcp/$S4/5201" 2>&1)
check_grep "it is refused, not left to time out: the reset comes back in over loopback" \
	"Connection refused" "$out"
check_ge "the exe rule counted prog-a's packets" 1 "$(rule_packets 10)"
check_ge "the reject rule counted prog-b's" 1 "$(rule_packets 100)"
cp "$bin/prog-a" "$bin/copy"
check_fails "a copy of prog-a under another name does not connect" conn "$bin/copy"

# An upgrade puts a new file at the path: the rule still means it, and a
# process started from the old file, now deleted, is still that program.
nsenter --net=/run/netns/$NS_C "$bin/prog-a" -c '
	while ! [ -e "$1/go" ]; do sleep 0.1; done
	exec 3<>/dev/tcp/$2/5201 && echo x >&3 && read -t 5 r <&3 && [ "$r" = x ] &&
		echo connected > "$1/old.out"' - "$bin" $S4 2>/dev/null &
old=$!
ino=$(stat -c %i "$bin/prog-a")
cp /usr/bin/bash "$bin/new" && mv "$bin/new" "$bin/prog-a"
check_fails "prog-a is a new file now" test "$ino" = "$(stat -c %i "$bin/prog-a")"
check "the new prog-a connects" conn "$bin/prog-a"
touch "$bin/go"
wait $old
check_eq "the old prog-a, deleted while it ran, connects" connected "$(cat "$bin/old.out" 2>/dev/null)"

# An unprivileged user's own mount namespace may show any file at any path:
# prog-b mounted over prog-a there is still not prog-a.
sysctl -qw kernel.unprivileged_userns_clone=1 2>/dev/null
as_user() { nsenter --net=/run/netns/$NS_C setpriv --reuid=1001 --regid=1001 --clear-groups "$@"; }
check "user 1001's prog-a connects" as_user timeout 10 "$bin/prog-a" -c "exec 3<>/dev/tcp/$S4/5201" 2>/dev/null
out=$(as_user unshare -Urm bash -c '
	mount --bind "$1/prog-b" "$1/prog-a" || exit
	exec timeout 10 "$1/prog-a" -c "stat -L -c %i /proc/\$\$/exe; readlink /proc/\$\$/exe
		exec 3<>/dev/tcp/$2/5201 && echo connected || echo refused"' - "$bin" $S4 2>/dev/null)
check_eq "there, prog-b runs as $bin/prog-a and is refused" \
	"$(stat -c %i "$bin/prog-b") $bin/prog-a refused" "$(echo $out)"

# Nor is it when a process of the host runs it from there, through
# /proc/PID/root: the file is not in the host's tree, whatever its path.
# (The namespace's root is user 1001 outside: the file it writes is open.)
: > "$bin/ns.pid"
chmod 666 "$bin/ns.pid"
as_user unshare -Urm bash -c '
	mount --bind "$1/prog-b" "$1/prog-a" && echo $$ > "$1/ns.pid" && exec sleep 120' \
	- "$bin" 2>/dev/null &
on_exit "kill $!"
check "a user's own mount namespace shows prog-b at prog-a's path" \
	wait_until 60 test -s "$bin/ns.pid"
out=$(as_user timeout 10 "/proc/$(cat "$bin/ns.pid")/root$bin/prog-a" -c "readlink /proc/\$\$/exe
	exec 3<>/dev/tcp/$S4/5201 && echo connected || echo refused" 2>/dev/null)
check_eq "run from there by a host process, it says it is $bin/prog-a, and is refused" \
	"$bin/prog-a refused" "$(echo $out)"

# A drop, where nothing else refuses: the SYN's retransmissions, which the
# stack sends from a timer with no program to name, are dropped too.
c rule flush
c config set unknown accept
check "drop prog-b" c rule add id 6 prio 5 dir out proto tcp dport 5201 exe "$bin/prog-b" drop
check_fails "prog-b cannot connect, not even by its retransmitted SYNs" conn "$bin/prog-b"
check_eq "the rule's refusal is kept as the flow's" "drop 6" \
	"$(c -j flow list | jq -r '[.[] | select(.origin == "rule" and .dport == 5201)][0] |
		"\(.verdict) \(.rule)"')"
check "prog-a connects, by the unknown policy" conn "$bin/prog-a"
c config set unknown drop

# A denial by program, ahead of a rule that lets everything else out.
c rule flush
c rule add id 100 prio 100 dir out proto tcp dport 5201 accept
check "deny prog-b" c rule add id 5 prio 5 dir out exe "$bin/prog-b" reject
check "prog-a connects" conn "$bin/prog-a"
check_fails "prog-b is denied" conn "$bin/prog-b"
check_fails "on any port and protocol" nsenter --net=/run/netns/$NS_C timeout 5 "$bin/prog-b" \
	-c "exec 3<>/dev/tcp/$S4/5202" 2>/dev/null
check_ge "by that rule" 2 "$(rule_packets 5)"

# By cgroup, with its descendants.
c rule flush
c rule add id 100 prio 100 dir out proto tcp dport 5201 reject
check "a rule for the cgroup /afw-a" c rule add id 20 prio 20 dir out proto tcp dport 5201 cgroup /afw-a accept
check "a process in /afw-a connects" conn "$bin/prog-b" afw-a
check "so does one in /afw-a/child" conn "$bin/prog-b" afw-a/child
check_fails "one in /afw-b does not" conn "$bin/prog-b" afw-b
check_fails "nor one in the root cgroup" conn "$bin/prog-b" .
# A unit's cgroup is made when it starts, and again when it restarts.
check "a rule for /afw-c, which does not exist" \
	c rule add id 21 prio 20 dir out proto tcp dport 5201 cgroup /sys/fs/cgroup/afw-c accept
mkdir $cg/afw-c
check "a process in /afw-c, made after its rule, connects" conn "$bin/prog-b" afw-c
rmdir $cg/afw-c && mkdir $cg/afw-c
check "and in /afw-c made again" conn "$bin/prog-b" afw-c
# Both: prog-a, and only in /afw-b.
check "a rule for prog-a in /afw-b" \
	c rule add id 22 prio 20 dir out proto tcp dport 5201 exe "$bin/prog-a" cgroup /afw-b accept
check "prog-a in /afw-b connects" conn "$bin/prog-a" afw-b
check_fails "prog-b in /afw-b does not" conn "$bin/prog-b" afw-b
check_fails "prog-a in the root cgroup does not" conn "$bin/prog-a" .

# Listed, saved and loaded with their paths.
check_grep "rule list shows the program and the cgroup" \
	"exe $bin/prog-a cgroup /afw-b accept" "$(c rule list)"
check_eq "and so does its JSON" "$bin/prog-a /afw-b /afw-c" \
	"$(c -j rule list | jq -r '[(.[] | select(.id == 22) | .exe, .cgroup),
		(.[] | select(.id == 21) | .cgroup)] | join(" ")')"
c save > "$bin/saved"
check_grep "save writes them" "exe $bin/prog-a cgroup /afw-b accept" "$(cat "$bin/saved")"
before=$(c -j rule list | jq -c '[.[] | .rule]')
c rule flush
check "and load takes them back" c load "$bin/saved"
check_eq "the same rules" "$before" "$(c -j rule list | jq -c '[.[] | .rule]')"
check "prog-a in /afw-b connects again" conn "$bin/prog-a" afw-b

# Refused with the reason.
out=$(c rule add dir in exe /usr/bin/curl drop 2>&1)
check_grep "a rule on a program for inbound packets only is refused" \
	"match only locally generated packets" "$out"
out=$(c rule add exe curl drop 2>&1)
check_grep "a program by name alone is refused" "absolute path" "$out"
