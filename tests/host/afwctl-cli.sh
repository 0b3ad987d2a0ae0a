#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwctl on a machine where the module is not loaded: what a user sees first.
# Runs on the build host, whose kernel has no afw (and often cannot load it).
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host afwctl] "
afwctl=${AFWCTL:-$src/build/afwctl}

if [ -d /sys/module/afw ]; then
	not_ok "these checks need a kernel without afw loaded" "afw is loaded here"
	exit 1
fi

out=$("$afwctl" status 2>&1)
check_eq "status without the module exits 1" 1 $?
check_eq "and says so in one line" 1 "$(printf '%s\n' "$out" | wc -l)"
if [ -e /proc/modules ]; then
	check_grep "and tells how to load it" "not loaded; load it with 'modprobe afw'" "$out"
else
	check_grep "and says this kernel cannot load modules, offering the VM demo" \
		"not loaded, and this kernel cannot load modules; try 'make vm-demo'" "$out"
fi
check_eq "nothing on stdout for a failed status" "" "$("$afwctl" -j status 2>/dev/null)"

# -n: the namespace is entered before the module is asked for.
ns=afw-cli-$$
ip netns add $ns
out=$("$afwctl" -n $ns status 2>&1)
check_eq "-n NAME: status without the module exits 1 there too" 1 $?
check_grep "and says the module is not loaded" "not loaded" "$out"
out=$("$afwctl" -n /run/netns/$ns status 2>&1)
check_grep "-n PATH: the same" "not loaded" "$out"
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$afwctl" -n $ns status 2>&1)
check_grep "-n as nobody: CAP_SYS_ADMIN is needed" "permission denied: this needs CAP_SYS_ADMIN" "$out"
ip netns del $ns
out=$("$afwctl" -n $ns status 2>&1)
check_eq "-n with a namespace that does not exist exits 1" 1 $?
check_grep "and names it, pointing to ip netns" \
	"network namespace $ns: No such file or directory .see 'ip netns list'.$" "$out"
out=$("$afwctl" -n /proc/self/ns/uts status 2>&1)
check_grep "-n with another kind of namespace says so" "not a network namespace" "$out"
out=$("$afwctl" -n .. status 2>&1)
check_eq "-n .. is refused as a usage error" 2 $?
out=$("$afwctl" -n $ns rule add proto tcp dport 80 drap 2>&1)
check_eq "a mistake with -n is still a mistake (exit 2), the namespace unasked" 2 $?
check_grep "and says what is wrong" "drap" "$out"

out=$("$afwctl" frobnicate 2>&1)
check_eq "an unknown command exits 2" 2 $?
check_grep "and names the command" "unknown command 'frobnicate'" "$out"
out=$("$afwctl" 2>&1)
check_eq "no command exits 2" 2 $?
check_grep "and prints usage" '^Usage: afwctl' "$out"
out=$("$afwctl" --bogus status 2>&1)
check_eq "an unknown option exits 2" 2 $?
check_grep "--help lists the status command" '^  status ' "$("$afwctl" --help)"
check_grep "--help lists the stats command" '^  stats ' "$("$afwctl" --help)"
check_eq "--version prints the package version" \
	"afwctl $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")" "$("$afwctl" --version)"

# Everything is parsed before the kernel is asked: a mistake is reported as
# the mistake, exit 2 (usage), never as "module not loaded", and never with
# anything on stdout.
# usage_err NAME PATTERN ARGS...: afwctl ARGS exits 2, says PATTERN, prints no stdout.
usage_err() {
	local name=$1 pattern=$2 out err rc
	shift 2
	err=$("$afwctl" "$@" 2>&1 >/dev/null)
	rc=$?
	out=$("$afwctl" "$@" 2>/dev/null)
	check_eq "$name: exits 2" 2 "$rc"
	check_grep "$name: says why" "$pattern" "$err"
	check_fails "$name: not blamed on the module" grep -q "not loaded" <<< "$err"
	check_eq "$name: nothing on stdout" "" "$out"
}
usage_err "a typo in a rule" "'prot': unknown word; did you mean 'proto'\\?" rule add prot tcp drop
usage_err "a repeated keyword" "'sport': given twice in one rule" \
	rule add proto tcp sport 22 dport 22 sport 23 drop
