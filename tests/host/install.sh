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
check "afwd lands in /usr/local/sbin" test -x "$root/usr/local/sbin/afwd"
check "afwd(8) and afwd-policy(5) land in the man path" \
	test -f "$root/usr/local/share/man/man8/afwd.8" -a -f "$root/usr/local/share/man/man5/afwd-policy.5"
check_grep "the systemd unit runs the installed afwd" '^ExecStart=/usr/local/sbin/afwd ' \
	"$(cat "$root/lib/systemd/system/afwd.service" 2>/dev/null)"
check_grep "with CAP_NET_ADMIN only and a read-only system" \
	'CapabilityBoundingSet=CAP_NET_ADMIN.*ProtectSystem=strict' \
	"$(tr '\n' ' ' < "$root/lib/systemd/system/afwd.service" 2>/dev/null)"
check_grep "a starting policy lands in /etc/afw: default allow, give-ups refused where a name is expected" "3 rules, default allow" \
	"$("$root/usr/local/sbin/afwd" --check "$root/etc/afw/policy.conf" 2>&1)"
echo "default deny" > "$root/etc/afw/policy.conf"
make -s -C "$src" install-userspace DESTDIR="$root" > /dev/null 2>&1
check_eq "and a second install keeps the admin's policy" "default deny" "$(cat "$root/etc/afw/policy.conf")"
exit $AFW_FAILED
