#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwctl stats explains verdicts: known traffic moves exactly the counter of
# the flow, rule or unknown-flow policy that decided it, the table gauges
# match what was loaded, flow table events are counted by cause, any user
# may read it, and only an admin may reset it.
. "$AFW_SRC/tests/vm/lib.sh"

probe=$AFW_SRC/tests/tools/nlprobe.py
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)

check "insmod afw.ko" afw_load
on_exit afw_unload

# A namespace with only loopback has no stray traffic: every packet is known.
NS_Q=$NSP-q
ip netns add $NS_Q
nsx $NS_Q ip link set lo up
q() { "$AFWCTL" -n $NS_Q -j stats | jq -r "$1"; }
nsx $NS_Q ping -q -c 3 -i 0.05 127.0.0.1 > /dev/null
check_eq "before anything is configured, afw has no hooks here: nothing counted" 0 \
	"$(q .decided.unknown.accept)"
check "a setting that changes nothing configures the namespace" afw_activate $NS_Q
nsx $NS_Q ping -q -c 3 -i 0.05 127.0.0.1 > /dev/null
# Each echo request and each reply pass LOCAL_OUT and LOCAL_IN once.
check_eq "with nothing else configured, 3 loopback pings are 12 unknown accepts" 12 \
	"$(q .decided.unknown.accept)"
check_eq "every packet the hooks counted is explained by stats" \
	"$("$AFWCTL" -n $NS_Q -j status | jq '[.counters[].packets] | add')" \
	"$(q '([.decided[][]] | add) + .malformed')"
check_eq "an empty namespace has no rules, masks or flows" "0 0 0" \
	"$(q '"\(.rules) \(.masks) \(.flows)"')"
check_eq "max_masks is the module's bound" 128 "$(q .max_masks)"
out=$("$AFWCTL" -n $NS_Q stats now 2>&1)
check_eq "stats with an argument exits 2" 2 $?
check_grep "and names the argument" "stats: unexpected argument 'now'" "$out"
check "nobody can read stats" nsx $NS_Q "${nobody[@]}" "$AFWCTL" stats
out=$(nsx $NS_Q "${nobody[@]}" "$AFWCTL" reset-counters 2>&1)
check_grep "nobody cannot reset them" "permission denied" "$out"
check_eq "and nobody's attempt changed nothing" 12 "$(q .decided.unknown.accept)"

# Eviction and refusal. The bucket array is sized at the first insert, so
# max_flows is set before it: an insert's bounded scan then sees every flow.
check "max_flows 1" "$AFWCTL" -n $NS_Q config set max_flows 1
check_eq "max_flows gauge follows the setting" 1 "$(q .max_flows)"
"$AFWCTL" -n $NS_Q flow add proto udp from 192.0.2.9 to 192.0.2.10 sport 1000 dport 53 accept
"$AFWCTL" -n $NS_Q flow add proto udp from 192.0.2.9 to 192.0.2.10 sport 1001 dport 53 accept
check_eq "a never-used flow was evicted for the new one" 1 "$(q .flow_events.evicted)"
check_eq "flows gauge: 1 of 1" "1 1" "$(q '"\(.flows) \(.max_flows)"')"
"$AFWCTL" -n $NS_Q flow flush
"$AFWCTL" -n $NS_Q flow add proto icmp from 127.0.0.1 to 127.0.0.1 accept
# One loopback ping is 4 packets, each both ways at once on a flow from
# 127.0.0.1 to itself: the flow is assured.
nsx $NS_Q ping -q -c 1 127.0.0.1 > /dev/null
check_eq "the loopback ping went by the flow" 4 "$(q .decided.flow.accept)"
out=$("$AFWCTL" -n $NS_Q flow add proto udp from 192.0.2.9 to 192.0.2.10 sport 1002 dport 53 accept 2>&1)
check_grep "a table full of assured flows refuses" "full of assured flows" "$out"
check_eq "the refusal is counted" 1 "$(q .flow_events.refused)"
check_eq "and nothing more was evicted" 1 "$(q .flow_events.evicted)"
check_eq "three inserts took" 3 "$(q .flow_events.inserted)"
check_grep "the table shows the flow events" \
	'^flow events +inserted 3, expired 0, closed 0, evicted 1, refused 1$' "$("$AFWCTL" -n $NS_Q stats)"

check_grep "a well-formed STATS_GET is answered" '^ok' "$(python3 "$probe" stats)"
check_grep "STATS_GET carrying its reply attribute gets EINVAL and says why" \
	'^error 22 reply-only attribute' "$(python3 "$probe" stats-with-attr)"
check_grep "STATS_GET carrying an attribute beyond the policy gets EINVAL" \
	'^error 22' "$(python3 "$probe" stats-unknown-attr)"

topo_routed || not_ok "routed topology comes up" "ping across the router failed"
r() { "$AFWCTL" -n $NS_R "$@"; }
st() { "$AFWCTL" -n $NS_R -j stats | jq -r "$1"; }
pings() { nsx $NS_C ping -q -c "$1" -i 0.2 -W 1 $S4 > /dev/null 2>&1; }
r reset-counters
gen=$(st .ruleset_gen)

# Rules: only the client's pings are forwarded IPv4 ICMP.
check "a forward drop rule for ICMP" r rule add id 1 dir forward family ipv4 proto icmp drop
check_fails "5 pings are dropped by it" pings 5
check_eq "rule drop counts exactly the 5 requests" 5 "$(st .decided.rule.drop)"
check "a reject rule for TCP port 9" r rule add id 2 dir forward family ipv4 proto tcp dport 9 reject
check_fails "a TCP connection to port 9 is refused" \
	nsx $NS_C timeout 10 bash -c "exec 3<>/dev/tcp/$S4/9"
