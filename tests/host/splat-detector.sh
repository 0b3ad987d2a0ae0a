#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM suite is only as good as its splat detector: it must flag real
# kernel reports and must not flag the guest's own output on the console.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/vm/splat.sh"
AFW_PREFIX="[host splat] "
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

for line in \
	'WARNING: CPU: 0 PID: 1 at net/netfilter/core.c:123 nf_hook+0x1/0x2' \
	'BUG: KASAN: slab-use-after-free in afw_hook+0x10/0x20' \
	'UBSAN: array-index-out-of-bounds in module/stats.c:40:5' \
	'WARNING: possible circular locking dependency detected' \
	'WARNING: suspicious RCU usage' \
	'kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)' \
	'BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580'; do
	printf '[   12.345678] %s\n' "$line" > "$tmp"
	check_fails "flags: ${line:0:40}" splat_free "$tmp" > /dev/null
	printf 'afw-vm: booted 6.1.0 in 2.7s\n[   12.345678] %s\n' "$line" > "$tmp"
	check_fails "flags on the console: ${line:0:40}" console_splat_free "$tmp" > /dev/null
done

printf '[    3.1] afw: version 0.1.0 loaded\n[    3.2] afw: loading out-of-tree module taints kernel.\n' > "$tmp"
check "a clean module load is not a splat" splat_free "$tmp"
printf 'afw-vm: booted 6.1.0 in 2.7s\ndepmod: WARNING: could not open modules.order\n[    1.000000] sysrq: Power Off\n' > "$tmp"
check "guest output on the console is not a kernel splat" console_splat_free "$tmp"
printf '[    1.5] BUG: KASAN: wild-memory-access in do_raw_spin_lock\nafw-vm: booted 6.1.192 in 75s\n' > "$tmp"
check "a splat before the job started is not afw's" console_splat_free "$tmp"
check "but it is reported as a boot splat" boot_splats "$tmp" > /dev/null
# A quiet kernel prints nothing before the marker: a splat after it is the
# job's, never a boot splat.
printf 'afw-vm: booted 6.12.0 in 3.3s\n[   26.7] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n' > "$tmp"
check_fails "a splat after a first-line marker is the job's" console_splat_free "$tmp" > /dev/null
check_fails "and not a boot splat" boot_splats "$tmp" > /dev/null
exit $AFW_FAILED
