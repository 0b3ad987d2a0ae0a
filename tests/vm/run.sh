#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM suite: boots each kernel of kernels.sh once and runs its scenarios
# in that boot (which ones: see the lists below). Prints one TAP line per
# check; a kernel that cannot be built or booted is a failure, never a skip.
#
#   run.sh [LABEL...]      e.g. run.sh 6.12, or no argument for all kernels
#
# AFW_SCENARIOS (space-separated paths) limits the scenarios; AFW_VM_CPUS
# sets the guests' vCPUs (default 2); AFW_VM_ENV passes settings to them.
#
# Besides one boot per kernel, two boots on 6.12 have systemd as PID 1 and
# a disk: 50-package (the Debian packages of make deb, installed before the
# boot, afw.service at boot, a life ending in a reboot), then
# 51-package-reboot from the same disk. "run.sh systemd" runs those alone.
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

# Where each scenario runs. The debug kernel (6.1 with KASAN, lockdep and
# kmemleak, everything built in) runs every one but those below that check
# logic above the kernel's paths: every kernel path runs under its checks,
# on two vCPUs. Debian's 6.12 runs
# those that cross the kernel interfaces a distribution kernel can change:
# hook registration, genetlink and its policies, rights in user
# namespaces, the skb, defragmentation, ICMP and nfqueue paths, module
# unload, the netlink fuzzer, netlink unicast from a hook (learned
# decisions told to afwd). Debian's 6.1, the debug kernel's own series,
# runs what only a modular distribution kernel has (the module and its
# dependencies loaded by modprobe, unloaded under traffic) and afwd against
# the module as it comes and goes (96-afwd runs on the debug kernel and on
# 6.12), and the logic checks. On a 2-CPU machine the suite must end
# within the hour. AFW_VM_FULL=1 runs every scenario on every kernel.
compat_6_12="10-hooks-count 20-rights 30-netlink-errors 40-rmmod-under-load
	65-packets 82-state 84-owners 87-program-rules 88-flow-events 91-afwd-learn 96-afwd
	97-nlfuzz"
