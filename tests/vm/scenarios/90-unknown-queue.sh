#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packets of unknown flows: accepted, dropped or queued to the analyzer, and
# with no analyzer listening, fail-open or fail-closed exactly as configured.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
ping_ok() { nsx $NS_C ping -q -c 1 -W 2 $S4 > /dev/null 2>&1; }
cfg() { "$AFWCTL" -n $NS_R -j config | jq -r ".$1"; }
# start_afwd Q MODULE: afwd on queue Q (--module MODULE) with a policy that
# allows everything, in a directory of its own the user afw can read;
# returns once it is ready.
start_afwd() {
	local dir
	dir=$(mktemp -d)
	on_exit rm -rf "$dir"
	printf 'default allow\n' > $dir/policy.conf
	chmod 755 $dir
	chmod 644 $dir/policy.conf
	nsx $NS_R "$AFW_SRC/build/afwd" -q "$1" --module "$2" -p $dir/policy.conf \
		--ctl $dir/afwd.sock 2> $dir/afwd.log &
	on_exit pkill -f "build/afwd -q $1"
	wait_until 60 grep -q 'afwd: ready' $dir/afwd.log
}

check_eq "the default for unknown flows is accept" accept "$(cfg unknown)"
check_eq "the default fail mode is closed" closed "$(cfg fail)"
check_grep "config prints every setting" \
	'^unknown accept.queue 0.fail closed.max_flows [0-9]+.tcp_timeout 86400.udp_timeout 120.flow_timeout 300.enabled yes.owners yes$' \
	"$("$AFWCTL" -n $NS_R config | tr '\n' '.' | sed 's/\.$//')"

check "unknown drop" "$AFWCTL" -n $NS_R config set unknown drop
check_fails "forwarded pings are dropped" ping_ok
check "an accept rule still lets pings through" \
	"$AFWCTL" -n $NS_R rule add dir forward proto icmp accept
check "pings pass by the rule" ping_ok
"$AFWCTL" -n $NS_R rule flush

queued=$("$AFWCTL" -n $NS_R -j status | jq .queued)
check "unknown queue to 3, fail closed" "$AFWCTL" -n $NS_R config set unknown queue queue 3 fail closed
check_fails "with no analyzer on queue 3, fail-closed drops" ping_ok
check_ge "the packet was handed to NFQUEUE" $((queued + 1)) "$("$AFWCTL" -n $NS_R -j status | jq .queued)"
# What NFQUEUE drops or passes there, afw counts: status adds the drops to
# its dropped, and says why.
st() { "$AFWCTL" -n $NS_R -j status | jq ".$1"; }
check_ge "the module counted it as sent where no analyzer serves, failing closed" 1 \
	"$(st unserved_dropped)"
check_eq "status -j counts it in dropped" \
	"$(( $(st dropped_by_rules) + $(st unserved_dropped) ))" "$(st dropped)"
check_grep "status says why" \
	'^dropped: [0-9]+ \([0-9]+ by verdicts, [1-9][0-9]* queued where no analyzer serves, failing closed\)' \
	"$("$AFWCTL" -n $NS_R status 2> /dev/null)"
check_eq "stats -j: the same count" "$(st unserved_dropped)" \
	"$("$AFWCTL" -n $NS_R -j stats | jq .unserved.dropped)"
check "fail open" "$AFWCTL" -n $NS_R config set fail open
check "with no analyzer, fail-open lets it through" ping_ok
check_eq "config shows fail open" open "$(cfg fail)"
check_ge "counted as passed unjudged" 1 "$(st unserved_passed)"
check_grep "status says so" '^passed unjudged: [1-9][0-9]* \(queued where no analyzer serves, failing open\)$' \
	"$("$AFWCTL" -n $NS_R status 2> /dev/null)"

