#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The way users install on Debian: the afw and afw-dkms packages, installed
# before this systemd boot (tests/vm/package-preboot.sh), dkms building the
# module for this kernel. afw.service must have loaded the module and
# /etc/afw/afw.conf before network-pre.target, afwd.service must run after
# it, a restart must restore both after rmmod, and purging both packages
# must leave the system as it was. Needs systemd as PID 1: tests/vm/run.sh
# boots it that way (label "systemd") and skips it elsewhere.
. "$AFW_SRC/tests/vm/lib.sh"

pkg=$AFW_OUT/package
kver=$(uname -r)
kver_re=$(printf '%s' "$kver" | sed 's/[.+]/\\&/g')
AFWCTL=/usr/sbin/afwctl

check_eq "systemd is PID 1" systemd "$(cat /proc/1/comm)"
check_eq "dpkg -i afw afw-dkms succeeded before the boot" 0 "$(cat "$pkg/install-rc" 2>/dev/null)"
[ "$(cat "$pkg/install-rc" 2>/dev/null)" = 0 ] || cat "$pkg/install.log" >&2
check_grep "dkms status shows afw installed for $kver" \
	"^afw/$AFW_VERSION, $kver_re, x86_64: installed" "$(dkms status afw)"
check_grep "the loaded module is dkms's build" \
	"^/lib/modules/$kver_re/updates/dkms/afw\.ko" "$(modinfo -n afw)"
check "afw is loaded" afw_loaded

# ts UNIT PROPERTY: a monotonic timestamp of a unit, in microseconds.
ts() { systemctl show -P "$2" "$1"; }
check_eq "afw.service is active" active "$(systemctl is-active afw.service)"
check_eq "network-pre.target is active" active "$(systemctl is-active network-pre.target)"
afw_up=$(ts afw.service ActiveEnterTimestampMonotonic)
pre_up=$(ts network-pre.target ActiveEnterTimestampMonotonic)
check "afw.service was up ($afw_up us) before network-pre.target ($pre_up us)" \
	test "$afw_up" -gt 0 -a "$afw_up" -le "$pre_up"
check_eq "afwd.service is active" active "$(systemctl is-active afwd.service)"
afwd_start=$(ts afwd.service ExecMainStartTimestampMonotonic)
check "afwd started ($afwd_start us) after afw.service was up" test "$afwd_start" -ge "$afw_up"

# What afw.conf says is in force: save prints it back in canonical form.
want='set unknown accept
set queue 2-5
set fail closed
set max_flows 4242
set tcp_timeout 86400
set udp_timeout 120
set flow_timeout 77

id 5 prio 10 family ipv4 dir in proto tcp from 192.0.2.0/24 dport 22 accept
id 6 prio 20 dir out proto udp dport 9 uid 0 drop'
in_force() { "$AFWCTL" save | grep -v '^#'; }
check_eq "the settings and rules of /etc/afw/afw.conf are in force" "$want" "$(in_force)"

check "systemctl stop afwd" systemctl stop afwd
check "rmmod afw" rmmod afw
check_fails "afw is gone" afw_loaded
check "systemctl restart afw" systemctl restart afw
check "afw is loaded again" afw_loaded
check_eq "with the file's settings and rules again" "$want" "$(in_force)"
check "systemctl start afwd" systemctl start afwd
check_eq "afwd runs beside it" active "$(systemctl is-active afwd.service)"

check "man afwctl works" sh -c 'man -P cat afwctl 2>/dev/null | grep -q "afwctl - configure"'
check_grep "bash completion is installed" "complete -F _afwctl afwctl" \
	"$(bash -c '. /usr/share/bash-completion/completions/afwctl; complete -p afwctl')"
check_grep "the afw system user exists" "^afw:" "$(getent passwd afw)"

# Purge: nothing of afw may be left.
systemctl stop afwd afw
rmmod afw 2>/dev/null
check "dpkg --purge afw afw-dkms" sh -c "DEBIAN_FRONTEND=noninteractive dpkg --purge afw afw-dkms > '$pkg/purge.log' 2>&1"
"$AFW_SRC/tests/vm/package-files.sh" > "$pkg/files-after.txt"
check "the purged system has the files it had before the install" \
	diff -u "$pkg/files-before.txt" "$pkg/files-after.txt"
check_fails "no afw module under /lib/modules/*/updates/dkms" \
	sh -c 'ls /lib/modules/*/updates/dkms/afw.ko* 2>/dev/null | grep -q .'
check_fails "no /usr/src/afw-*" sh -c 'ls -d /usr/src/afw-* 2>/dev/null | grep -q .'
check_fails "no afw units" sh -c 'systemctl daemon-reload; systemctl list-unit-files | grep -Eq "^afwd?\.service"'
check_fails "no afw user" getent passwd afw
check_fails "no afw group" getent group afw
check_fails "modprobe afw finds nothing" modprobe -n afw

exit $AFW_FAILED
