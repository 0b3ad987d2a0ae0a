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
probe_is "a rule not marked nested" rule-not-nested '^error 22'
probe_is "RULE_NEW without a rule" rule-missing '^error 22'
probe_is "a flow without a verdict" flow-no-verdict '^error 22 afw: a flow needs a verdict'
probe_is "RULE_NEW carrying a flow: each command takes its own attributes" \
	rule-new-with-flow '^error 22 Unsupported attribute'
probe_is "FLOW_DEL carrying a verdict says it takes the key only" \
	flow-del-with-verdict "^error 22 deleting takes the flow's key only"
probe_is "a queue range past 65535" config-queue-overflow '^error 22 afw: queue range goes past queue 65535'
check_eq "none of them left a rule behind" 0 "$("$AFWCTL" -j rule list | jq length)"
check_eq "nor a flow" 0 "$("$AFWCTL" -j flow list | jq length)"
check "the module still answers afterwards" "$AFWCTL" status

exit $AFW_FAILED