check_eq "rule reject counts the one SYN" 1 "$(st .decided.rule.reject)"
check_eq "rules gauge: 2" 2 "$(st .rules)"
check_eq "masks gauge: the two rules need two masks" 2 "$(st .masks)"
check_eq "the ruleset generation moved once per change" $((gen + 2)) "$(st .ruleset_gen)"
table=$(r stats)
check_grep "the table shows the rule row" '^rule +0 +5 +1 +0$' "$table"
check_grep "the table shows the masks against their bound" '^masks +2 of 128$' "$table"

# Flows bypass the rules; both directions hit the one entry.
check "a flow accepts the client's ICMP" r flow add proto icmp from $C4 to $S4 accept
check "5 pings pass the drop rule by the flow" pings 5
check_eq "flow accept counts 5 requests and 5 replies" 10 "$(st .decided.flow.accept)"
check_eq "the rule dropped nothing more" 5 "$(st .decided.rule.drop)"
check "the flow's verdict becomes drop" r flow add proto icmp from $C4 to $S4 drop
check_fails "3 pings are dropped" pings 3
check_eq "flow drop counts the 3 requests" 3 "$(st .decided.flow.drop)"
check_eq "flows gauge: the new verdict replaced the entry" 1 "$(st .flows)"
check_eq "both FLOW_NEW requests were inserts" 2 "$(st .flow_events.inserted)"
r flow flush

r rule flush
check "a forward accept rule for ICMP" r rule add dir forward family ipv4 proto icmp accept
check "4 pings pass" pings 4
check_eq "rule accept counts 4 requests and 4 replies" 8 "$(st .decided.rule.accept)"
r rule flush

# The unknown-flow policy. The rule takes the router's own IPv6 neighbour
# traffic, so that only the pings are unknown.
r rule add family ipv6 accept
check "unknown drop" r config set unknown drop
check_fails "4 pings are dropped as unknown" pings 4
check_eq "unknown drop counts the 4 requests" 4 "$(st .decided.unknown.drop)"
check "unknown queue, fail closed, no analyzer" r config set unknown queue queue 3 fail closed
check_fails "2 pings go to the empty queue" pings 2
check_eq "unknown queue counts the 2 requests" 2 "$(st .decided.unknown.queue)"
r config set unknown accept
check "a queue rule" r rule add dir forward family ipv4 proto icmp queue
check_fails "2 pings go to the empty queue by the rule" pings 2
check_eq "rule queue counts the 2 requests" 2 "$(st .decided.rule.queue)"
check "a flow with verdict inspect" r flow add proto icmp from $C4 to $S4 inspect
check_fails "2 pings go to the empty queue by the flow" pings 2
check_eq "flow inspect counts the 2 requests" 2 "$(st .decided.flow.inspect)"
check_eq "the queue rule saw none of them" 2 "$(st .decided.rule.queue)"
check_eq "status's queued is the sum of every queue decision" 6 \
	"$(r -j status | jq .queued)"
r rule flush
r flow flush

# Flow table events, by cause.
r flow add proto udp from $C4 to $S4 sport 999 dport 53 accept timeout 1
# st_is KEY VALUE: a condition for wait_until, read afresh each time.
st_is() { [ "$(st "$1")" = "$2" ]; }
wait_until 10 st_is .flow_events.expired 1
check_eq "an idle flow expires" 1 "$(st .flow_events.expired)"
nsx $NS_S python3 $AFW_SRC/tests/tools/tcpecho.py server $S4 5201 &
on_exit "kill $!"
wait_listen $NS_S tcp :5201
r flow add proto tcp from $C4 to $S4 sport 40000 dport 5201 accept timeout 60
check "a TCP exchange ends with FIN" \
	nsx $NS_C timeout 30 python3 $AFW_SRC/tests/tools/tcpecho.py client $S4 5201 40000 0
# The FIN cut its life to 10 s; the collector then removes it.
wait_until 20 st_is .flow_events.closed 1
check_eq "a flow that saw a FIN is counted as closed" 1 "$(st .flow_events.closed)"
check_eq "not as expired" 1 "$(st .flow_events.expired)"
check_eq "flows gauge back to 0" 0 "$(st .flows)"

# Reset: counters go to zero, table sizes stay.
r rule add dir forward family ipv4 proto tcp dport 9 reject
r flow add proto udp from $C4 to $S4 sport 1000 dport 53 accept
gen=$(st .ruleset_gen)
accepted=$(st .decided.flow.accept)
out=$(nsx $NS_R "${nobody[@]}" "$AFWCTL" reset-counters 2>&1)
check_grep "nobody cannot reset the router's counters" "permission denied" "$out"
check_ge "the flows accepted the pings and the TCP exchange" 20 "$accepted"
check_eq "which keep their values" "$accepted" "$(st .decided.flow.accept)"
check "nobody can read the router's stats" nsx $NS_R "${nobody[@]}" "$AFWCTL" -j stats
check "root resets the counters" r reset-counters
check_eq "every flow and rule decision reads 0" 0 \
	"$(st '[.decided.flow[], .decided.rule[], .decided.unknown.drop, .decided.unknown.queue] | add')"
check_eq "every flow event reads 0" 0 "$(st '[.flow_events[]] | add')"
check_eq "the gauges are not counters: rules, flows, generation stay" "1 1 $gen" \
	"$(st '"\(.rules) \(.flows) \(.ruleset_gen)"')"

exit $AFW_FAILED
