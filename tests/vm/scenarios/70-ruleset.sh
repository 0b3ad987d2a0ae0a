#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Whole rulesets: load from a file, save, replace atomically under traffic,
# refuse bad files without losing the rules in force, and scale.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
work=$(mktemp -d)
on_exit "rm -rf $work"

cat > $work/a.rules <<RULES
# afw test ruleset A
id 1 prio 10 dir forward proto tcp dport 5201 accept   # iperf3
id 2 prio 20 dir forward family ipv4 from $C4/32 proto udp drop
prio 30 dir forward proto tcp dport 22 reject

id 9 prio 5 family ipv6 dir in,forward proto udp from 2001:db8::/32 sport 1000-2000 dport 53 iif rc accept
RULES
check "load a rules file with comments and blank lines" "$AFWCTL" -n $NS_R load $work/a.rules
check_eq "it holds 4 rules" 4 "$("$AFWCTL" -n $NS_R -j rule list | jq length)"
check_eq "a rule without id got the next id after the highest" "10" \
	"$("$AFWCTL" -n $NS_R -j rule list | jq -r '.[] | select(.rule | test("dport 22")) | .id')"
# -j rule list: every field on its own, for scripts.
check_eq "rule list -j carries the fields of a rule" \
	'9 5 "ipv6" ["in","forward"] "udp" "2001:db8::/32" null {"lo":1000,"hi":2000} {"lo":53,"hi":53} "rc" null null null "accept" 0 0' \
	"$("$AFWCTL" -n $NS_R -j rule list | jq -c -r '.[] | select(.id == 9) |
		[.id, .prio, .family, .dirs, .proto, .src, .dst, .sport, .dport, .iif, .oif, .uid, .gid,
		 .action, .packets, .bytes] | map(tojson) | join(" ")')"
check_eq "and the rule as text" "prio 5 family ipv6 dir in,forward proto udp from 2001:db8::/32 sport 1000-2000 dport 53 iif rc accept" \
	"$("$AFWCTL" -n $NS_R -j rule list | jq -r '.[] | select(.id == 9) | .rule')"
check_eq "a rule that sets little has nulls and all directions" \
	'"ipv4" ["forward"] "192.0.2.2/32" null' \
	"$("$AFWCTL" -n $NS_R -j rule list | jq -c -r '.[] | select(.id == 2) | [.family, .dirs, .src, .dst] | map(tojson) | join(" ")')"

# save writes the settings too, and load restores them with the rules.
"$AFWCTL" -n $NS_R config set unknown drop queue 2-5 fail open max_flows 777 flow_timeout 42
"$AFWCTL" -n $NS_R save > $work/saved
check_grep "save writes every setting" \
	'^set unknown drop.set queue 2-5.set fail open.set max_flows 777.set tcp_timeout 86400.set udp_timeout 120.set flow_timeout 42.$' \
	"$(grep '^set ' $work/saved | tr '\n' '.')"
"$AFWCTL" -n $NS_R config set unknown accept queue 0 fail closed max_flows 65536 flow_timeout 300
"$AFWCTL" -n $NS_R rule flush
check "save output loads back" "$AFWCTL" -n $NS_R load $work/saved
check "and saves identically: rules and settings" diff -u $work/saved <("$AFWCTL" -n $NS_R save)
check_eq "the settings are back" "drop 2 4 open 777 42" \
	"$("$AFWCTL" -n $NS_R -j config | jq -r '"\(.unknown) \(.queue_num) \(.queue_count) \(.fail) \(.max_flows) \(.flow_timeout)"')"
# A load sends each rule's matches in one AFW_RULE_A_MATCH, "rule add" an
# attribute each: the kernel makes the same rules of both.
cat > $work/forms.rules <<'RULES'
id 1 prio 4294967295 family ipv6 dir in,forward proto udp from 2001:db8::/32 to 2001:db8:1::1 sport 1-65535 dport 53 iif rc oif lo reject comment "both forms"
id 2 dir out proto tcp to 198.51.100.0/24 dport 443 uid 0 gid 0 accept
id 3 family ipv4 drop
id 4 proto sctp sport 0-0 queue
id 5 family ipv6 from ::/0 to ::1 drop
id 6 prio 3 dir forward from 10.0.0.0/8 proto icmp accept
RULES
"$AFWCTL" -n $NS_R rule flush
check "a file of rules setting every field loads" "$AFWCTL" -n $NS_R load $work/forms.rules
"$AFWCTL" -n $NS_R save | grep -v '^set ' > $work/loaded
"$AFWCTL" -n $NS_R rule flush
added=0
while read -r line; do
	eval "\"\$AFWCTL\" -n \$NS_R rule add $line" > /dev/null && added=$((added + 1))
done < $work/forms.rules
check_eq "each of them adds one by one" 6 $added
check "and the kernel holds the same rules either way" diff -u $work/loaded <("$AFWCTL" -n $NS_R save | grep -v '^set ')
"$AFWCTL" -n $NS_R load $work/saved
"$AFWCTL" -n $NS_R config set unknown accept
"$AFWCTL" -n $NS_R save > $work/saved