# afwd says which queues it serves, for as long as it runs: what goes there
# is not counted; once it is gone, what goes there is again.
"$AFWCTL" -n $NS_R config set fail closed
check "afwd serves queue 3, with the module" start_afwd 3 on
d0=$(st unserved_dropped) p0=$(st unserved_passed)
check "a ping passes by afwd's verdict" ping_ok
check_eq "and nothing is counted as unserved" "$d0 $p0" "$(st unserved_dropped) $(st unserved_passed)"
pkill -KILL -f "build/afwd -q 3"
afwd3_gone() { ! pgrep -f "build/afwd -q 3" > /dev/null; }
wait_until 10 afwd3_gone
"$AFWCTL" -n $NS_R flow flush
check_fails "afwd killed: fail closed drops again" ping_ok
check_ge "and its queue counts as unserved again: its socket's close withdrew it" \
	$((d0 + 1)) "$(st unserved_dropped)"

check "queue range 4-7" "$AFWCTL" -n $NS_R config set queue 4-7 fail closed
check_eq "queue_num 4" 4 "$(cfg queue_num)"
check_eq "queue_count 4" 4 "$(cfg queue_count)"
check_fails "fail-closed over a range drops too" ping_ok

# status says where unknown flows go and which queues nobody serves: their
# packets are dropped there, out of sight of every afw counter.
status_err() { "$AFWCTL" -n $NS_R status 2>&1 > /dev/null; }
check_grep "status: unknown flows go to queues 4-7, fail closed" \
	'^unknown flows: queue 4-7, fail closed$' "$("$AFWCTL" -n $NS_R status 2> /dev/null)"
check_grep "status warns: no listener on 4-7, packets dropped, start afwd -q 4-7" \
	'no listener on queue 4,5,6,7: .* dropped \(fail closed\).* start afwd with -q 4-7' \
	"$(status_err)"
check_eq "status -j: four unserved queues" 4 "$("$AFWCTL" -n $NS_R -j status | jq .unserved_queues)"
check "afwd serves queue 5" start_afwd 5 off
check_grep "status: queue 5 listens" '^unknown flows: queue 4-7, fail closed; listening: 5 ' \
	"$("$AFWCTL" -n $NS_R status 2> /dev/null)"
check_grep "and the warning names 4, 6 and 7 only" 'no listener on queue 4,6,7:' "$(status_err)"
check_eq "status -j: queue 5 has a listener, 4 none" "true false 3" \
	"$("$AFWCTL" -n $NS_R -j status | jq -r '"\(.queues[1].listener) \(.queues[0].listener) \(.unserved_queues)"')"
pkill -f "build/afwd -q 5"
check "fail open: the warning says packets pass unjudged" sh -c \
	"$AFWCTL -n $NS_R config set fail open &&
	 $AFWCTL -n $NS_R status 2>&1 >/dev/null | grep -q 'passed unjudged (fail open)'"
"$AFWCTL" -n $NS_R config set fail closed

"$AFWCTL" -n $NS_R config set unknown accept
check "a queue rule sends matching packets to the analyzer" \
	"$AFWCTL" -n $NS_R rule add dir forward proto icmp queue
check_fails "and with no analyzer, fail-closed drops them" ping_ok
"$AFWCTL" -n $NS_R rule flush
check "unknown accept: pings pass again" ping_ok

out=$("$AFWCTL" -n $NS_R config set unknown sometimes 2>&1)
check_grep "a bad value names itself" "'unknown sometimes': accept, drop or queue" "$out"
out=$("$AFWCTL" -n $NS_R config set queue 65535-65536 2>&1)
check_grep "a queue range past 65535 is refused" "queue 65535-65536" "$out"
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)
# The settings tell what a host lets through, as the rules do: the admin's.
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" config 2>&1)
check_grep "nobody may not read the config" "permission denied" "$out"
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" config set unknown drop 2>&1)
check_grep "nobody may not change it" "permission denied" "$out"
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" flow add proto icmp from $C4 to $S4 drop 2>&1)
check_grep "nobody may not add flows" "permission denied" "$out"

exit $AFW_FAILED
