#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nlfuzz (the VM suite's netlink fuzzer) is only useful if a run can be
# repeated from its seed, and if it reaches every command and every kind of
# abuse it claims. --dry-run makes the messages without a kernel and prints
# their digest and counts.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host nlfuzz] "
fuzz=$src/build/tools/nlfuzz

if [ ! -x "$fuzz" ]; then
	not_ok "nlfuzz is built" "run 'make tools'"
	exit 1
fi
run() { "$fuzz" --dry-run --seed "$1" --count 20000; }
digest() { sed -n 's/^nlfuzz: messages digest //p' <<< "$1"; }

a=$(run 1234) b=$(run 1234) c=$(run 1235)
check_grep "a run prints its seed and how to repeat it" '^nlfuzz: seed 1234 \(repeat: --seed 1234 --count 20000\)' "$a"
check_grep "the digest is printed" '^[0-9a-f]{16}$' "$(digest "$a")"
check_eq "the same seed makes the same messages" "$(digest "$a")" "$(digest "$b")"
check "another seed makes other messages" test "$(digest "$a")" != "$(digest "$c")"

# Every command (and numbers beyond the last) is sent, as are batches,
# oversized requests, dumps left midway and abandoned transactions.
cmds=$(sed -n 's/^nlfuzz: per command (sent ok err): //p' <<< "$a")
# One slot per command of the uapi header, and one for numbers past them.
ncmds=$(awk '/^enum afw_cmd \{/ { f = 1; next } f && /__AFW_CMD_MAX/ { print n + 1; exit }
	     f && /AFW_CMD_/ { n++ }' "$src/include/uapi/linux/afw.h")
check_eq "all $ncmds command slots are counted" "$ncmds" "$(awk '{ print NF / 2 }' <<< "$cmds")"
check_eq "and every one was sent" "" \
	"$(awk '{ for (i = 1; i < NF; i += 2) if ($(i + 1) ~ /^0\//) print $i }' <<< "$cmds")"
check_grep "batches and oversized requests" 'datagrams \([1-9][0-9]* batches, [1-9][0-9]* oversized\)' "$a"
check_grep "dumps left midway, transactions abandoned, sockets reopened" \
	'[1-9][0-9]* dumps \([1-9][0-9]* left midway\), [1-9][0-9]* replace transactions begun and abandoned, [1-9][0-9]* socket reopens' "$a"

out=$("$fuzz" --expect sometimes 2>&1)
check_eq "a bad --expect is a usage error" 2 $?
check_grep "with the usage" '^usage: nlfuzz' "$out"
exit $AFW_FAILED
