#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make install" puts the module where modprobe finds it and the tools and
# man page where a user finds them (checked in a staging root).
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host make install] "
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

kdir=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
kver=$(basename "$(dirname "$kdir")")
check "make install DESTDIR=... succeeds" \
	make -s -C "$src" install DESTDIR="$root" KDIR="$kdir" KVER="$kver"
ko=$(find "$root/lib/modules/$kver" -name 'afw.ko*' | head -n 1)
check "the module lands under /lib/modules/$kver" test -n "$ko"
check_grep "depmod indexed it" '^(extra|updates)/afw\.ko' \
	"$(cat "$root/lib/modules/$kver/modules.dep" 2>/dev/null)"
check "afwctl lands in /usr/local/sbin" test -x "$root/usr/local/sbin/afwctl"
check "afwctl(8) lands in the man path" test -f "$root/usr/local/share/man/man8/afwctl.8"
exit $AFW_FAILED
