#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading the module while TCP streams through the router,
# with a rule, its flows and the unknown-drop policy in force, neither breaks
# the stream nor leaves anything in the kernel log (the suite checks dmesg
# after every scenario); nor does an rmmod just as a queue's listener dies
# with afw's packets in it. 98-stress does the same on several CPUs at once.
. "$AFW_SRC/tests/vm/lib.sh"

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"

iperf_server $NS_S -B $S4

# forwarded_over N: the router's module has forwarded more than N packets.
forwarded_over() { [ "$(counter $NS_R ipv4 forward packets)" -gt "$1" ]; }
# The stream's packets then take the flow its rule installs; all else drops.
# The rule first, so that the stream never meets the drop without it.
router_rules() {
	"$AFWCTL" -n $NS_R rule add dir forward proto tcp dport 5201 accept &&
	"$AFWCTL" -n $NS_R config set unknown drop
}
rule_flows() {
	[ "$("$AFWCTL" -n $NS_R -j flow list | jq '[.[] | select(.origin == "rule")] | length')" -ge 1 ]
}

# acked: the most bytes the server has acknowledged on one of the stream's
# connections; moving: that grows past $1 (the data connection goes on).
acked() {
	nsx $NS_C ss -tinH state established "( dport = :5201 )" |
		grep -o 'bytes_acked:[0-9]*' | cut -d: -f2 | sort -n | tail -n 1
}
moving() { local a; a=$(acked); [ "${a:-0}" -gt "$1" ]; }

# The rules before the stream: its connections start under them, so their
# first packets install the rule's flows, which let the server's answers
# back. A connection that began before the drop could stall for good: an
# iperf3 control connection waiting on the server sends nothing the rule
# could see, and the server's packets have no flow to pass by.
check "the router drops what its rule does not accept" router_rules
# Not through nsx: $! must be iperf3 itself. It streams until stopped, so
# that however slow the guest runs, every step below meets it running; a
# stream of fixed length could end before the first rmmod and pass.
ip netns exec $NS_C iperf3 -c $S4 -t 600 > /dev/null 2>&1 &
client=$!
wait_until 20 forwarded_over 100
check "the stream runs in a flow of its rule" wait_until 10 rule_flows
before=$(acked)
check "the stream moves data before rmmod" wait_until 10 moving "${before:-0}"
check "rmmod while a TCP stream runs" rmmod afw
check "insmod again while the stream runs" afw_load
# Now the stream meets the rules mid-way: the client's data passes the
# rule and installs the flow, which lets the server's ACKs back.
check "the same rules again" router_rules
wait_until 20 forwarded_over 100
check "the stream runs in a flow of the new module's rule" wait_until 10 rule_flows
before=$(acked)
check "the stream moves data before the second rmmod" wait_until 10 moving "${before:-0}"
check "rmmod a second time while it runs" rmmod afw
before=$(acked)
check "the stream still moves data afterwards" wait_until 10 moving "${before:-0}"
check_ge "it has moved a megabyte" 1000000 "$(acked)"
check "and is still running" kill -0 $client
kill $client
wait $client 2>/dev/null

# Many namespaces come and go while the module is loaded.
check "insmod with traffic running" afw_load
cycles=${AFW_NETNS_CYCLES:-20}
for i in $(seq 1 $cycles); do ip netns add $NSP-x$i; done
for i in $(seq 1 $cycles); do ip netns del $NSP-x$i; done
check "status still answers after $cycles namespaces came and went" "$AFWCTL" status

# rmmod just as a queue's listener dies with afw's packets waiting in it.
# That queue leaves the table at once but lets its packets go from an RCU
# callback; were afw's hooks gone by then, the core would warn on each (the
# kernel-log check after the scenario). The listener never answers: once a
# connection's SYN waits in its queue it closes its socket and unloads afw
# itself, in the same instant, as no rmmod started from a shell could.
log=$(mktemp -u)
on_exit rm -f $log
nsx $NS_R modprobe -q nfnetlink_queue 2> /dev/null
# Not through nsx: $! must be the listener itself.
ip netns exec $NS_R python3 "$AFW_SRC/tests/tools/nfqlisten.py" --verdict none --unload afw \
	$log 7 &
holder=$!
check "a listener that never answers holds queue 7" wait_until 30 test -e $log
check "the router queues unknown flows to it, fail closed" \
	"$AFWCTL" -n $NS_R config set unknown queue queue 7 fail closed
# SYNs until the module goes, however slow the guest.
nsx $NS_C timeout 120 bash -c "exec 3<> /dev/tcp/$S4/7777" 2> /dev/null &
syn=$!
holder_gone() { ! kill -0 $holder 2> /dev/null; }
check "it unloads afw once a SYN waits in its queue" wait_until 120 holder_gone
kill $holder 2> /dev/null
check_grep "and says so" "^unloaded afw" "$(cat $log)"
check "the module is gone" sh -c '! [ -d /sys/module/afw ]'
wait $syn 2> /dev/null
check "insmod again" afw_load
check "the router forwards again with no settings" nsx $NS_C ping -c 1 -W 5 $S4

exit $AFW_FAILED
