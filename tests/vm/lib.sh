# SPDX-License-Identifier: GPL-2.0
#
# Helpers for VM scenarios: namespaces, topologies and afw state. A scenario
# sources this file, calls its own setup, and relies on the EXIT trap here to
# tear down whatever it created.

. "$AFW_SRC/tests/lib/tap.sh"

AFWCTL=$AFW_SRC/build/afwctl
# Namespaces are named after the scenario so that scenarios never share one.
NSP=afw-$(basename "$0" .sh | tr -cd 'a-z0-9-' | cut -c1-20)
NS_C=$NSP-c
NS_R=$NSP-r
NS_S=$NSP-s

# Documentation address ranges: nothing here could ever leave the guest.
C4=192.0.2.2 R4C=192.0.2.1 R4S=198.51.100.1 S4=198.51.100.2
C6=2001:db8:1::2 R6C=2001:db8:1::1 R6S=2001:db8:2::1 S6=2001:db8:2::2

afw_cleanup_hooks=()
on_exit() { afw_cleanup_hooks+=("$*"); }

afw_cleanup() {
	local i
	for (( i=${#afw_cleanup_hooks[@]}-1; i>=0; i-- )); do
		eval "${afw_cleanup_hooks[i]}" > /dev/null 2>&1 || true
	done
	for ns in $(ip netns list | awk -v p="$NSP-" 'index($1, p) == 1 { print $1 }'); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns"
	done
}
trap afw_cleanup EXIT

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# client --- router --- server, IPv4 and IPv6, with forwarding on the router.
topo_routed() {
	local ns
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		ip netns add "$ns"
		nsx "$ns" ip link set lo up
		nsx "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	done
	ip link add c0 netns "$NS_C" type veth peer name rc netns "$NS_R"
	ip link add s0 netns "$NS_S" type veth peer name rs netns "$NS_R"
	nsx "$NS_C" ip addr add $C4/24 dev c0
	nsx "$NS_C" ip addr add $C6/64 dev c0 nodad
	nsx "$NS_R" ip addr add $R4C/24 dev rc
	nsx "$NS_R" ip addr add $R6C/64 dev rc nodad
	nsx "$NS_R" ip addr add $R4S/24 dev rs
	nsx "$NS_R" ip addr add $R6S/64 dev rs nodad
	nsx "$NS_S" ip addr add $S4/24 dev s0
	nsx "$NS_S" ip addr add $S6/64 dev s0 nodad
	for ns in "$NS_C:c0" "$NS_R:rc" "$NS_R:rs" "$NS_S:s0"; do
		nsx "${ns%%:*}" ip link set "${ns##*:}" up
	done
	nsx "$NS_R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	nsx "$NS_C" ip route add default via $R4C
	nsx "$NS_C" ip -6 route add default via $R6C
	nsx "$NS_S" ip route add default via $R4S
	nsx "$NS_S" ip -6 route add default via $R6S
	wait_until 10 nsx "$NS_C" ping -q -c1 -W1 $S4 > /dev/null &&
	wait_until 10 nsx "$NS_C" ping -6 -q -c1 -W1 $S6 > /dev/null
}

# counter NS FAMILY DIRECTION FIELD: one afw hook counter of namespace NS
# ("-" for the initial namespace), as afwctl -j status reports it.
counter() {
	local run=()
	[ "$1" = - ] || run=(ip netns exec "$1")
	"${run[@]}" "$AFWCTL" -j status |
		jq -r --arg f "$2" --arg d "$3" --arg k "$4" \
			'.counters[] | select(.family == $f and .direction == $d) | .[$k]'
}

afw_loaded() { [ -d /sys/module/afw ]; }

# afw_load [PARAM=VALUE...]: insmod the module under test. insmod does not
# resolve dependencies, so load the kernel's reject helpers first (they are
# built into some kernels, hence no error check).
afw_load() {
	modprobe -q -a nf_reject_ipv4 nf_reject_ipv6 2>/dev/null
	insmod "$AFW_KO" "$@"
}

afw_unload() {
	if afw_loaded; then
		rmmod afw
	fi
}
