#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwctl on a machine where the module is not loaded: what a user sees first.
# Runs on the build host, whose kernel has no afw (and often cannot load it).
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host afwctl] "
afwctl=$src/build/afwctl

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
exit $AFW_FAILED
