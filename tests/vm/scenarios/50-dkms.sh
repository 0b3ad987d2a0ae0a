#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The way users install: dkms builds afw from /usr/src for the running kernel,
# and "modprobe afw" loads that build.
. "$AFW_SRC/tests/vm/lib.sh"

kver=$(uname -r)
kver_re=$(printf '%s' "$kver" | sed 's/[.+]/\\&/g')
on_exit "modprobe -r afw; dkms remove -m afw -v $AFW_VERSION --all"

check "make dkms-install builds and installs for $kver" \
	make -s -C "$AFW_SRC" dkms-install KVER="$kver"
check_grep "dkms status shows afw installed" \
	"^afw/$AFW_VERSION, $kver_re, x86_64: installed" "$(dkms status afw)"
check "modprobe afw" modprobe afw
check_grep "the loaded module is dkms's build" \
	"^/lib/modules/$kver_re/updates/dkms/afw\.ko" "$(modinfo -n afw)"
check_eq "afwctl reports the dkms module's version" "$AFW_VERSION" \
	"$("$AFWCTL" -j status | jq -r .module_version)"

topo_routed || not_ok "routed topology comes up" "ping across the router failed"
before=$(counter $NS_R ipv4 forward packets)
nsx $NS_C ping -q -c 10 -i 0.05 $S4 > /dev/null
check_ge "the dkms module counts forwarded traffic" $((before + 20)) \
	"$(counter $NS_R ipv4 forward packets)"
check "modprobe -r afw" modprobe -r afw
check_fails "afw is gone after modprobe -r" afw_loaded

exit $AFW_FAILED
