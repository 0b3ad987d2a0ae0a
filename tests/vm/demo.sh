#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make vm-demo: boots Debian's newest installed kernel in qemu with afw
# installed and loaded, makes some traffic between two namespaces and shows
# the module's status. From a terminal it then leaves you at a root shell
# inside the VM ("exit" powers it off); otherwise it powers off after the
# status. With CMD set (make vm-demo CMD='afwctl status'), it runs CMD in
# the VM instead, prints its output and exits with its status.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

read -r label img kdir kver < <("$here/kernels.sh" 2>/dev/null | grep -v '^debug' | tail -n 1) || {
	echo "vm-demo: no Debian kernel image to boot; run 'sudo make deps' first" >&2
	exit 1
}
# tests/run's build stage has just built it (AFW_KMOD_BUILT), and a boot
# beside this one may be loading it.
if [ -z "${AFW_KMOD_BUILT:-}" ] || [ ! -f "$src/build/kmod/$label/afw.ko" ]; then
	"$src/tests/kbuild.sh" "$label" "$kdir" ||
		{ echo "vm-demo: the module does not build for $label; see build/kmod/$label/build.log" >&2; exit 1; }
fi
mkdir -p "$src/build/vm/demo"
"$here/mkinitramfs.sh" "$kver" "$src/build/vm/demo/initrd.gz"

# modprobe in the guest needs afw in depmod's index. depmod reads every
# module of the kernel, which takes seconds here and minutes under
# emulation: it runs here, on the kernel's modules and afw.ko, and the guest
# copies the index.
ko=$src/build/kmod/$label/afw.ko
mods=$src/build/vm/demo/modules/lib/modules/$kver
if [ ! -f "$mods/modules.dep.bin" ] || [ "$ko" -nt "$mods/modules.dep.bin" ]; then
	rm -rf "$src/build/vm/demo/modules"
	mkdir -p "$mods/extra"
	ln -s "/lib/modules/$kver/kernel" "$mods/kernel"
	cp "/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$mods/"
	cp "$ko" "$mods/extra/afw.ko"
	depmod -b "$src/build/vm/demo/modules" "$kver"
fi

args=(-k "$img" -i "$src/build/vm/demo/initrd.gz" -o "$src/build/vm/demo/out"
      -j "$here/demo-guest.sh" -e "AFW_MODULES=$mods")
accel=$("$here/accel.sh" "$img")
export AFW_VM_ACCEL=$accel
if [ "$accel" = kvm ]; then
	echo "vm-demo: booting $kver under qemu with KVM; the shell comes in a few seconds"
else
	echo "vm-demo: booting $kver under qemu without KVM (emulated): the shell comes" \
	     "within about a minute and a half"
fi
if [ -z "${CMD:-}" ] && [ -t 0 ] && [ -t 1 ]; then
	echo "vm-demo: Ctrl-C reaches the VM's shell; 'exit' (or Ctrl-A x) powers it off"
	exec "$here/boot.sh" "${args[@]}" -e AFW_DEMO_SHELL=1 -e "AFW_TTY_SIZE=$(stty size)" \
		--interactive
fi
[ -n "${CMD:-}" ] && args+=(-e "AFW_DEMO_CMD=$CMD")
"$here/boot.sh" "${args[@]}" -t 600 && rc=0 || rc=$?
# The guest's own lines, without the kernel's and init's.
grep -v '^\[' "$src/build/vm/demo/out/console.log" | grep -v '^afw-vm:' | tr -d '\r' || true
exit $rc
