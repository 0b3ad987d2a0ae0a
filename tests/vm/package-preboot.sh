#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before the systemd boot of tests/vm/scenarios/50-package.sh, in the
# guest's root as in an installer's chroot: note what is there, install the
# afw and afw-dkms packages (dkms builds the module for this kernel), write
# an /etc/afw/afw.conf as an admin would. systemd then boots a system that
# has afw installed, to a target that wants afwd (run.sh: AFW_VM_WANTS), as
# multi-user.target does once the admin enables it.
set -u
out=$AFW_OUT/package
mkdir -p "$out"
# The guest's root is the host's under an overlay, and the host may have
# the user afw (scripts/install-deps creates it for the host tests): the
# packages are tested on a system that never had afw, as a user's is.
getent passwd afw > /dev/null && userdel afw
getent group afw > /dev/null && groupdel afw
"$AFW_SRC/tests/vm/package-files.sh" > "$out/files-before.txt"
debs=("$AFW_SRC"/build/deb/afw_*.deb "$AFW_SRC"/build/deb/afw-dkms_*.deb)
# man-db's trigger rebuilds the index of every manual page, minutes on an
# emulated CPU; man finds afwctl(8) without it, which is what is tested.
# (This is what "man-db/auto-update false" in debconf does.)
rm -f /var/lib/man-db/auto-update
start=$(date +%s)
DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}" > "$out/install.log" 2>&1
echo $? > "$out/install-rc"
echo "package-preboot: dpkg -i took $(( $(date +%s) - start ))s, rc $(cat "$out/install-rc")"
"$AFW_SRC/tests/vm/package-files.sh" > "$out/files-installed.txt"
cat > /etc/afw/afw.conf <<'CONF'
# written by the test, as an admin would
set unknown accept
set queue 2-5
set fail closed
set max_flows 4242
set flow_timeout 77
id 5 prio 10 dir in proto tcp dport ssh from 192.0.2.0/24 allow
id 6 prio 20 dir out uid root proto udp dport 9 deny
CONF
