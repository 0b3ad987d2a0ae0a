#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM: every scenario, one after another in this boot,
# each in its own namespaces. After each one the kernel log must be free of
# splats; on a kmemleak kernel, the run must end without a leak report.
set -u

export AFW_VERSION
AFW_VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$AFW_SRC/dkms.conf")
export AFW_TAP=$AFW_OUT/results.tap
export AFW_LOGDIR=$AFW_OUT/logs
export AFW_PREFIX="[$AFW_LABEL] "
: > "$AFW_TAP"
mkdir -p "$AFW_LOGDIR"

. "$AFW_SRC/tests/lib/tap.sh"
. "$AFW_SRC/tests/vm/splat.sh"

# A splat before any afw code ran (the debug kernel under TCG now and then
# reports an early-boot interrupt race of the emulated machine, KASAN's
# "wild-memory-access" in handle_edge_irq) taints the kernel, and a KASAN
# report turns lockdep off for the rest of the boot: the scenarios would run
# without the checks they are here for. Unless this is its last try
# (AFW_BOOT_LAST), the job ends at once and run.sh boots again. Only the
# kernel's own reports count (a WARN() says "WARNING: CPU:"; "RETBleed:
# WARNING" is advice). Not under systemd, whose units load afw before the
# job: a splat there is afw's, for the job's checks to report.
AFW_BOOT_SPLAT_RE='WARNING: CPU:|BUG:|Oops|general protection|KASAN|UBSAN|KFENCE|'\
'possible (circular|recursive) locking|suspicious RCU usage|Call Trace:|Disabling lock debugging'
if [ "$(cat /proc/1/comm)" != systemd ] && [ ! -d /sys/module/afw ] &&
   dmesg | grep -qE -- "$AFW_BOOT_SPLAT_RE"; then
	dmesg > "$AFW_OUT/boot-splat.txt"
	if [ -z "${AFW_BOOT_LAST:-}" ]; then
		echo "afw-vm: a splat while booting, before the job: booting again"
		exit 0
	fi
	not_ok "the boot left the kernel's checks whole" "a splat before the job, on every try"
fi

# A kernel booted from outside /lib/modules (the debug kernel) gets its
# build tree where dkms and depmod look for it; the overlay makes that
# writable and throwaway.
kver=$(uname -r)
if [ -n "${AFW_KBUILD:-}" ] && [ ! -e "/lib/modules/$kver" ]; then
	mkdir -p "/lib/modules/$kver"
	ln -s "$AFW_KBUILD" "/lib/modules/$kver/build"
	# Everything is built in: these lists are empty, but depmod wants them.
	touch "/lib/modules/$kver/"{modules.order,modules.builtin,modules.builtin.modinfo}
	depmod -a "$kver"
fi

kmemleak=/sys/kernel/debug/kmemleak
# The scans at the end find every leak of the run; the automatic scan,
# every ten minutes over all of the guest's memory, would only take an
# emulated CPU from the scenarios for minutes each time.
if [ -w $kmemleak ]; then
	echo scan=off > $kmemleak
	echo clear > $kmemleak
fi

# Netfilter switches each hook site on and off with a static key, which the
# kernel patches into its text with int3 breakpoints while other CPUs run
# through it. Under multi-threaded TCG a CPU can still execute the int3
# after the patch is done, and the guest dies with "Oops: int3" (a 6.12 CI
# run did, at ip_local_deliver()'s hook just after an insmod).
# tests/vm/int3.sh does it in under 30 s of guest time without afw loaded,
# adding and deleting an empty nftables table while TCP runs over loopback;
# with the vCPUs in one thread, 134 such flips in 300 s did not. Every afw
# load, unload and namespace activation flips those keys, so empty accept
# chains in the initial namespace hold them on for the whole run, as
# conntrack or any ruleset does on a real host. afw's paths are unchanged.
hold_nf_keys() {
	nft -f - <<-'EOF'
	table inet afw-vm-keys {
		chain keep_pre { type filter hook prerouting priority 0; }
		chain keep_in { type filter hook input priority 0; }
		chain keep_fwd { type filter hook forward priority 0; }
		chain keep_out { type filter hook output priority 0; }
		chain keep_post { type filter hook postrouting priority 0; }
	}
	EOF
}
check "netfilter's hook keys are held on (no text patching under traffic)" hold_nf_keys
# The same race at another key: netstamp_needed_key, which ping flips each
# time it starts and ends (it asks for timestamps). A 6.12 boot on an
# overloaded host died at __netif_receive_skb_core()'s site of it. One
# socket with SO_TIMESTAMP (29; Python has no name for it) open for the
# whole boot keeps it on.
python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)
time.sleep(1e9)' < /dev/null > /dev/null 2>&1 &

dmesg > "$AFW_LOGDIR/dmesg-boot.txt"
dmesg --clear

for s in ${AFW_SCENARIOS:-$AFW_SRC/tests/vm/scenarios/*.sh}; do
	name=$(basename "$s" .sh)
	if [[ " ${AFW_SKIP_SCENARIOS:-} " == *" $name "* ]]; then
		echo "afw-vm: $name not run on this kernel (run.sh says why)"
		continue
	fi
	fails_before=$(grep -c '^not ok' "$AFW_TAP")
	start=$(date +%s)
	timeout -k 10 "${AFW_SCENARIO_TIMEOUT:-900}" bash "$s" > "$AFW_LOGDIR/$name.log" 2>&1
	rc=$?
	echo "afw-vm: $name rc=$rc in $(( $(date +%s) - start ))s"
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		not_ok "$name: finishes in time" "timed out"
	elif [ $rc -ne 0 ] && [ "$(grep -c '^not ok' "$AFW_TAP")" = "$fails_before" ]; then
		not_ok "$name: runs to the end" "exited $rc without reporting a failed check"
	fi
	dmesg > "$AFW_LOGDIR/dmesg-$name.txt"
	dmesg --clear
	check "$name: kernel log free of splats" splat_free "$AFW_LOGDIR/dmesg-$name.txt"
done

if [ -w $kmemleak ]; then
	# An object is reported only once it has been unreferenced for a while
	# and seen by two scans.
	sleep 6
	echo scan > $kmemleak
	sleep 6
	echo scan > $kmemleak
	cat $kmemleak > "$AFW_LOGDIR/kmemleak.txt"
	check "kmemleak reports no leak" test ! -s "$AFW_LOGDIR/kmemleak.txt"
fi
exit 0
