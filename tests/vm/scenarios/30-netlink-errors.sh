#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Requests the module must refuse, each with an error a human can read.
. "$AFW_SRC/tests/vm/lib.sh"

probe=$AFW_SRC/tests/tools/nlprobe.py

# Module parameters out of range are refused at load, not taken on trust.
for bad in max_masks=0 max_masks=100000 max_flows=0 max_rules=4294967295; do
	check_fails "insmod with $bad is refused" afw_load $bad
	afw_unload
done
check "insmod afw.ko" afw_load
on_exit afw_unload

check_grep "a well-formed STATUS_GET is answered" '^ok' "$(python3 "$probe" status)"
check_grep "STATUS_GET carrying a reply-only attribute gets EINVAL and says why" \
	'^error 22 reply-only attribute' "$(python3 "$probe" status-with-attr)"
check_grep "an attribute beyond the policy gets EINVAL" \
	'^error 22' "$(python3 "$probe" status-unknown-attr)"
check_grep "an unknown command gets EOPNOTSUPP" \
	'^error 95' "$(python3 "$probe" unknown-cmd)"
check_grep "a truncated attribute gets EINVAL" \
	'^error 22' "$(python3 "$probe" truncated-attr)"
check_grep "RESET with an attribute is refused before acting" \
	'^error 22 reply-only attribute' "$(python3 "$probe" reset-with-attr)"
# Malformed rules, flows and settings sent straight to the kernel, past
# afwctl's own checks: each is refused, with the reason where one is due.
probe_is() {	# probe_is NAME CASE EXPECTED-REGEX
	check_grep "$1" "$3" "$(python3 "$probe" "$2")"
}
probe_is "a rule without an action" rule-no-action '^error 22 afw: a rule needs an action'
probe_is "an action out of range" rule-bad-action '^error 34 integer out of range'
probe_is "an address without a family" rule-addr-no-family '^error 22 an address needs a family'
probe_is "an address of the wrong length" rule-addr-wrong-length '^error 22 address length does not match the family'
probe_is "a prefix longer than the address" rule-prefix-too-long '^error 22 prefix length longer than the address'
probe_is "host bits beyond the prefix" rule-host-bits '^error 22 address has bits set beyond the prefix length'
probe_is "a port range with lo > hi" rule-range-reversed '^error 22 port range is empty'
probe_is "ports without a protocol" rule-ports-no-proto '^error 22 ports need proto'
probe_is "a 2-byte value for a u32" rule-short-u32 '^error 22'
probe_is "counters are reply-only" rule-counters-given '^error 22 reply-only attribute'
probe_is "a relative program path" rule-exe-relative '^error 22 a program is named by its absolute path'
probe_is "a program path with '..'" rule-exe-dotdot '^error 22 a program is named by its absolute path'
probe_is "the root as a program" rule-exe-root '^error 22 a program is named by its absolute path'
probe_is "a program path of 256 bytes" rule-exe-too-long '^error 22 Attribute failed policy validation'
probe_is "a cgroup path with '//'" rule-cgroup-slashes '^error 22 a cgroup is named by its path'
probe_is "a cgroup path with a trailing '/'" rule-cgroup-trailing '^error 22 a cgroup is named by its path'
probe_is "a cgroup rule on inbound packets only" rule-cgroup-inbound \
	'^error 22 afw: uid, gid, exe and cgroup match only locally generated packets'
probe_is "a rule not marked nested" rule-not-nested '^error 22'
probe_is "RULE_NEW without a rule" rule-missing '^error 22'
probe_is "a flow without a verdict" flow-no-verdict '^error 22 afw: a flow needs a verdict'
probe_is "a decision to learn without its direction" flow-learn-no-dir \
	"^error 22 afw: a learned decision needs the flow's direction"
probe_is "a UDP decision to learn" flow-learn-udp '^error 22 afw: only TCP decisions are learned'
probe_is "an inspect decision to learn" flow-learn-inspect \
	"^error 22 afw: an inspected flow's decision is not learned"
probe_is "a direction out of range" flow-learn-bad-dir '^error 34 integer out of range'
probe_is "FLOW_DEL with a direction: the key only" flow-del-with-dir \
	'^error 22 this request takes the flow.s key only'
probe_is "FLOW_NEW with a dump's count" flow-new-with-hits '^error 22 reply-only attribute'
probe_is "LEARN_FLUSH with an attribute" learn-flush-with-attr '^error 22 reply-only attribute'
probe_is "RULE_NEW carrying a flow: each command takes its own attributes" \
	rule-new-with-flow '^error 22 Unsupported attribute'
probe_is "FLOW_DEL carrying a verdict says it takes the key only" \
	flow-del-with-verdict "^error 22 this request takes the flow's key only"
probe_is "a queue range past 65535" config-queue-overflow '^error 22 afw: queue range goes past queue 65535'
# AFW_RULE_A_MATCH, the form a load sends: each malformed struct refused
# with its reason, as the attributes it stands for would be.
# The table is read from fd 3, so nothing the checks run can take its lines.
while IFS=$'\t' read -r -u 3 case want name; do
	probe_is "$name" "$case" "$want"
done 3<<'CASES'
match-short	^error 22 shorter than struct afw_rule_match	a MATCH shorter than its struct
match-too-long	^error 34 Attribute failed policy validation	a MATCH longer than any rule's
match-reserved	^error 22 unknown flags or reserved byte set	a MATCH with its reserved byte set
match-unknown-flag	^error 22 unknown flags or reserved byte set	a MATCH with an unknown flag
match-bad-action	^error 22 no such action or directions	a MATCH with an action out of range
match-no-dirs	^error 22 no such action or directions	a MATCH with no direction
match-bad-family	^error 22 family must be ipv4 or ipv6	a MATCH with an unknown family
match-addr-no-family	^error 22 an address needs a family	a MATCH address without a family
match-wrong-length	^error 22 length does not match the flags and the family	a MATCH whose length is not its flags'
match-prefix-too-long	^error 22 prefix length longer than the address	a MATCH prefix longer than the address
match-host-bits	^error 22 address has bits set beyond the prefix length	a MATCH address with host bits
match-prefix-no-flag	^error 22 a prefix length without its address flag	a MATCH prefix without its address
match-ports-no-flag	^error 22 ports without their flag	MATCH ports without their flag
match-ports-no-proto	^error 22 ports need proto	MATCH ports without a protocol
match-range-reversed	^error 22 port range is empty	a MATCH port range with lo > hi
match-beside-action	^error 22 given beside AFW_RULE_A_MATCH	a MATCH beside the action attribute
match-beside-src	^error 22 given beside AFW_RULE_A_MATCH	a MATCH beside an address attribute
match-twice	^error 22 AFW_RULE_A_MATCH given twice	two MATCHes in one rule, the first bad
match-nested-flag	^error 22 NLA_F_NESTED not expected	a MATCH marked nested
match-in-replace	^error 22 port range is empty	a bad MATCH in a ruleset replace
CASES
check_eq "none of them left a rule behind" 0 "$("$AFWCTL" -j rule list | jq length)"
probe_is "a well-formed MATCH is taken" match-ok '^ok'
check_eq "and lists as the rule it says" \
	"prio 7 family ipv4 dir in proto tcp from 192.0.2.0/24 dport 80-90 drop" \
	"$("$AFWCTL" -j rule list | jq -r '.[] | select(.id == 4242) | .rule')"
check "afwctl rule del 4242" "$AFWCTL" rule del 4242
check_eq "nor a flow" 0 "$("$AFWCTL" -j flow list | jq length)"
check "the module still answers afterwards" "$AFWCTL" status

exit $AFW_FAILED
