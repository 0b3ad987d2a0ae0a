#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one test VM and run a job script inside it.
#
#   boot.sh -k KERNEL_IMAGE -i INITRD -o OUTDIR -j JOB [-e VAR=VALUE]...
#           [-t TIMEOUT_S] [-m MEM_MB] [-c CPUS] [-a KERNEL_ARGS] [-d DISK]
#           [--icount | --icount-idle] [--interactive]
#
# The guest sees the host's root read-only (with a tmpfs overlay) and OUTDIR
# writable at /afw-out. The job's exit status lands in OUTDIR/rc, the serial
# console in OUTDIR/console.log. KVM is used when accel.sh finds it working;
# AFW_VM_ACCEL=tcg or =kvm overrides that. --icount makes guest time follow the
# instruction count, which benchmarks need for repeatable ratios.
# --icount-idle does the same while the guest runs, but lets an idle guest's
# clock follow the host's: without it, idle time costs nothing, which makes
# latencies that wait on timers or wake-ups (connects, handshakes) meaningless.
# AFW_VM_QEMU_ACCEL replaces TCG's -accel argument (tests/vm/int3.sh passes
# tcg,thread=single). DISK, a raw ext4 image, is the guest's disk: init keeps
# the overlay's upper layer there instead of in memory, so that a second boot
# from it is a reboot of the same system.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
kernel= initrd= out= job= tmo=1800 mem=2048 cpus=2 icount= interactive= append= disk=
envs=()
while [ $# -gt 0 ]; do
	case "$1" in
	-k) kernel=$2; shift 2 ;;
	-i) initrd=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-j) job=$2; shift 2 ;;
	-e) envs+=("$2"); shift 2 ;;
	-t) tmo=$2; shift 2 ;;
	-m) mem=$2; shift 2 ;;
	-c) cpus=$2; shift 2 ;;
	-a) append=" $2"; shift 2 ;;
	-d) disk=$2; shift 2 ;;
	--icount) icount=shift=0,sleep=off; shift ;;
	--icount-idle) icount=shift=0; shift ;;
	--interactive) interactive=1; shift ;;
	*) echo "boot.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$out" ] && [ -n "$job" ] || {
	echo "boot.sh: -k, -i, -o and -j are required" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/rc" "$out/console.log"
{
	printf 'export AFW_SRC=%q\n' "$src"
	printf 'export AFW_JOB=%q\n' "$(realpath "$job")"
	printf 'export AFW_OUT=/afw-out\n'
	printf 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n'
	printf 'export HOME=/root LANG=C.UTF-8 TERM=%q\n' "${TERM:-dumb}"
	for e in "${envs[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
} > "$out/job.env"

accel=(-accel "${AFW_VM_QEMU_ACCEL:-tcg}" -cpu max)
if [ -z "$icount" ] && [ -z "${AFW_VM_QEMU_ACCEL:-}" ] && [ "$("$here/accel.sh" "$kernel")" = kvm ]; then
	accel=(-accel kvm -cpu host)
fi
[ -n "$icount" ] && accel=(-accel tcg -cpu max -icount "$icount")

qemu=(qemu-system-x86_64 "${accel[@]}" -m "$mem" -smp "$cpus"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4 quiet$append"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$out,mount_tag=afwout,security_model=none,multidevs=remap"
	-nic none -no-reboot -display none)
[ -z "$disk" ] || qemu+=(-drive "file=$disk,if=virtio,format=raw")

if [ -n "$interactive" ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

# died_booting: the guest died of a stale int3 (tests/vm/int3.sh: a race
# of multi-threaded TCG with the kernel patching its own text) before init
# said it had booted, so before any afw code or job ran.
died_booting() {
	grep -q 'Oops: int3' "$out/console.log" 2> /dev/null &&
		! grep -q 'afw-vm: booted' "$out/console.log"
}

start=$(date +%s)
rm -f "$out/cpu_s"
TIMEFORMAT='%R %U %S'
for attempt in 1 2; do
	rc=0
	# The emulator's CPU seconds, beside its wall time: on a CI machine
	# of two CPUs, the boots' sum of them is what must fit in the hour.
	{ time timeout --foreground "$tmo" "${qemu[@]}" -monitor none \
		-serial "file:$out/console.log" < /dev/null 2>&3 || rc=$?; } 3>&2 2> "$out/time.txt"
	cpu=$(awk '{ printf "%d", $2 + $3 }' "$out/time.txt" 2> /dev/null)
	echo $(( ${cpu:-0} + $(cat "$out/cpu_s" 2> /dev/null || echo 0) )) > "$out/cpu_s"
	[ ! -f "$out/rc" ] && [ "$rc" != 124 ] && [ $attempt = 1 ] && died_booting || break
	mv "$out/console.log" "$out/console-died-booting.log"
	echo "boot.sh: the kernel died of a stale int3 while booting, before afw or the" \
	     "job ran (an emulator race, tests/vm/int3.sh); booting once more" >&2
done
echo "$(( $(date +%s) - start ))" > "$out/wall_s"
if [ "$rc" = 124 ]; then
	echo "boot.sh: VM did not finish within ${tmo}s" >&2
	exit 124
fi
if [ ! -f "$out/rc" ]; then
	echo "boot.sh: VM stopped before its job finished (qemu rc $rc); see $out/console.log" >&2
	tail -n 30 "$out/console.log" >&2 || true
	exit 1
fi
exit "$(cat "$out/rc")"
