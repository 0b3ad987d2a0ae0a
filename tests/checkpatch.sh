#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own style checker on the module and its uapi header:
# checkpatch.pl --strict --no-tree -f, one file at a time. Prints every
# finding and a count per file; exits 1 if there is any. "make checkpatch"
# runs it.
#
# checkpatch.pl comes from Debian's linux-source-6.1: the unpacked tree in
# /usr/src if there is one, else the three files it needs taken from the
# package's tarball. CHECKPATCH=PATH uses another copy.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"

cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	cp=/usr/src/linux-source-6.1/scripts/checkpatch.pl
	tarball=/usr/src/linux-source-6.1.tar.xz
	if [ ! -f "$cp" ] && [ -f "$tarball" ]; then
		mkdir -p build/checkpatch
		tar -xJf "$tarball" -C build/checkpatch --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch || exit 2
		cp=build/checkpatch/scripts/checkpatch.pl
	fi
fi
if [ ! -f "$cp" ]; then
	echo "checkpatch: no checkpatch.pl; run 'sudo scripts/install-deps --checkpatch' or set CHECKPATCH" >&2
	exit 2
fi

total=0
for f in module/*.c module/*.h include/uapi/linux/afw.h; do
	out=$(perl "$cp" --strict --no-tree --no-summary --quiet --show-types -f "$f" 2>&1)
	n=$(grep -cE '^(ERROR|WARNING|CHECK):' <<< "$out")
	total=$(( total + n ))
	if [ "$n" -gt 0 ]; then
		echo "== $f: $n"
		echo "$out"
	fi
done
echo "checkpatch --strict: $total findings"
[ "$total" -eq 0 ]
