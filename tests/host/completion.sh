#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shell completion: sourced into a plain bash (no bash-completion package
# needed), afwctl completes commands, subcommands, rule keywords not yet
# used and their values; afwd completes the options it knows.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host completion] "

# complete_words FILE LINE: what TAB offers at the end of LINE, one a line.
complete_words() {
	PATH=$src/build:$PATH bash --norc --noprofile -c '
		. "$1" || exit 1
		read -ra COMP_WORDS <<< "$2"
		[[ "$2" == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		COMP_LINE=$2 COMP_POINT=${#2}
		fn=$(complete -p "${COMP_WORDS[0]}" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' - "$1" "$2"
}
ctl=$src/dist/bash-completion/afwctl
words() { complete_words "$ctl" "$1" | tr '\n' ' ' | sed 's/ $//'; }

check_eq "complete -p afwctl after sourcing" "complete -F _afwctl afwctl" \
	"$(bash --norc -c ". '$ctl'; complete -p afwctl")"
# Every command afwctl --help lists, and nothing else: the two cannot drift.
check_eq "the commands, as afwctl --help lists them" \
	"$("${AFWCTL:-$src/build/afwctl}" --help | sed -n '/^Commands:/,/^[A-Z]/s/^  \([a-z-]*\) .*/\1/p' |
		sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(complete_words "$ctl" "afwctl " | grep -v '^-' | tr '\n' ' ' | sed 's/ $//')"
check_eq "monitor's options are log's" "--db --exe --host --last --since --verdict" \
	"$(words "afwctl monitor ")"
check_eq "a command's prefix" "rule" "$(words "afwctl ru")"
check_eq "after options" "list" "$(words "afwctl -j rule l")"
check_eq "log's options" "--db --exe --host --last --since --verdict" "$(words "afwctl log ")"
check_eq "and its verdicts" "deny" "$(words "afwctl log --verdict d")"
check_eq "rule subcommands" "add del flush list" "$(words "afwctl rule ")"
ns=afw-compl-$$
ip netns add $ns && trap 'ip netns del $ns' EXIT
check_eq "namespaces after -n" "$ns" "$(words "afwctl -n afw-compl-")"
check_eq "and after -n NAME, the commands again" "rule" "$(words "afwctl -n $ns ru")"
check_eq "and their words" "add del flush list" "$(words "afwctl --netns $ns -j rule ")"
check_eq "after --afwd SOCKET, the commands again" "flow" "$(words "afwctl --afwd /run/afw/afwd.sock fl")"
check_eq "rule keywords" "prio proto" "$(words "afwctl rule add pr")"
check_eq "a keyword already given is not offered again" "prio" "$(words "afwctl rule add proto tcp pr")"
check_eq "protocols after proto" "tcp" "$(words "afwctl rule add proto t")"
check_eq "actions, in both vocabularies" "accept allow" "$(words "afwctl rule add proto tcp a")"
check_eq "directions" "forward" "$(words "afwctl rule add dir f")"
check_grep "service names after dport" "(^| )ssh( |$)" "$(words "afwctl rule add proto tcp dport ss")"
check_eq "users after uid" "root" "$(words "afwctl rule add uid roo")"
check_eq "interfaces after iif" "lo" "$(words "afwctl rule add iif l")"
check_eq "programs and cgroups among the keywords" "cgroup comment" "$(words "afwctl rule add c")"
check_grep "a program's path after exe" "(^| )/usr/bin/bash( |$)" "$(words "afwctl rule add exe /usr/bin/bas")"
check_eq "a command's name after exe, as its path" "$(type -P jq)" "$(words "afwctl rule add exe jq")"
check_eq "flow verdicts" "inspect" "$(words "afwctl flow add proto tcp i")"
check_eq "an echo's id among an ICMP flow's words" "id inspect" "$(words "afwctl flow add proto icmp i")"
check_eq "no id among a UDP flow's" "inspect" "$(words "afwctl flow add proto udp from 192.0.2.1 i")"
check_eq "and no ports among an ICMP flow's" "" "$(words "afwctl flow owner proto icmpv6 s")"
check_eq "flow subcommands" "add del flush list owner watch" "$(words "afwctl flow ")"
check_eq "setting keys" "fail flow_timeout" "$(words "afwctl config set f")"
check_eq "the timeout of TCP" "tcp_timeout" "$(words "afwctl config set unknown drop t")"
check_eq "and of UDP" "udp_timeout unknown" "$(words "afwctl config set u")"
check_eq "a timeout takes a number: nothing offered" "" "$(words "afwctl config set udp_timeout ")"
check_eq "a setting's values" "accept" "$(words "afwctl config set unknown a")"
check_eq "keys, not values, after a pair" "queue" "$(words "afwctl config set unknown drop q")"
check_eq "the switch as a setting, and its values" "no" "$(words "afwctl config set enabled n")"
check_eq "enable's one option" "--yes" "$(words "afwctl enable --")"
d=$(mktemp -d)
trap 'rm -rf "$d"; ip netns del $ns' EXIT
touch "$d/afw.conf"
check_eq "files after check" "$d/afw.conf" "$(words "afwctl check $d/af")"
check_eq "load's one option" "--yes" "$(words "afwctl load --")"
check_eq "files after load --yes" "$d/afw.conf" "$(words "afwctl load --yes $d/af")"
check_eq "and nothing after the file" "" "$(words "afwctl load --yes $d/afw.conf ")"

afwd=$src/dist/bash-completion/afwd
check_eq "complete -p afwd after sourcing" "complete -F _afwd afwd" \
	"$(bash --norc -c ". '$afwd'; complete -p afwd")"
check_eq "afwd's options, from afwd --help" "--pcap --policy" \
	"$(complete_words "$afwd" "afwd --p" | tr '\n' ' ' | sed 's/ $//')"
check_eq "afwd --module values" "auto off on" \
	"$(complete_words "$afwd" "afwd --module " | tr '\n' ' ' | sed 's/ $//')"
exit $AFW_FAILED
