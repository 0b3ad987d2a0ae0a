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
cfg() { nsx $NS_R "$AFWCTL" -j config | jq -r ".$1"; }

check_eq "the default for unknown flows is accept" accept "$(cfg unknown)"
check_eq "the default fail mode is closed" closed "$(cfg fail)"
check_grep "config prints every setting" \
	'^unknown accept.queue 0.fail closed.max_flows [0-9]+.flow_timeout 300$' \
	"$(nsx $NS_R "$AFWCTL" config | tr '\n' '.' | sed 's/\.$//')"

check "unknown drop" nsx $NS_R "$AFWCTL" config set unknown drop
check_fails "forwarded pings are dropped" ping_ok
check "an accept rule still lets pings through" \
	nsx $NS_R "$AFWCTL" rule add dir forward proto icmp accept
check "pings pass by the rule" ping_ok
nsx $NS_R "$AFWCTL" rule flush

queued=$(nsx $NS_R "$AFWCTL" -j status | jq .queued)
check "unknown queue to 3, fail closed" nsx $NS_R "$AFWCTL" config set unknown queue queue 3 fail closed
check_fails "with no analyzer on queue 3, fail-closed drops" ping_ok
check_ge "the packet was handed to NFQUEUE" $((queued + 1)) "$(nsx $NS_R "$AFWCTL" -j status | jq .queued)"
check "fail open" nsx $NS_R "$AFWCTL" config set fail open
check "with no analyzer, fail-open lets it through" ping_ok
check_eq "config shows fail open" open "$(cfg fail)"

check "queue range 4-7" nsx $NS_R "$AFWCTL" config set queue 4-7 fail closed
check_eq "queue_num 4" 4 "$(cfg queue_num)"
check_eq "queue_count 4" 4 "$(cfg queue_count)"
check_fails "fail-closed over a range drops too" ping_ok

nsx $NS_R "$AFWCTL" config set unknown accept
check "a queue rule sends matching packets to the analyzer" \
	nsx $NS_R "$AFWCTL" rule add dir forward proto icmp queue
check_fails "and with no analyzer, fail-closed drops them" ping_ok
nsx $NS_R "$AFWCTL" rule flush
check "unknown accept: pings pass again" ping_ok

out=$(nsx $NS_R "$AFWCTL" config set unknown sometimes 2>&1)
check_grep "a bad value names itself" "'unknown sometimes': accept, drop or queue" "$out"
out=$(nsx $NS_R "$AFWCTL" config set queue 65535-65536 2>&1)
check_grep "a queue range past 65535 is refused" "queue 65535-65536" "$out"
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)
check "nobody may read the config" nsx $NS_R "${nobody[@]}" "$AFWCTL" config
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" config set unknown drop 2>&1)
check_grep "nobody may not change it" "permission denied" "$out"
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" flow add proto icmp from $C4 to $S4 drop 2>&1)
check_grep "nobody may not add flows" "permission denied" "$out"

exit $AFW_FAILED
