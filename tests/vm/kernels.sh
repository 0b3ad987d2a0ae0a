#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lists the kernels the VM suite boots, one per line:
#   LABEL IMAGE KDIR MODULES_KVER
# MODULES_KVER is "none" for a kernel with everything built in. 6.1 and 6.12
# are required (a missing one is reported on stderr with exit 1); the debug
# kernel is used when shared/kernels/ next to the source tree offers it.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
rc=0

for series in 6.1 6.12; do
	img=$(ls /boot/vmlinuz-"$series".[0-9]* 2>/dev/null | sort -V | tail -n 1)
	kver=${img#/boot/vmlinuz-}
	if [ -z "$img" ] || [ ! -f "/lib/modules/$kver/build/Makefile" ]; then
		echo "kernels.sh: Debian's $series kernel image and headers are not installed (run 'make deps')" >&2
		rc=1
		continue
	fi
	echo "$series $img /lib/modules/$kver/build $kver"
done

tarball=${AFW_DEBUG_KERNEL:-$src/../shared/kernels/debug-6.1.tar.xz}
if [ -f "$tarball" ]; then
	dir=$src/build/debug-kernel
	if [ ! -f "$dir/.unpacked" ] || [ "$tarball" -nt "$dir/.unpacked" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -xJf "$tarball" -C "$dir" || { echo "kernels.sh: cannot unpack $tarball" >&2; exit 1; }
		touch "$dir/.unpacked"
	fi
	img=$(find "$dir" -name bzImage -type f | head -n 1)
	kdir=$(dirname "$(find "$dir" -maxdepth 3 -name Module.symvers | head -n 1)")
	echo "debug-6.1 $img $kdir none"
else
	# Said, not skipped in silence: the suite is weaker without it.
	echo "kernels.sh: no debug kernel at $tarball (set AFW_DEBUG_KERNEL);" \
	     "the VM suite runs without KASAN, lockdep and kmemleak" >&2
fi
exit $rc
