# SPDX-License-Identifier: GPL-2.0
#
# What counts as a kernel splat: any of these in a kernel log fails the run.
AFW_SPLAT_RE='WARNING:|BUG:|Oops|general protection|Kernel panic|KASAN|UBSAN|KFENCE|'\
'kmemleak:.*new suspected|possible (circular|recursive) locking|lockdep|'\
'suspicious RCU usage|rcu_sched self-detected stall|rcu: INFO|INFO: task .* blocked|'\
'Call Trace:|refcount_t:|list_(add|del) corruption|sleeping function called from invalid context|'\
'scheduling while atomic|bad page state'

# splat_free FILE: prints the offending lines of a kernel log; succeeds only
# if there are none.
splat_free() {
	! grep -E -- "$AFW_SPLAT_RE" "$1"
}

# console_splat_free FILE: the same, for a serial console log, where the
# guest's own output mixes with the kernel's timestamped lines. Only what
# the kernel said once the job started counts: before that no afw code has
# run, and the debug kernel under TCG now and then reports an early-boot
# interrupt race of the emulated machine (run.sh warns about those).
console_splat_free() {
	! sed -n '/^afw-vm: booted/,$p' "$1" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
		grep -E -- "$AFW_SPLAT_RE"
}

# boot_splats FILE: kernel splats on the console before the job started.
# "0,": with a quiet kernel the marker is the first line, and a range from
# line 1 would look for its end from line 2 on and take the whole log.
boot_splats() {
	sed -n '0,/^afw-vm: booted/p' "$1" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
		grep -E -- "$AFW_SPLAT_RE"
}
