# SPDX-License-Identifier: GPL-2.0
#
# What counts as a kernel splat: any of these in a kernel log fails the run.
AFW_SPLAT_RE='WARNING:|BUG:|Oops|general protection|Kernel panic|KASAN|UBSAN|KFENCE|'\
'kmemleak:.*new suspected|possible (circular|recursive) locking|lockdep|'\
'suspicious RCU usage|rcu_sched self-detected stall|rcu: INFO|INFO: task .* blocked|'\
'Call Trace:|refcount_t:|list_(add|del) corruption|sleeping function called from invalid context|'\
'scheduling while atomic|bad page state'

# splat_lines FILE: prints the offending lines, succeeds only if there are none.
splat_free() {
	! grep -E -- "$AFW_SPLAT_RE" "$1"
}
