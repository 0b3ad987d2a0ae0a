#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make up" on a kernel that cannot load modules must say so plainly and
# point at the VM demo, before installing anything.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host make up] "

if [ -e /proc/modules ]; then
	ok "this kernel can load modules; the no-modules message does not apply"
	exit 0
fi
out=$(make -s -C "$src" up 2>&1)
check_fails "make up fails on a kernel without module support" test $? -eq 0
check_grep "and says why in one sentence" "this kernel \(.*\) cannot load modules" "$out"
check_grep "and offers the VM demo" "'make vm-demo'" "$out"
check_fails "and installs nothing first" grep -q "install-deps" <<< "$out"
exit $AFW_FAILED
