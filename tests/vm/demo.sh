#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make vm-demo: boots Debian's newest installed kernel in qemu with afw
# loaded, makes some traffic between two namespaces and shows the module's
# status. From a terminal it then leaves you at a root shell inside the VM
# ("exit" powers it off); otherwise it powers off after the status.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

read -r label img kdir kver < <("$here/kernels.sh" 2>/dev/null | grep -v '^debug' | tail -n 1) || {
	echo "vm-demo: no Debian kernel image to boot; run 'sudo make deps' first" >&2
	exit 1
}
"$src/tests/kbuild.sh" "$label" "$kdir" ||
	{ echo "vm-demo: the module does not build for $label; see build/kmod/$label/build.log" >&2; exit 1; }
mkdir -p "$src/build/vm/demo"
"$here/mkinitramfs.sh" "$kver" "$src/build/vm/demo/initrd.gz"

args=(-k "$img" -i "$src/build/vm/demo/initrd.gz" -o "$src/build/vm/demo/out"
      -j "$here/demo-guest.sh" -e "AFW_KO=$src/build/kmod/$label/afw.ko")
echo "vm-demo: booting $kver under qemu; this takes a few seconds"
if [ -t 0 ] && [ -t 1 ]; then
	exec "$here/boot.sh" "${args[@]}" -e AFW_DEMO_SHELL=1 --interactive
fi
"$here/boot.sh" "${args[@]}" -t 600 && rc=0 || rc=$?
grep -v '^\[' "$src/build/vm/demo/out/console.log" | grep -v '^afw-vm:' || true
exit $rc
