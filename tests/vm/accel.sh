#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# accel.sh KERNEL_IMAGE: prints "kvm" when KVM really runs a guest here, else
# "tcg". An openable /dev/kvm is not proof: nested setups may accept the
# device and then abort or hang the guest, so boot KERNEL_IMAGE to its
# no-root panic and look for it.
set -u
if [ "${AFW_VM_ACCEL:-auto}" != auto ]; then
	echo "$AFW_VM_ACCEL"
	exit 0
fi
# Only a character device will do, and only read it: a redirection to a
# /dev/kvm that is absent would create a regular file there.
if [ ! -c /dev/kvm ] || ! { exec 3</dev/kvm; } 2>/dev/null; then
	echo tcg
	exit 0
fi
exec 3<&-
if timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -display none \
	-nic none -no-reboot -serial stdio -monitor none -kernel "$1" \
	-append "console=ttyS0 panic=-1" < /dev/null 2>/dev/null | grep -q 'Kernel panic'; then
	echo kvm
else
	echo tcg
fi
