#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/accel.sh on a machine without /dev/kvm: it says tcg and leaves
# /dev as it found it. Run in a mount namespace whose /dev is a fresh tmpfs.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host accel.sh] "
accel=${AFW_ACCEL_SH:-$src/tests/vm/accel.sh}

out=$(unshare -m bash -c '
	mount -t tmpfs tmpfs /dev && mknod -m 666 /dev/null c 1 3 || exit 9
	AFW_VM_ACCEL=auto bash "$1" /nonexistent-kernel
	echo "dev: $(cd /dev && echo *)"' - "$accel" 2>&1)
check_eq "unshare and a private /dev work here" 0 $?
check_grep "without /dev/kvm it says tcg" '^tcg$' "$out"
check_grep "and creates nothing in /dev" '^dev: null$' "$out"
exit $AFW_FAILED