printf 'id 1 accept\nid 2 proto tcp dport 80-70 drop\n' > $work/bad.rules
out=$("$AFWCTL" -n $NS_R load $work/bad.rules 2>&1)
check_eq "a bad file fails with exit 1" 1 $?
check_grep "the error names file, line, column and word" "bad.rules:2:22: 'dport 80-70'" "$out"
check "the rules in force are untouched" diff -u $work/saved <("$AFWCTL" -n $NS_R save)
printf 'id 3 drop\nid 3 accept\n' > $work/dup.rules
out=$("$AFWCTL" -n $NS_R load $work/dup.rules 2>&1)
check_grep "duplicate ids are refused before anything is sent" "dup.rules:2:4: 'id 3': given on line 1 already" "$out"
check "and change nothing either" diff -u $work/saved <("$AFWCTL" -n $NS_R save)
# A ruleset only the kernel can judge: its settings must not go in either.
printf 'set unknown drop\nid 3 dir out iif rc drop\n' > $work/refused.rules
out=$("$AFWCTL" -n $NS_R load $work/refused.rules 2>&1)
check_eq "a ruleset the kernel refuses fails with exit 1" 1 $?
check_grep "with the kernel's reason" "no input interface" "$out"
check "and neither its rules nor its settings are in force" diff -u $work/saved <("$AFWCTL" -n $NS_R save)
# Refused at the commit itself (more masks than max_masks): the settings go
# with the commit, so they never took effect, not even for a moment.
{ echo 'set unknown drop'
  for i in $(seq 1 130); do
	echo "id $i from 0.0.0.0/$((1 + i % 32)) to 0.0.0.0/$((1 + i / 32)) accept"
  done; } > $work/masks.rules
out=$("$AFWCTL" -n $NS_R load $work/masks.rules 2>&1)
check_grep "a ruleset refused at its commit says why, and that nothing changed" \
	"max_masks.*nothing changed" "$(printf '%s' "$out" | tr '\n' ' ')"
check "its settings are not in force either" diff -u $work/saved <("$AFWCTL" -n $NS_R save)

probe=$AFW_SRC/tests/tools/nlprobe.py
check_grep "a second socket cannot start a replace while one is open, and can after it closes" \
	'^first 0, second 16 afw: another ruleset replace is in progress in this namespace, after close 0$' \
	"$(nsx $NS_R python3 "$probe" replace-busy)"
check_grep "commit without begin is refused" '^error 2 afw: no ruleset replace in progress' \
	"$(nsx $NS_R python3 "$probe" commit-without-begin)"

# Replace under traffic: both rulesets accept the stream and drop all other
# forwarded traffic. A packet that saw a partial ruleset (the drop without
# the accepts) would be lost, and the router would count it as dropped.
printf 'id 1 prio 1 dir forward proto tcp dport 5201 accept\nid 2 prio 1 dir forward proto tcp sport 5201 accept\nid 3 prio 100 dir forward drop\n' > $work/x.rules
printf 'id 7 prio 2 dir forward proto tcp sport 5201 accept\nid 8 prio 2 dir forward proto tcp dport 5201 accept\nid 9 prio 50 dir forward drop\n' > $work/y.rules
"$AFWCTL" -n $NS_R load $work/x.rules
iperf_server $NS_S -B $S4
dropped=$("$AFWCTL" -n $NS_R -j status | jq .dropped)
# Not through nsx: $! must be iperf3 itself. It streams until stopped.
ip netns exec $NS_C iperf3 -c $S4 -t 600 > /dev/null 2>&1 &
client=$!
wait_until 10 nsx $NS_C sh -c "ss -tn state established | grep -q ':5201'"
swaps=0
while [ $swaps -lt 20 ] && kill -0 $client 2>/dev/null; do
	"$AFWCTL" -n $NS_R load $work/y.rules && "$AFWCTL" -n $NS_R load $work/x.rules || break
	swaps=$((swaps + 2))
done
check "the stream is still running after $swaps swaps" kill -0 $client
check_eq "20 swaps happened while it ran" 20 $swaps
check_eq "the router dropped no packet across them" "$dropped" \
	"$("$AFWCTL" -n $NS_R -j status | jq .dropped)"
kill $client
wait $client 2>/dev/null
check_fails "the catch-all drop does drop other forwarded traffic" nsx $NS_C ping -q -c 1 -W 1 $S4
check_eq "and counts it" $((dropped + 1)) "$("$AFWCTL" -n $NS_R -j status | jq .dropped)"

# Scale: 100k distinct rules load in one transaction and classify traffic.
nbig=${AFW_SCALE_RULES:-100000}
awk -v n=$nbig 'BEGIN { for (i = 0; i < n; i++)
	printf "prio 100 family ipv4 dir forward proto udp from 203.0.%d.%d/32 dport %d drop\n", i / 256 % 256, i % 256, 1000 + i / 65536 }' > $work/big.rules
start=$(date +%s%N)
check "load $nbig rules" "$AFWCTL" -n $NS_R load $work/big.rules
echo "load of $nbig rules took $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
check_eq "$nbig rules are listed" $nbig "$("$AFWCTL" -n $NS_R -j rule list | jq length)"
check "traffic still flows with $nbig rules" nsx $NS_C ping -q -c 3 -i 0.1 $S4
check "flush them" "$AFWCTL" -n $NS_R rule flush

exit $AFW_FAILED
