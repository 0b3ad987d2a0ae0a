#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The way users install on Debian: the afw and afw-dkms packages, installed
# before this systemd boot (tests/vm/package-preboot.sh), dkms building the
# module for this kernel. afw.service must have loaded the module and
# /etc/afw/afw.conf before network-pre.target, afwd.service must run after
# it, and a restart must restore both after rmmod. Then a life on a machine
# reached over SSH, which ends in a reboot: 51-package-reboot boots the
# same disk and checks what came back, then purges. Needs systemd as PID 1:
# tests/vm/run.sh boots it that way (label "systemd") and skips it
# elsewhere.
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/tests/vm/package-lib.sh"

check_eq "systemd is PID 1" systemd "$(cat /proc/1/comm)"
check_eq "dpkg -i afw afw-dkms succeeded before the boot" 0 "$(cat "$pkg/install-rc" 2>/dev/null)"
[ "$(cat "$pkg/install-rc" 2>/dev/null)" = 0 ] || cat "$pkg/install.log" >&2
check_grep "dkms status shows afw installed for $kver" \
	"^afw/$AFW_VERSION, $kver_re, x86_64: installed" "$(dkms status afw)"
check_grep "the loaded module is dkms's build" \
	"^/lib/modules/$kver_re/updates/dkms/afw\.ko" "$(modinfo -n afw)"
check "afw is loaded" afw_loaded

check_boot_order
check_eq "the settings and rules of /etc/afw/afw.conf are in force" "$want" "$(in_force)"

check "systemctl stop afwd" systemctl stop afwd
check "rmmod afw" rmmod afw
check_fails "afw is gone" afw_loaded
check "systemctl restart afw" systemctl restart afw
check "afw is loaded again" afw_loaded
check_eq "with the file's settings and rules again" "$want" "$(in_force)"
check "systemctl start afwd" systemctl start afwd
check_eq "afwd runs beside it" active "$(systemctl is-active afwd.service)"
ready() { journalctl -u afwd -o cat 2> /dev/null | grep -q 'afwd: ready'; }
wait_until 30 ready
check_grep "storing its decisions in the event log" "decisions are stored in /var/lib/afw/events.db" \
	"$(journalctl -u afwd -o cat 2> /dev/null)"
check "which afwctl log reads, as installed" sh -c "$AFWCTL -j log | jq -e 'type == \"array\"'"

# A life on a machine reached over SSH: a session from 192.0.2.2 to port 22,
# which rule 5 of afw.conf accepts, is carried through the admin's edit of
# the file to "unknown drop", rmmod and modprobe, afwd killed, and an
# upgrade of the afw package, with the file's settings and rules in force
# after each. (The afw-dkms package's upgrade rebuilds the module, twelve
# minutes on an emulated CPU: its install above is that path.)
session_start
check "an SSH-like session from 192.0.2.2 to port 22 runs" wait_until 30 session_more_than 0

sed -i 's/^set unknown accept$/set unknown drop/' /etc/afw/afw.conf
want=${want/set unknown accept/set unknown drop}
check "the admin sets unknown drop in afw.conf; systemctl reload afw" systemctl reload afw
check_eq "the file is in force" "$want" "$(in_force)"
check "the session runs on: rule 5 passes it in, its flow the replies out" alive

check "rmmod afw under the session, afwd running" rmmod afw
check "the session runs on without afw" alive
check "modprobe afw" modprobe afw
check "systemctl restart afw" systemctl restart afw
check_eq "the file is in force again" "$want" "$(in_force)"
check "the session runs on" alive
check_eq "by a flow rule 5 installed for it" 1 \
	"$("$AFWCTL" -j flow list | jq '[.[] | select(.sport == 45022 and .origin == "rule" and .rule == 5)] | length')"

pid=$(systemctl show -P MainPID afwd)
check "kill -9 afwd" kill -9 "$pid"
back() {
	local now
	now=$(systemctl show -P MainPID afwd)
	[ "$(systemctl is-active afwd)" = active ] && [ "$now" != 0 ] && [ "$now" != "$pid" ]
}
check "systemd starts afwd again" wait_until 30 back
check_grep "and it finds the module" "decided flows go to the afw module" \
	"$(journalctl -u afwd -n 40 -o cat 2> /dev/null)"
check "the session runs on" alive

debs=("$AFW_SRC"/build/deb/afw_*.deb)
check "an upgrade of the afw package (dpkg -i)" sh -c \
	"DEBIAN_FRONTEND=noninteractive dpkg -i ${debs[*]} > '$pkg/upgrade.log' 2>&1"
check_grep "keeps the admin's afw.conf" "^set unknown drop$" "$(cat /etc/afw/afw.conf)"
check_eq "afw.service is active after it" active "$(systemctl is-active afw.service)"
check_eq "afwd.service too" active "$(systemctl is-active afwd.service)"
check_eq "and the file is in force" "$want" "$(in_force)"
check "the session runs on" alive
session_end

# The admin reboots: systemd stops every unit and powers off in order
# (run.sh boots this job with AFW_VM_POWEROFF=poweroff), and the disk keeps
# the system for the next boot, which checks it is this one by its boot id.
cat /proc/sys/kernel/random/boot_id > /var/lib/afw-vm-boot-id
sync
exit $AFW_FAILED
