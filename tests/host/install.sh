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
check_grep "as the user afw, with CAP_NET_ADMIN only and a read-only system" \
	'User=afw .*CapabilityBoundingSet=CAP_NET_ADMIN AmbientCapabilities=CAP_NET_ADMIN .*ProtectSystem=strict' \
	"$(tr '\n' ' ' < "$root/lib/systemd/system/afwd.service" 2>/dev/null)"
check_grep "the user afw is declared for systemd-sysusers" '^u afw - ' \
	"$(cat "$root/usr/lib/sysusers.d/afw.conf" 2>/dev/null)"
check_grep "a starting policy lands in /etc/afw: default allow, give-ups refused where a name is expected" "14 rules, default allow" \
	"$("$root/usr/local/sbin/afwd" --check "$root/etc/afw/policy.conf" 2>&1)"
unit=$(cat "$root/lib/systemd/system/afw.service" 2>/dev/null)
check_grep "afw.service loads the module and /etc/afw/afw.conf" \
	'ExecStartPre=/sbin/modprobe afw.*ExecStart=/usr/local/sbin/afwctl load /etc/afw/afw.conf' \
	"$(tr '\n' ' ' <<< "$unit")"
check_grep "once, before the network comes up" \
	'Type=oneshot.*RemainAfterExit=yes' "$(tr '\n' ' ' <<< "$unit")"
check_grep "early in the boot" \
	'DefaultDependencies=no.*Wants=network-pre.target.*Before=network-pre.target' "$(tr '\n' ' ' <<< "$unit")"
check_grep "afwd.service needs afw.service and comes after it" \
	'Requires=afw.service.*After=afw.service' \
	"$(tr '\n' ' ' < "$root/lib/systemd/system/afwd.service" 2>/dev/null)"
check "a default /etc/afw/afw.conf lands, and checks" \
	"$root/usr/local/sbin/afwctl" -j check "$root/etc/afw/afw.conf" > /dev/null
check "bash completion for afwctl lands where bash-completion looks" \
	test -f "$root/usr/local/share/bash-completion/completions/afwctl"
check "and for afwd" test -f "$root/usr/local/share/bash-completion/completions/afwd"
echo "default deny" > "$root/etc/afw/policy.conf"
echo "set unknown drop" > "$root/etc/afw/afw.conf"
make -s -C "$src" install-userspace DESTDIR="$root" > /dev/null 2>&1
check_eq "and a second install keeps the admin's policy" "default deny" "$(cat "$root/etc/afw/policy.conf")"
check_eq "and the admin's afw.conf" "set unknown drop" "$(cat "$root/etc/afw/afw.conf")"

check "make uninstall DESTDIR=... succeeds" \
	make -s -C "$src" uninstall DESTDIR="$root" KDIR="$kdir" KVER="$kver"
# What is left: the admin's configuration, and the index files depmod keeps.
left=$(cd "$root" && find . \( -type f -o -type l \) ! -path "./lib/modules/$kver/modules.*" | sort)
check_eq "and leaves only the admin's configuration" \
	"$(printf './etc/afw/afw.conf\n./etc/afw/policy.conf')" "$left"
check_fails "and depmod forgot the module" grep -q afw "$root/lib/modules/$kver/modules.dep"
exit $AFW_FAILED
