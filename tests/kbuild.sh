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

# Built beside the last build, which then gives way in two renames: a VM
# or a benchmark loading the last afw.ko meanwhile still finds it.
mkdir -p "$(dirname "$out")"
new=$(mktemp -d "$out.new.XXXXXX") && chmod 755 "$new" || exit 1
mkdir -p "$new/include/uapi/linux"
cp "$src/Kbuild" "$src/dkms.conf" "$new/"
cp -r "$src/module" "$new/"
cp "$src/include/uapi/linux/afw.h" "$new/include/uapi/linux/"

make -C "$kdir" M="$new" W=1 C=1 modules > "$new/build.log" 2>&1
rc=$?
# Everything kbuild prints besides its own progress lines is a finding.
grep -Ev '^make(\[[0-9]+\])?: (Entering|Leaving) directory|^  (CC|CHECK|LD|MODPOST|BTF|AR|LDS)\b|^Skipping BTF generation' \
	"$new/build.log" > "$new/findings.log"
old=$(mktemp -u "$out.old.XXXXXX")
[ -e "$out" ] && mv "$out" "$old"
mv "$new" "$out"
rm -rf "$old"
if [ $rc -ne 0 ] || [ -s "$out/findings.log" ] || [ ! -f "$out/afw.ko" ]; then
	cat "$out/findings.log" >&2
	exit 1
fi