compat_6_1="10-hooks-count 40-rmmod-under-load 86-afwd-owners 89-ask 92-switch 97-afwd-module"
# These check the module's own logic to the packet and the counter: ruleset
# transactions, statistics, the unknown-flow policy, the queue fan-out, and
# afwd's judgement of evasions over told handshakes and flows the module
# confirms (whose kernel paths 96-afwd takes on the debug kernel). They
# run on Debian's 6.1, where they take a quarter of the time; the kernel
# paths they take run under the debug kernel too, in 82-state (unknown
# drop, unknown queue), 96-afwd (two queues), 97-nlfuzz (every command,
# transactions begun and abandoned) and 98-stress (rulesets loaded under
# traffic).
logic_scenarios="70-ruleset 85-stats 90-unknown-queue 95-queue-fanout 96-afwd-told"
# And these, the logic of afwctl and afwd over paths other scenarios take
# on the debug kernel: the off switch and its SSH guard (CONFIG_SET, which
# every scenario sends, and the rules' flows of 82), afwd's ledger as the
# module comes and goes (the flow table of 80 and 96, reloads under
# traffic in 98), afwd deciding by a flow's program (the owner records
# and their queries of 84), and the learned decisions of 91: 98 runs the
# kernel's side of those under traffic (connections the module decides by
# what afwd taught it, a reload forgetting it, afwd killed taking it
# along), and 97-nlfuzz their commands. 91 runs on 6.12, where it took 48 s
# in a CI run; the debug kernel took 260 s.
userland_scenarios="86-afwd-owners 89-ask 91-afwd-learn 92-switch 97-afwd-module"
# The benchmarks' guest halves at tiny sizes (does each still run and print
# its figures?): Debian's 6.1, which the benchmarks boot, and not the debug
# kernel, where they would only be slow.
bench_scenarios="99-bench-smoke 99-bench-seed 99-bench-latency 99-bench-scale"

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
	# a tenth of the size, the stress run for 30 s and the netlink fuzzer
	# for 4000 messages; packaging (dkms builds the module in the guest
	# for minutes) is the systemd boot's. Debian's kernels run the list
	# above; AFW_VM_FULL=1 runs every scenario there too.
	# 50-package and 51-package-reboot need systemd as PID 1 and a disk:
	# they have boots of their own.
	local only= skip="50-package 51-package-reboot" kargs=()
	case "$label" in
	6.1) only="$compat_6_1 $logic_scenarios $bench_scenarios" ;;
	6.12) only=$compat_6_12 ;;
	debug*) [ -n "${AFW_VM_FULL:-}${AFW_SCENARIOS:-}" ] ||
			skip+=" $logic_scenarios $userland_scenarios $bench_scenarios" ;;
	esac
	if [ -n "$only" ] && [ -z "${AFW_SCENARIOS:-}" ] && [ -z "${AFW_VM_FULL:-}" ]; then
		envs+=(-e "AFW_SCENARIOS=$(printf "$src/tests/vm/scenarios/%s.sh " $only)")
		echo "vm: $label runs" $only >&2
	fi
	envs+=(-e "AFW_SKIP_SCENARIOS=$skip")
	case "$label" in
	debug*)
		# Sizes that still cross every bound (the flood is three times
		# max_flows), at a third of the CPU: this boot is the run's
		# longest, and the run must end within the hour on two CPUs.
		envs+=(-e AFW_FLOW_FLOOD=3000 -e AFW_AFWD_BYTES=8000000 -e AFW_AFWD_RESTARTS=0
		       -e AFW_OWNER_PROCS=20
		       -e AFW_NETNS_CYCLES=8 -e AFW_STRESS_SECONDS=30 -e AFW_NLFUZZ_MESSAGES=4000
		       -e AFW_SCENARIO_TIMEOUT=1800)
		# It starts 40 s into tests/run, after a minute or two of
		# installing and building, and the run must end within the hour:
		# 3,420 s leaves the rest of the hour for those and the results.
		# boot.sh stops a frozen guest long before this.
		tmo=${AFW_VM_TIMEOUT:-3420}
		# Its ACPI interpreter, slowed by KASAN, times out on each virtio
		# device's interrupt routing (_PRT), 30 s of guest time apiece, and
		# the devices use MSI-X either way.
		kargs=(-a pci=noacpi)
		;;
	esac
	# AFW_VM_ENV ("VAR=VALUE ...") reaches the guest after the settings
	# above, so that long runs (make stress-long) can override them.
	for e in ${AFW_VM_ENV:-}; do envs+=(-e "$e"); done
	# A boot whose kernel splatted before the job has lost some of its
	# checks (guest.sh): it ends at once, and gets two more tries.
	local try last=()
	for try in 1 2 3; do
		[ "$try" = 3 ] && last=(-e AFW_BOOT_LAST=1)
		rm -f "$vmdir/out/boot-splat.txt"
		echo "vm: booting $label ($img)" >&2
		"$here/boot.sh" -k "$img" -i "$vmdir/initrd.gz" -o "$vmdir/out" \
			-j "$here/guest.sh" "${envs[@]}" "${last[@]}" "${kargs[@]}" \
			-t "$tmo" -c "${AFW_VM_CPUS:-2}"
		echo $? > "$vmdir/boot-rc"
		[ "$try" -lt 3 ] && [ -s "$vmdir/out/boot-splat.txt" ] || break
		echo "vm: $label splatted while booting, before the job; booting again:" >&2
		grep -E -m 3 -- 'WARNING: CPU:|BUG:|KASAN|UBSAN|Oops' "$vmdir/out/boot-splat.txt" |
			sed 's/^/vm:   /' >&2
		cp "$vmdir/out/console.log" "$vmdir/out/console-try$try.log"
	done
	echo "vm: $label finished in $(cat "$vmdir/out/wall_s" 2>/dev/null)s wall, $(cat "$vmdir/out/cpu_s" 2>/dev/null) CPU-s," \
	     "rc $(cat "$vmdir/boot-rc")" >&2
}

# upgrade_deb DIR: DIR/upgrade/afw_VERSION+b1_ARCH.deb, afw of DIR as a
# rebuild of the same source would give it (a binNMU): what 51-package-reboot
# upgrades to on the running system. Its afw-dkms stays at the source's
# version, so the upgrade needs no module build in the guest.
upgrade_deb() {
	local dir=$1 deb t rc
	deb=$(ls "$dir"/afw_*.deb) || return 1
	t=$(mktemp -d)
	rm -rf "$dir/upgrade"
	mkdir -p "$dir/upgrade" &&
	dpkg-deb -R "$deb" "$t/afw" &&
	sed -i 's/^Version: .*/&+b1/' "$t/afw/DEBIAN/control" &&
	dpkg-deb -b "$t/afw" "$dir/upgrade/"
	rc=$?
	rm -rf "$t"
	return $rc
}

