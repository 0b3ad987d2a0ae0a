#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module loads, and real IPv4 and IPv6 traffic in, out and through a
# router namespace shows up in that namespace's counters, and only there;
# a namespace nobody configured is left alone.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
check "module version matches the build" \
	test "$("$AFWCTL" -j status | jq -r .module_version)" = "$AFW_VERSION"
proto=$(sed -n 's/^#define AFW_GENL_VERSION[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$AFW_SRC/include/uapi/linux/afw.h")
check_eq "protocol version is the uapi header's AFW_GENL_VERSION (5)" "5 $proto" \
	"$proto $("$AFWCTL" -j status | jq -r .protocol)"

topo_routed || not_ok "routed topology comes up" "ping across the router failed"

# A namespace afw was never told anything about costs it nothing: no hooks,
# no counts, and status says so.
nsx $NS_C ping -q -c 3 -i 0.05 -W 2 $S4 > /dev/null
check_eq "an unconfigured namespace counts nothing" 0 "$(counter $NS_C ipv4 out packets)"
check_eq "and status says it is not active" false "$("$AFWCTL" -n $NS_C -j status | jq .active)"
# Nor does a request the module refuses: both port ranges make 256 masks
# (past max_masks), refused as a rule and as a file's commit.
check_fails "a rule needing more masks than max_masks is refused" \
	"$AFWCTL" -n $NS_C rule add proto tcp sport 1-65534 dport 1-65534 accept
echo "proto tcp sport 1-65534 dport 1-65534 accept" > /tmp/afw-masks.rules
check_fails "so is a file holding it" "$AFWCTL" -n $NS_C load /tmp/afw-masks.rules
nsx $NS_C ping -q -c 3 -i 0.05 -W 2 $S4 > /dev/null
check_eq "a refused request leaves no hooks: nothing counted" 0 "$(counter $NS_C ipv4 out packets)"
check_eq "and the namespace is still not active" false "$("$AFWCTL" -n $NS_C -j status | jq .active)"
check "configuring the three namespaces" afw_activate $NS_C $NS_R $NS_S
check_eq "a configured namespace is active" true "$("$AFWCTL" -n $NS_C -j status | jq .active)"

init_in=$(counter - ipv4 in packets)

# Baselines, then 20 echo requests of 1000 bytes each way.
c_out=$(counter $NS_C ipv4 out packets)
c_out_b=$(counter $NS_C ipv4 out bytes)
c_in=$(counter $NS_C ipv4 in packets)
r_fwd=$(counter $NS_R ipv4 forward packets)
s_in=$(counter $NS_S ipv4 in packets)
s_out=$(counter $NS_S ipv4 out packets)
check "20 IPv4 pings client -> server succeed" \
	nsx $NS_C ping -q -c 20 -i 0.05 -s 1000 -W 2 $S4
check_ge "client ipv4 out counts the 20 requests" $((c_out + 20)) "$(counter $NS_C ipv4 out packets)"
check_ge "client ipv4 out bytes count 20 x 1028" $((c_out_b + 20 * 1028)) "$(counter $NS_C ipv4 out bytes)"
check_ge "client ipv4 in counts the 20 replies" $((c_in + 20)) "$(counter $NS_C ipv4 in packets)"
check_ge "router ipv4 forward counts both ways" $((r_fwd + 40)) "$(counter $NS_R ipv4 forward packets)"
check_ge "server ipv4 in counts the requests" $((s_in + 20)) "$(counter $NS_S ipv4 in packets)"
check_ge "server ipv4 out counts the replies" $((s_out + 20)) "$(counter $NS_S ipv4 out packets)"
check_eq "the client namespace forwards nothing" 0 "$(counter $NS_C ipv4 forward packets)"

c6_out=$(counter $NS_C ipv6 out packets)
r6_fwd=$(counter $NS_R ipv6 forward packets)
s6_in=$(counter $NS_S ipv6 in packets)
check "20 IPv6 pings client -> server succeed" \
	nsx $NS_C ping -6 -q -c 20 -i 0.05 -W 2 $S6
check_ge "client ipv6 out counts the requests" $((c6_out + 20)) "$(counter $NS_C ipv6 out packets)"
check_ge "router ipv6 forward counts both ways" $((r6_fwd + 40)) "$(counter $NS_R ipv6 forward packets)"
check_ge "server ipv6 in counts the requests" $((s6_in + 20)) "$(counter $NS_S ipv6 in packets)"

# TCP through the router, counted like any other packet: 1 MiB to a sink
# that counts what it got.
r_fwd=$(counter $NS_R ipv4 forward bytes)
got=$(bytes_up $NS_C $NS_S $S4 5202 1048576)
check_eq "1 MiB of TCP through the router: the server received all of it" 1048576 "$got"
check_ge "router forward bytes count every byte the server received" $((r_fwd + got)) \
	"$(counter $NS_R ipv4 forward bytes)"

check_eq "traffic in other namespaces leaves the initial one untouched" \
	"$init_in" "$(counter - ipv4 in packets)"

table=$("$AFWCTL" -n $NS_R status)
check_grep "afwctl status prints a table with the forward row" \
	'^ipv4 +forward +[0-9]+ +[0-9]+$' "$table"
check_grep "afwctl status names the module version" "afw module $AFW_VERSION" "$table"
check "afwctl -j status is valid JSON with 6 counters" \
	test "$("$AFWCTL" -n $NS_R -j status | jq '.counters | length')" = 6

exit $AFW_FAILED
