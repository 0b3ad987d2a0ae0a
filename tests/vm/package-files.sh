#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The files and links a package of afw could leave behind, one a line: what
# the package test compares before installing and after purging. Contents
# change (depmod's indexes, /etc/passwd, ld.so.cache); names must not.
# The backups that shadow tools keep (/etc/passwd- and the like) are left
# out, and so is the signing key dkms makes at its first build: dkms's, not
# afw's, and kept for every module it builds later. So are the units the
# test VM's init writes for its boot (tests/vm/init), after a list taken
# before the boot on the host (tests/vm/preboot-host.sh).
kver=$(uname -r)
find /etc /lib/systemd /usr/lib/systemd /usr/lib/sysusers.d /usr/sbin /usr/share/man/man5 \
	/usr/share/man/man8 /usr/share/bash-completion /usr/share/doc/afw /usr/share/doc/afw-dkms \
	"/lib/modules/$kver" /var/lib/dkms /var/lib/systemd/deb-systemd-helper-enabled \
	\( -type f -o -type l \) ! -name '*-' ! -path '/var/lib/dkms/mok.*' \
	! -path '/etc/systemd/system/afw-vm*' ! -path /etc/systemd/system/default.target \
	! -path /etc/tmpfiles.d/tmp.conf 2>/dev/null | sort
find /usr/src -maxdepth 1 2>/dev/null | sort
echo "passwd: $(getent passwd | cut -d: -f1 | sort | tr '\n' ' ')"
echo "group: $(getent group | cut -d: -f1 | sort | tr '\n' ' ')"
