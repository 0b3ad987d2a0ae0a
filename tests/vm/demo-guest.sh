#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the vm-demo VM: load afw, make a little traffic, show the status.
set -u
modprobe -q -a nf_reject_ipv4 nf_reject_ipv6 2>/dev/null
insmod "$AFW_KO" || exit 1
ip netns add demo
ip link add veth-host type veth peer name veth-demo netns demo
ip addr add 192.0.2.1/24 dev veth-host
ip link set veth-host up
ip -n demo addr add 192.0.2.2/24 dev veth-demo
ip -n demo link set veth-demo up
ping -q -c 5 -i 0.2 192.0.2.2 > /dev/null
echo "afw is loaded; 5 pings went to namespace 'demo'. 'afwctl status' says:"
"$AFW_SRC/build/afwctl" status || exit 1
if [ -n "${AFW_DEMO_SHELL:-}" ]; then
	echo
	echo "You are root inside the VM; afwctl is $AFW_SRC/build/afwctl."
	echo "Try: ip netns exec demo ping 192.0.2.1; afwctl -j status. 'exit' powers off."
	export PATH=$AFW_SRC/build:$PATH PS1='afw-vm# '
	bash --norc -i
fi
exit 0