# upgrade_dkms_debs DIR: DIR/upgrade-dkms/, afw-dkms and afw as the next
# version of the source would give them (VERSION+u1): afw-dkms's source
# under /usr/src/afw-VERSION+u1 with its dkms.conf (so the module it builds
# says VERSION+u1), its scripts naming the new version, and afw depending
# on it. What AFW_VM_DKMS_UPGRADE=1 has 51-package-reboot upgrade to on the
# running system: dkms builds the module in the guest, minutes of emulated
# CPU, so CI leaves it to "make vm-dkms-upgrade".
upgrade_dkms_debs() {
	local dir=$1 dkms_deb afw_deb t v rc
	dkms_deb=$(ls "$dir"/afw-dkms_*.deb) && afw_deb=$(ls "$dir"/afw_*.deb) || return 1
	v=$(dpkg-deb -f "$dkms_deb" Version) || return 1
	t=$(mktemp -d)
	rm -rf "$dir/upgrade-dkms"
	mkdir -p "$dir/upgrade-dkms" &&
	dpkg-deb -R "$dkms_deb" "$t/dkms" &&
	mv "$t/dkms/usr/src/afw-$v" "$t/dkms/usr/src/afw-$v+u1" &&
	sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$v+u1\"/" "$t/dkms/usr/src/afw-$v+u1/dkms.conf" &&
	sed -i "s/^Version: .*/Version: $v+u1/" "$t/dkms/DEBIAN/control" &&
	sed -i "s/^DKMS_VERSION=.*/DKMS_VERSION=$v+u1/" "$t/dkms/DEBIAN/postinst" "$t/dkms/DEBIAN/prerm" &&
	(cd "$t/dkms" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums) &&
	dpkg-deb -b "$t/dkms" "$dir/upgrade-dkms/" &&
	dpkg-deb -R "$afw_deb" "$t/afw" &&
	sed -i -e "s/^Version: .*/Version: $v+u1/" \
		-e "s/afw-dkms (= [^)]*)/afw-dkms (= $v+u1)/" "$t/afw/DEBIAN/control" &&
	dpkg-deb -b "$t/afw" "$dir/upgrade-dkms/"
	rc=$?
	rm -rf "$t"
	return $rc
}

