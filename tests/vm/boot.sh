#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one test VM and run a job script inside it.
#
#   boot.sh -k KERNEL_IMAGE -i INITRD -o OUTDIR -j JOB [-e VAR=VALUE]...
#           [-t TIMEOUT_S] [-m MEM_MB] [-c CPUS] [-a KERNEL_ARGS] [-d DISK]
#           [--icount | --icount-idle] [--interactive] [-g GDB_SOCKET]
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
# tcg,thread=single). A guest that shows no sign of life (watch_guest below)
# is looked into and stopped long before TIMEOUT. DISK, a raw ext4 image, is
# the guest's disk: init keeps the overlay's upper layer there instead of in
# memory, so that a second boot from it is a reboot of the same system.
# GDB_SOCKET, a path: QEMU's gdbstub listens there, for a debugger (or
# bench/hookpath.sh) to step the guest's kernel.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
kernel= initrd= out= job= tmo=1800 mem=2048 cpus=2 icount= interactive= append= disk= gdb=
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
	-g) gdb=$2; shift 2 ;;
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

# no_timer_check: the kernel times the IO-APIC's timer interrupt against a
# busy loop while it boots, and an emulated CPU on a busy host (two guests
# on two CPUs) can miss it: "IO-APIC + timer doesn't work!", a panic
# before anything of afw's ran (seen with a debug kernel's boot beside a
# benchmark's). The check is for boards that wire the timer wrongly; an
# emulated one is wired right.
qemu=(qemu-system-x86_64 "${accel[@]}" -m "$mem" -smp "$cpus"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4 quiet sysrq_always_enabled no_timer_check$append"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$out,mount_tag=afwout,security_model=none,multidevs=remap"
	-nic none -no-reboot -display none)
[ -z "$disk" ] || qemu+=(-drive "file=$disk,if=virtio,format=raw")
[ -z "$gdb" ] || qemu+=(-chardev "socket,id=gdb0,path=$gdb,server=on,wait=off" -gdb chardev:gdb0)

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

# A guest that froze (every vCPU idle or spinning, nothing written) would
# hold its boot until TIMEOUT: on a CI runner the debug kernel once sat in
# its boot for the whole 4,200 s at 9% of a CPU. Signs of life: the
# console, the job's results and the heartbeat that heartbeat.sh, beside
# the job, writes every 10 s.
# The boot must say it is done within AFW_VM_BOOT_LIMIT s of wall time, and
# then something must move within every AFW_VM_STALL s (beyond a scenario's
# own time limit nothing moves only in a frozen guest). The debug kernel
# says it booted 17 to 21 s after its start, Debian's in 3 to 4 (their
# uptimes at "booted", which under TCG follow the host's clock); a debug
# boot that froze in a local CI run had printed nothing in 600 s, the time
# this limit was then.
boot_limit=${AFW_VM_BOOT_LIMIT:-180}
stall_limit=${AFW_VM_STALL:-900}
qmpdir=$(mktemp -d)
trap 'rm -rf "$qmpdir"' EXIT
qemu+=(-qmp "unix:$qmpdir/qmp.sock,server=on,wait=off")

# newest FILE...: the newest modification time of those that exist.
newest() { stat -c %Y "$@" 2> /dev/null | sort -n | tail -n 1; }

# watch_guest: until qemu ends (boot.sh kills it then), stops a guest that
# shows no sign of life in time, after asking its kernel for every CPU's
# backtrace and every blocked task (sysrq l and w, at console loglevel 9)
# and the emulator for each vCPU's registers; $out/stalled says why.
watch_guest() {
	local t0 now last why=
	t0=$(date +%s)
	while sleep 10; do
		now=$(date +%s)
		if ! grep -q 'afw-vm: booted' "$out/console.log" 2> /dev/null; then
			[ $((now - t0)) -lt "$boot_limit" ] ||
				why="it did not say it had booted within ${boot_limit}s"
		else
			last=$(newest "$out/console.log" "$out/heartbeat" "$out/results.tap") || :
			[ $((now - ${last:-$now})) -lt "$stall_limit" ] ||
				why="no sign of life (console, results, heartbeat) for ${stall_limit}s"
		fi
		[ -z "$why" ] || break
	done
	echo "$why" > "$out/stalled"
	python3 "$here/qmp.py" "$qmpdir/qmp.sock" "sendkey alt-sysrq-9" "sendkey alt-sysrq-l" \
		"sendkey alt-sysrq-w" "sleep 20" "info registers -a" > "$out/stall-registers.txt" 2>&1 || :
	python3 "$here/qmp.py" "$qmpdir/qmp.sock" quit > /dev/null 2>&1 || :
}

# stalled_booting: the watcher stopped a guest that never said it booted,
# so before any afw code or job ran.
stalled_booting() {
	[ -s "$out/stalled" ] && ! grep -q 'afw-vm: booted' "$out/console.log"
}

# say_stall: what the watcher found, briefly; the rest stays in $out.
say_stall() {
	echo "boot.sh: stopped the guest: $(cat "$out/stalled")" >&2
	echo "boot.sh: its vCPUs (all of it in $out/stall-registers.txt):" >&2
	grep -E '^(RIP|CPU#|EFL)' "$out/stall-registers.txt" | sed 's/^/boot.sh:   /' >&2 || :
	echo "boot.sh: the console's last lines (all of it in $out/console.log):" >&2
	tail -n 60 "$out/console.log" | sed 's/^/boot.sh:   /' >&2 || :
}

start=$(date +%s)
rm -f "$out/cpu_s" "$out/stalled" "$out/heartbeat"
TIMEFORMAT='%R %U %S'
for attempt in 1 2; do
	rc=0
	watch_guest &
	watcher=$!
	# The emulator's CPU seconds, beside its wall time: on a CI machine
	# of two CPUs, the boots' sum of them is what must fit in the hour.
	{ time timeout --foreground "$tmo" "${qemu[@]}" -monitor none \
		-serial "file:$out/console.log" < /dev/null 2>&3 || rc=$?; } 3>&2 2> "$out/time.txt"
	kill $watcher 2> /dev/null || :
	wait $watcher 2> /dev/null || :
	cpu=$(awk '{ printf "%d", $2 + $3 }' "$out/time.txt" 2> /dev/null)
	echo $(( ${cpu:-0} + $(cat "$out/cpu_s" 2> /dev/null || echo 0) )) > "$out/cpu_s"
	[ ! -f "$out/rc" ] && [ "$rc" != 124 ] && [ $attempt = 1 ] || break
	if died_booting; then
		mv "$out/console.log" "$out/console-died-booting.log"
		echo "boot.sh: the kernel died of a stale int3 while booting, before afw or the" \
		     "job ran (an emulator race, tests/vm/int3.sh); booting once more" >&2
	elif stalled_booting; then
		say_stall
		mv "$out/console.log" "$out/console-stalled-booting.log"
		mv "$out/stall-registers.txt" "$out/stall-registers-booting.txt"
		rm -f "$out/stalled"
		echo "boot.sh: the guest froze while booting, before afw or the job ran;" \
		     "booting once more" >&2
	else
		break
	fi
done
echo "$(( $(date +%s) - start ))" > "$out/wall_s"
if [ -s "$out/stalled" ]; then
	say_stall
	exit 125
fi
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
