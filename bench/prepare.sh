# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the benchmarks' host sides (run.sh, afwd.sh, load.sh), with
# src set to the tree.

# bench_prepare LABEL NAME: finds the kernel labelled LABEL (sets img and
# kver), builds the userspace, the test tools (afwstress) and afw.ko for
# it, and makes out=build/bench/NAME with the boot's initrd in it.
bench_prepare() {
	local kdir
	read -r _ img kdir kver < <("$src/tests/vm/kernels.sh" | awk -v l="$1" '$1 == l')
	[ -n "${img:-}" ] || { echo "bench: no kernel labelled $1" >&2; exit 1; }
	make -s -C "$src" userspace tools
	"$src/tests/kbuild.sh" "$1" "$kdir"
	out=$src/build/bench/$2
	mkdir -p "$out"
	"$src/tests/vm/mkinitramfs.sh" "$kver" "$out/initrd.gz"
}

# bench_kos [KO...]: sets kos to the builds of afw.ko named, as absolute
# paths (the guest reads them from the host's root), or to the tree's own
# build for Debian's 6.1 when none is.
bench_kos() {
	local ko
	kos=()
	for ko in "${@:-$src/build/kmod/6.1/afw.ko}"; do
		kos+=("$(realpath "$ko")")
	done
}