# boot_systemd: 6.12 with systemd as PID 1 from a disk of its own, the
# packages installed before the first boot (dkms builds for the guest's
# kernel), running 50-package; then a reboot, a second boot of that disk,
# running 51-package-reboot. Writes build/vm/systemd/out and
# build/vm/systemd-reboot/out.
boot_systemd() {
	local vmdir=$src/build/vm/systemd vmdir2=$src/build/vm/systemd-reboot img kver
	read -r _ img _ kver < <(awk '$1 == "6.12"' <<< "$kernels")
	mkdir -p "$vmdir" "$vmdir2"
	rm -rf "$vmdir/out" "$vmdir2/out" "$vmdir/disk.img"
	AFW_PREFIX="[systemd] "
	if [ -z "$img" ]; then
		not_ok "the 6.12 kernel is there to boot with systemd" "see kernels.sh"
		return 1
	fi
	if ! make -s -C "$src" deb > "$vmdir/deb.log" 2>&1; then
		not_ok "make deb builds the packages" "see $vmdir/deb.log"
		return 1
	fi
	if ! upgrade_deb "$src/build/deb" > "$vmdir/upgrade-deb.log" 2>&1; then
		not_ok "the upgrade package is made" "see $vmdir/upgrade-deb.log"
		return 1
	fi
	rm -rf "$src/build/deb/upgrade-dkms"
	if [ "${AFW_VM_DKMS_UPGRADE:-0}" = 1 ] &&
	   ! upgrade_dkms_debs "$src/build/deb" > "$vmdir/upgrade-dkms-deb.log" 2>&1; then
		not_ok "the afw-dkms upgrade packages are made" "see $vmdir/upgrade-dkms-deb.log"
		return 1
	fi
	if ! "$here/mkinitramfs.sh" "$kver" "$vmdir/initrd.gz" virtio_blk ext4; then
		not_ok "initramfs builds" "mkinitramfs.sh $kver failed"
		return 1
	fi
	# The disk holds the overlay's upper layer: what the system writes
	# survives the reboot. Sparse, so it takes what is written.
	if ! { truncate -s 4G "$vmdir/disk.img" &&
	       mkfs.ext4 -q -F "$vmdir/disk.img" > "$vmdir/mkfs.log" 2>&1; }; then
		not_ok "the VM's disk is made" "see $vmdir/mkfs.log"
		return 1
	fi
	AFW_PREFIX=
	# The packages are installed before the boot, on the host where it can
	# (preboot-host.sh says how), in the guest where it cannot.
	local preboot=() rc
	mkdir -p "$vmdir/out"
	"$here/preboot-host.sh" "$vmdir/out" "$kver" "$here/package-preboot.sh"
	rc=$?
	echo "$rc" > "$vmdir/out/preboot-rc"
	if [ "$rc" = 3 ]; then
		echo "vm: the packages are installed in the guest (minutes on an emulated CPU)" >&2
		preboot=(-e "AFW_PREBOOT=$here/package-preboot.sh")
	fi
	echo "vm: booting 6.12 with systemd ($img)" >&2
	"$here/boot.sh" -k "$img" -i "$vmdir/initrd.gz" -o "$vmdir/out" -j "$here/guest.sh" \
		-d "$vmdir/disk.img" -e AFW_LABEL=systemd -e AFW_INIT=systemd "${preboot[@]}" \
		-e AFW_VM_WANTS=afwd.service -e AFW_VM_POWEROFF=poweroff \
		-e "AFW_SCENARIOS=$src/tests/vm/scenarios/50-package.sh" -t "${AFW_VM_TIMEOUT:-2400}" \
		-c "${AFW_VM_CPUS:-2}"
	echo $? > "$vmdir/boot-rc"
	echo "vm: systemd finished in $(cat "$vmdir/out/wall_s" 2>/dev/null)s wall, $(cat "$vmdir/out/cpu_s" 2>/dev/null) CPU-s," \
	     "rc $(cat "$vmdir/boot-rc")" >&2
	# The reboot: the same disk, and the install's records for the purge.
	mkdir -p "$vmdir2/out"
	cp -a "$vmdir/out/package" "$vmdir2/out/" 2> /dev/null
	echo "vm: rebooting it" >&2
	# The afw-dkms upgrade's module build in the guest takes a quarter of
	# an hour and more of emulated CPU.
	local long=(-t "${AFW_VM_TIMEOUT:-2400}")
	[ -d "$src/build/deb/upgrade-dkms" ] &&
		long=(-t "${AFW_VM_TIMEOUT:-5400}" -e AFW_SCENARIO_TIMEOUT=4200)
	"$here/boot.sh" -k "$img" -i "$vmdir/initrd.gz" -o "$vmdir2/out" -j "$here/guest.sh" \
		-d "$vmdir/disk.img" -e AFW_LABEL=systemd-reboot -e AFW_INIT=systemd \
		-e AFW_VM_WANTS=afwd.service \
		-e "AFW_SCENARIOS=$src/tests/vm/scenarios/51-package-reboot.sh" "${long[@]}" \
		-c "${AFW_VM_CPUS:-2}"
	echo $? > "$vmdir2/boot-rc"
	echo "vm: systemd-reboot finished in $(cat "$vmdir2/out/wall_s" 2>/dev/null)s wall, $(cat "$vmdir2/out/cpu_s" 2>/dev/null) CPU-s," \
	     "rc $(cat "$vmdir2/boot-rc")" >&2
	# Kept for a look when either boot failed.
	[ "$(cat "$vmdir/boot-rc" "$vmdir2/boot-rc")" != "$(printf '0\n0')" ] ||
		rm -f "$vmdir/disk.img"
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
# While the debug kernel (the longest boot) still runs beside.
if [ $# -eq 0 ] || [[ "$want" == *" systemd "* ]]; then
	rm -f "$src/build/vm/systemd/boot-rc" "$src/build/vm/systemd-reboot/boot-rc"
	boot_systemd && labels+=(systemd systemd-reboot)
fi
[ ${#bg[@]} -eq 0 ] || wait "${bg[@]}"
for label in "${labels[@]}"; do
	collect "$label"
done
exit $AFW_FAILED
