#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh LABEL KDIR: builds afw.ko against the kernel tree KDIR with W=1
# and sparse (C=1) in build/kmod/LABEL, leaving the log beside it. Fails on
# any warning, sparse report or error.
set -u
label=$1
kdir=$2
src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/build/kmod/$label

rm -rf "$out"
mkdir -p "$out/include/uapi/linux"
cp "$src/Kbuild" "$src/dkms.conf" "$out/"
cp -r "$src/module" "$out/"
cp "$src/include/uapi/linux/afw.h" "$out/include/uapi/linux/"

make -C "$kdir" M="$out" W=1 C=1 modules > "$out/build.log" 2>&1
rc=$?
# Everything kbuild prints besides its own progress lines is a finding.
grep -Ev '^make(\[[0-9]+\])?: (Entering|Leaving) directory|^  (CC|CHECK|LD|MODPOST|BTF|AR|LDS)\b|^Skipping BTF generation' \
	"$out/build.log" > "$out/findings.log"
if [ $rc -ne 0 ] || [ -s "$out/findings.log" ] || [ ! -f "$out/afw.ko" ]; then
	cat "$out/findings.log" >&2
	exit 1
fi
