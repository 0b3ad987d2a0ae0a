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
#
# With --allowed, the findings that tests/checkpatch.allow lists (file,
# type and how many, each justified in docs/reliability.md) pass, and only
# others fail: what "make check" runs, so that no new one slips in.
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

allowed=0
[ "${1:-}" = --allowed ] && allowed=1
total=0 over=0
for f in module/*.c module/*.h include/uapi/linux/afw.h; do
	out=$(perl "$cp" --strict --no-tree --no-summary --quiet --show-types -f "$f" 2>&1)
	n=$(grep -cE '^(ERROR|WARNING|CHECK):' <<< "$out")
	total=$(( total + n ))
	[ "$n" -gt 0 ] || continue
	if [ $allowed = 1 ]; then
		# Per type: more than the list allows is a new finding.
		while read -r type count; do
			may=$(awk -v f="$f" -v t="$type" '$1 == f && $2 == t { print $3 }' \
				tests/checkpatch.allow)
			if [ "$count" -gt "${may:-0}" ]; then
				echo "== $f: $count of $type, $((${may:-0})) allowed (tests/checkpatch.allow)"
				echo "$out"
				over=$(( over + count - ${may:-0} ))
			fi
		done < <(grep -oE '^(ERROR|WARNING|CHECK):[A-Z_0-9]+' <<< "$out" | cut -d: -f2 |
			 sort | uniq -c | awk '{ print $2, $1 }')
		continue
	fi
	echo "== $f: $n"
	echo "$out"
done
if [ $allowed = 1 ]; then
	echo "checkpatch --strict: $total findings, $over beyond tests/checkpatch.allow"
	[ "$over" -eq 0 ]
	exit
fi
echo "checkpatch --strict: $total findings"
[ "$total" -eq 0 ]