usage_err "ports without a protocol" "ports need proto" rule add dport 22 drop
usage_err "an unknown service" "'dport no-such-service'" rule add proto tcp dport no-such-service drop
usage_err "an unknown user" "'uid no-such-user-afw'" rule add uid no-such-user-afw drop
usage_err "a bad rule id" "'abc' is not a rule id" rule del abc
usage_err "an unknown rule subcommand" "did you mean 'list'" rule lst
usage_err "a bad flow" "a flow needs proto, from and to" flow add proto tcp accept
usage_err "an unknown setting" "'unkown': unknown setting; did you mean 'unknown'.*max_flows" \
	config set unkown drop
usage_err "a setting given twice" "'queue': set twice" config set queue 1 queue 2
usage_err "a config typo" "unknown subcommand 'st'" config st unknown drop
usage_err "a command typo" "unknown command 'statu'; did you mean 'status'" statu
usage_err "status with an argument" "unexpected argument" status now
usage_err "save with an argument" "unexpected argument" save out.conf
usage_err "load without a file" "usage: afwctl load \\[--yes\\] FILE" load
usage_err "load --yes without a file" "usage: afwctl load \\[--yes\\] FILE" load --yes
usage_err "load with two files" "usage: afwctl load \\[--yes\\] FILE" load --yes a b
usage_err "check with two files" "usage: afwctl check FILE" check a b

# A well-formed request gets as far as the kernel, and no further.
out=$("$afwctl" rule add proto tcp dport ssh uid root allow 2>&1)
check_eq "a good rule without the module exits 1" 1 $?
check_grep "and then blames the missing module" "not loaded" "$out"
out=$("$afwctl" -j rule list 2>/dev/null)
check_eq "-j rule list without the module: nothing on stdout" "" "$out"
check_fails "and its message is not JSON" grep -q '^[[{]' <<< "$("$afwctl" -j rule list 2>&1)"

# afwctl check: a configuration file, checked offline.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/good.conf" <<'CONF'
# settings and rules, both vocabularies
set unknown queue
set queue 0-3 fail open
id 10 prio 10 dir in proto tcp dport ssh from 192.0.2.0/24 allow
id 11 prio 20 dir in proto tcp dport 22 reject
      prio 50 dir forward family ipv6 proto udp dport domain deny
      prio 60 dir out uid root gid root proto tcp dport http-https accept
CONF
out=$("$afwctl" check "$dir/good.conf" 2>&1)
check_eq "check of a good file exits 0 without the module" 0 $?
check_grep "and sums it up" "good.conf: 3 settings, 4 rules, no error" "$out"
out=$("$afwctl" -j check "$dir/good.conf")
check_eq "check -j gives the counts" "3 4" "$(jq -r '"\(.settings) \(.rules)"' <<< "$out")"
check "the shipped /etc/afw/afw.conf checks" "$afwctl" -j check "$src/dist/afw.conf" > /dev/null
printf 'drop\n\nproto tcp dport 22 from 192.0.2.1/24 drop\n' > "$dir/bad.conf"
err=$("$afwctl" check "$dir/bad.conf" 2>&1 >/dev/null)
check_eq "check of a bad file exits 1" 1 $?
check_eq "and names FILE:LINE:COL and the word" \
	"afwctl: $dir/bad.conf:3:25: 'from 192.0.2.1/24': address has bits set beyond the prefix length" "$err"
check_eq "and prints nothing on stdout" "" "$("$afwctl" check "$dir/bad.conf" 2>/dev/null)"
printf 'set fail open\nset fail closed\n' > "$dir/twice.conf"
check_grep "a setting given twice in a file" "twice.conf:2:5: 'fail': set twice" \
	"$("$afwctl" check "$dir/twice.conf" 2>&1)"
err=$(printf 'proto tcp drop\nporto udp drop\n' | "$afwctl" check - 2>&1)
check_grep "check reads standard input" "^afwctl: <stdin>:2:1: 'porto': unknown word; did you mean 'proto'" "$err"
err=$("$afwctl" check "$dir/missing.conf" 2>&1)
check_eq "a missing file exits 1" 1 $?
check_grep "and says so" "missing.conf: No such file" "$err"
err=$("$afwctl" load "$dir/bad.conf" 2>&1)
check_eq "load of a bad file exits 1 without the module" 1 $?
check_grep "with the same FILE:LINE:COL, before any netlink" "bad.conf:3:25: 'from 192.0.2.1/24'" "$err"
exit $AFW_FAILED
