#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM suite: boots each kernel of kernels.sh once and runs every scenario
# in that boot. Prints one TAP line per check; a kernel that cannot be built
# or booted is a failure, never a skip.
#
#   run.sh [LABEL...]      e.g. run.sh 6.12, or no argument for all kernels
#
# AFW_SCENARIOS (space-separated paths) limits the scenarios.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$here/splat.sh"

kernels=$("$here/kernels.sh") || not_ok "every required kernel is installed" "see the message above"
want=" $* "
# Probe once for the whole run rather than once per boot.
AFW_VM_ACCEL=$("$here/accel.sh" "$(awk 'NR == 1 { print $2 }' <<< "$kernels")")
export AFW_VM_ACCEL
echo "vm: accelerator $AFW_VM_ACCEL" >&2

# prepare LABEL IMG KDIR MODKVER: the module and the initramfs for one kernel.
prepare() {
	local label=$1 kdir=$3 modkver=$4 vmdir=$src/build/vm/$1
	mkdir -p "$vmdir"
	rm -rf "$vmdir/out"
	# tests/run's build stage has just built every kernel's module.
	if { [ -z "${AFW_KMOD_BUILT:-}" ] || [ ! -f "$src/build/kmod/$label/afw.ko" ]; } &&
	   ! "$src/tests/kbuild.sh" "$label" "$kdir"; then
		not_ok "module builds for the VM" "see build/kmod/$label/build.log"
		return 1
	fi
	if ! "$here/mkinitramfs.sh" "$modkver" "$vmdir/initrd.gz"; then
		not_ok "initramfs builds" "mkinitramfs.sh $modkver failed"
		return 1
	fi
}

# boot LABEL IMG KDIR MODKVER: one boot running every scenario; writes
# build/vm/LABEL/out. Reports nothing itself, so that boots may overlap.
boot() {
	local label=$1 img=$2 kdir=$3 modkver=$4 vmdir=$src/build/vm/$1 tmo envs
	envs=(-e "AFW_LABEL=$label" -e "AFW_KO=$src/build/kmod/$label/afw.ko"
	      -e "AFW_SCENARIOS=${AFW_SCENARIOS:-}")
	tmo=${AFW_VM_TIMEOUT:-2400}
	# A kernel from outside /lib/modules gets its build tree linked in there
	# inside the guest, so that dkms and modprobe work as on a real system.
	[ "$modkver" = none ] && envs+=(-e "AFW_KBUILD=$kdir")
	# The debug kernel hunts splats, not scale: it runs the scale checks at
	# a tenth of the size, and leaves packaging (dkms builds the module in
	# the guest for minutes) to the Debian kernels, which run 50-dkms.
	case "$label" in
	debug*)
		envs+=(-e AFW_SCALE_RULES=10000 -e AFW_FLOW_FLOOD=10000 -e AFW_AFWD_BYTES=20000000
		       -e AFW_SKIP_SCENARIOS=50-dkms -e AFW_SCENARIO_TIMEOUT=1800)
		tmo=${AFW_VM_TIMEOUT:-4200}
		;;
	esac
	echo "vm: booting $label ($img)" >&2
	"$here/boot.sh" -k "$img" -i "$vmdir/initrd.gz" -o "$vmdir/out" \
		-j "$here/guest.sh" "${envs[@]}" -t "$tmo"
	echo $? > "$vmdir/boot-rc"
	echo "vm: $label finished in $(cat "$vmdir/out/wall_s" 2>/dev/null)s wall," \
	     "rc $(cat "$vmdir/boot-rc")" >&2
}

# collect LABEL: one kernel's results into the run's TAP.
collect() {
	local label=$1 vmdir=$src/build/vm/$1 rc
	AFW_PREFIX="[$label] "
	rc=$(cat "$vmdir/boot-rc" 2>/dev/null || echo "none")
	if [ "$rc" != 0 ] || [ ! -s "$vmdir/out/results.tap" ]; then
		not_ok "VM boots and runs the suite" "rc $rc; see $vmdir/out/console.log"
	fi
	[ -f "$vmdir/out/results.tap" ] && cat "$vmdir/out/results.tap" >> "$AFW_TAP"
	check "console free of splats" console_splat_free "$vmdir/out/console.log"
	if boot_splats "$vmdir/out/console.log" > "$vmdir/out/boot-splats.txt"; then
		echo "vm: WARNING: $label reported a splat while booting, before any afw code ran;" \
		     "see $vmdir/out/console.log" >&2
	fi
	grep '^not ok' "$vmdir/out/results.tap" 2>/dev/null | sed "s|^|vm: |" >&2
	AFW_PREFIX=
}

# The debug kernel's boot is the longest and much of every boot waits on
# timers, not the CPU: with two CPUs or more it runs beside the others.
jobs=${AFW_VM_JOBS:-$( [ "$(nproc)" -ge 2 ] && echo 2 || echo 1 )}
labels=() bg=()
while read -r label img kdir modkver; do
	[ -n "$label" ] || continue
	[ $# -eq 0 ] || [[ "$want" == *" $label "* ]] || continue
	AFW_PREFIX="[$label] "
	rm -f "$src/build/vm/$label/boot-rc"
	prepare "$label" "$img" "$kdir" "$modkver" || continue
	AFW_PREFIX=
	labels+=("$label")
	if [ "$jobs" -ge 2 ] && [[ "$label" == debug* ]]; then
		boot "$label" "$img" "$kdir" "$modkver" &
		bg+=($!)
	fi
done <<< "$kernels"
while read -r label img kdir modkver; do
	[[ " ${labels[*]} " == *" $label "* ]] || continue
	[ "$jobs" -ge 2 ] && [[ "$label" == debug* ]] && continue
	boot "$label" "$img" "$kdir" "$modkver"
done <<< "$kernels"
[ ${#bg[@]} -eq 0 ] || wait "${bg[@]}"
for label in "${labels[@]}"; do
	collect "$label"
done
exit $AFW_FAILED
