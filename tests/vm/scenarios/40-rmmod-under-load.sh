#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading the module while TCP streams through the router
# neither breaks the stream nor leaves anything in the kernel log (the suite
# checks dmesg after every scenario).
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"

nsx $NS_S iperf3 -s -D -B $S4 > /dev/null
wait_until 10 nsx $NS_S sh -c "ss -ltn | grep -q ':5201'"

# forwarded_over N: the router's module has forwarded more than N packets.
forwarded_over() { [ "$(counter $NS_R ipv4 forward packets)" -gt "$1" ]; }

nsx $NS_C iperf3 -c $S4 -t 6 -J > "$AFW_LOGDIR/iperf3-rmmod.json" &
client=$!
wait_until 10 forwarded_over 100
check "rmmod while a TCP stream runs" rmmod afw
check "insmod again while the stream runs" afw_load
wait_until 10 forwarded_over 100
check "rmmod a second time while it runs" rmmod afw
check "the stream completes" wait $client
bytes=$(jq '.end.sum_received.bytes' "$AFW_LOGDIR/iperf3-rmmod.json")
check_ge "the stream moved data" 1000000 "${bytes%.*}"

# Many namespaces come and go while the module is loaded.
check "insmod with traffic running" afw_load
for i in $(seq 1 20); do ip netns add $NSP-x$i; done
for i in $(seq 1 20); do ip netns del $NSP-x$i; done
check "status still answers after 20 namespaces came and went" "$AFWCTL" status

exit $AFW_FAILED
