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

# Each case below is a request sent straight to the kernel, past afwctl's
# own checks, and the reply it must get: well-formed requests answered,
# malformed ones refused with the reason where one is due. For the rule
# cases, AFW_RULE_A_MATCH (the form a load sends) is refused as the
# attributes it stands for would be. One interpreter sends them all, in
# this order, on one socket (python3 takes seconds to start on the debug
# kernel), and each reply is checked on its own.
# The table is read from fd 3, so nothing the checks run can take its lines.
cases=()
declare -A want name got
while IFS=$'\t' read -r -u 3 c w n; do
	cases+=("$c")
	want[$c]=$w
	name[$c]=$n
done 3<<'CASES'
status	^ok	a well-formed STATUS_GET is answered
status-with-attr	^error 22 reply-only attribute	STATUS_GET carrying a reply-only attribute gets EINVAL and says why
status-unknown-attr	^error 22	an attribute beyond the policy gets EINVAL
unknown-cmd	^error 95	an unknown command gets EOPNOTSUPP
truncated-attr	^error 22	a truncated attribute gets EINVAL
reset-with-attr	^error 22 reply-only attribute	RESET with an attribute is refused before acting
rule-no-action	^error 22 afw: a rule needs an action	a rule without an action
rule-bad-action	^error 34 integer out of range	an action out of range
rule-addr-no-family	^error 22 an address needs a family	an address without a family
rule-addr-wrong-length	^error 22 address length does not match the family	an address of the wrong length
rule-prefix-too-long	^error 22 prefix length longer than the address	a prefix longer than the address
rule-host-bits	^error 22 address has bits set beyond the prefix length	host bits beyond the prefix
rule-range-reversed	^error 22 port range is empty	a port range with lo > hi
rule-ports-no-proto	^error 22 ports need proto	ports without a protocol
rule-short-u32	^error 22	a 2-byte value for a u32
rule-counters-given	^error 22 reply-only attribute	counters are reply-only
rule-exe-relative	^error 22 a program is named by its absolute path	a relative program path
rule-exe-dotdot	^error 22 a program is named by its absolute path	a program path with '..'
rule-exe-root	^error 22 a program is named by its absolute path	the root as a program
rule-exe-too-long	^error 22 Attribute failed policy validation	a program path of 256 bytes
rule-cgroup-slashes	^error 22 a cgroup is named by its path	a cgroup path with '//'
rule-cgroup-trailing	^error 22 a cgroup is named by its path	a cgroup path with a trailing '/'
rule-cgroup-inbound	^error 22 afw: uid, gid, exe and cgroup match only locally generated packets	a cgroup rule on inbound packets only
rule-not-nested	^error 22	a rule not marked nested
rule-missing	^error 22	RULE_NEW without a rule
flow-no-verdict	^error 22 afw: a flow needs a verdict	a flow without a verdict
flow-learn-no-dir	^error 22 afw: a learned decision needs the flow's direction	a decision to learn without its direction
flow-learn-udp	^error 22 afw: only TCP decisions are learned	a UDP decision to learn
flow-learn-inspect	^error 22 afw: an inspected flow's decision is not learned	an inspect decision to learn
flow-learn-bad-dir	^error 34 integer out of range	a direction out of range
flow-del-with-dir	^error 22 this request takes the flow.s key only	FLOW_DEL with a direction: the key only
flow-new-with-hits	^error 22 reply-only attribute	FLOW_NEW with a dump's count
confirm-no-iif	^error 22 afw: confirming a flow needs ack, end and iif	a flow held for confirmation, no interface
confirm-no-ack	^error 22 afw: confirming a flow needs ack, end and iif	a flow held for confirmation, no acknowledgement
confirm-udp	^error 22 an unconfirmed flow is a TCP flow's accept, not learned	a UDP flow held for confirmation
confirm-drop	^error 22 an unconfirmed flow is a TCP flow's accept, not learned	a drop held for confirmation
confirm-learned	^error 22 an unconfirmed flow is a TCP flow's accept, not learned	a learned decision held for confirmation
confirm-short-ack	^error 22	a 2-byte acknowledgement to confirm by
confirm-unknown-attr	^error 22	an attribute beyond the confirmation's policy
confirm-not-nested	^error 22 NLA_F_NESTED is missing	a confirmation not marked nested
learn-flush-with-attr	^error 22 reply-only attribute	LEARN_FLUSH with an attribute
rule-new-with-flow	^error 22 Unsupported attribute	RULE_NEW carrying a flow: each command takes its own attributes
flow-del-with-verdict	^error 22 this request takes the flow's key only	FLOW_DEL carrying a verdict says it takes the key only
config-queue-overflow	^error 22 afw: queue range goes past queue 65535	a queue range past 65535
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
while read -r c r; do
	got[$c]=$r
done < <(python3 "$probe" --each "${cases[@]}")
check_eq "every request got its reply" ${#cases[@]} ${#got[@]}
for c in "${cases[@]}"; do
	check_grep "${name[$c]}" "${want[$c]}" "${got[$c]:-no reply}"
done
check_eq "none of them left a rule behind" 0 "$("$AFWCTL" -j rule list | jq length)"
check_grep "a well-formed MATCH is taken" '^ok' "$(python3 "$probe" match-ok)"
check_eq "and lists as the rule it says" \
	"prio 7 family ipv4 dir in proto tcp from 192.0.2.0/24 dport 80-90 drop" \
	"$("$AFWCTL" -j rule list | jq -r '.[] | select(.id == 4242) | .rule')"
check "afwctl rule del 4242" "$AFWCTL" rule del 4242
check_eq "nor a flow" 0 "$("$AFWCTL" -j flow list | jq length)"
check_grep "a well-formed flow held for confirmation is taken" '^ok' "$(python3 "$probe" confirm-ok)"
check_eq "and is listed unconfirmed, as sent" "192.0.2.1 40002 198.51.100.9 9 accept true" \
	"$("$AFWCTL" -j flow list | jq -r '.[] | "\(.src) \(.sport) \(.dst) \(.dport) \(.verdict) \(.unconfirmed)"')"
check "afwctl flow flush" "$AFWCTL" flow flush

# What a socket that serves a queue with AFW_A_SERVE_TELL is told: each
# bare handshake packet of a connection the module would have queued
# there, as a HANDSHAKE message, read here byte by byte (attribute
# lengths, padding, nesting; the flow's ends and ports as its packet has
# them), over loopback, IPv4 and IPv6, in a namespace of their own.
ip netns add afw-told
on_exit ip netns del afw-told
ip -n afw-told link set lo up
# Fail open: nobody reads queue 7, and the bytes that confirm a flow must
# reach the server.
check "unknown flows go to queue 7" "$AFWCTL" -n afw-told config set unknown queue queue 7 fail open
for v in 4 6; do
	out=$(nsx afw-told python3 "$probe" told $v 7 2>&1)
	for f in SYN SYN-ACK ACK; do
		check_grep "IPv$v: the connection's $f is told" "^handshake $f (out|in) ok" "$out"
	done
	check_grep "IPv$v: the server's ACK that confirms a flow is told" "^confirmed ACK out ok" "$out"
	check_grep "IPv$v: a connection a learned decision passes is told" "^learned SYN out ok" "$out"
	check_eq "IPv$v: every message told is well-formed" "" "$(grep -v ' ok$' <<< "$out")"
done
check "the module still answers afterwards" "$AFWCTL" status

exit $AFW_FAILED
