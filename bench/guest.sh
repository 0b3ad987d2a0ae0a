#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the benchmark VM. Writes bench.txt to the result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
exec 2> "$AFW_OUT/bench.log"
res=$AFW_OUT/bench.txt
: > "$res"
secs=${AFW_BENCH_SECONDS:-10}
work=$(mktemp -d)

topo_routed
iperf_server $NS_S -B $S4

# gbps: one iperf3 run from client port 45000 through the router.
gbps() {
	nsx $NS_C iperf3 -c $S4 --cport 45000 -t "$secs" -J > $work/ip.json
	jq '.end.sum_received.bits_per_second / 1e9' $work/ip.json
}
# diag LABEL: what decided the packets so far, for bench.log.
diag() { echo "== $1" >&2; nsx $NS_R "$AFWCTL" -j stats >&2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

gbps > /dev/null	# warm-up
base=$(gbps)
echo "no firewall:            $base Gbit/s" >> "$res"

# Not a firewall-free run under afw's name: stop if the module does not load.
afw_load || { echo "bench: afw.ko did not load (bench.log)" >> "$res"; exit 1; }
rules_file 10 $work/r10
nsx $NS_R "$AFWCTL" load $work/r10
# The data stream's flow is decided; the control connection meets the rules.
nsx $NS_R "$AFWCTL" flow add proto tcp from $C4 to $S4 sport 45000 dport 5201 accept
nsx $NS_R "$AFWCTL" -j status >&2
r10=$(gbps)
diag "10 rules, flow"
echo "afw, 10 rules, flow:    $r10 Gbit/s  ratio $(ratio $r10 $base)" >> "$res"
nsx $NS_R "$AFWCTL" flow flush
r10nf=$(gbps)
diag "10 rules, no flow"
echo "afw, 10 rules, no flow: $r10nf Gbit/s  ratio $(ratio $r10nf $base)" >> "$res"

for n in 100000 1000000; do
	rules_file $n $work/big
	nsx $NS_R "$AFWCTL" rule flush
	settle
	sync; echo 3 > /proc/sys/vm/drop_caches
	m0=$(mem_kb)
	pm0=$(pcpu_meta_kb)
	t0=$(date +%s%N)
	nsx $NS_R "$AFWCTL" load $work/big
	t1=$(date +%s%N)
	m1=$(mem_kb)
	pm1=$(pcpu_meta_kb)
	# A fresh flow for each stream: the cache is stateful, and a flow that
	# carried the last stream takes the next one's SYN for a new connection
	# (the flow goes, restarted, and the stream meets the rules).
	nsx $NS_R "$AFWCTL" flow add proto tcp from $C4 to $S4 sport 45000 dport 5201 accept
	r=$(gbps)
	diag "$n rules, flow"
	echo "afw, $n rules, flow: $r Gbit/s  ratio $(ratio $r $base)  vs 10 rules $(ratio $r $r10)" >> "$res"
	echo "  load $n rules: $(( (t1 - t0) / 1000000 )) ms guest time, $(per_rule "$m0" "$m1" $n)," \
		"$(nproc) CPU; per-CPU allocator bookkeeping $(( (pm1 - pm0) * 1024 / n )) bytes/rule" >> "$res"
done
nsx $NS_R "$AFWCTL" rule flush
nsx $NS_R "$AFWCTL" flow flush

# Memory per flow. afw_flow's kmem_cache may be merged with another of its
# size, and then /proc/slabinfo does not list it: its objects come from
# /sys/kernel/slab/afw_flow (the merged cache's, others' objects included).
# The buckets are the rhashtable's: 8 bytes each, a power of two, at least
# 64, doubled while more than 3/4 full. "All in" is what mem_kb grew by; a
# bucket array kmalloc takes from the page allocator counts under Slab.
nsx $NS_R "$AFWCTL" config set max_flows 200000
slab_objs() { awk '{ print $1 }' /sys/kernel/slab/afw_flow/objects; }
settle
sync; echo 3 > /proc/sys/vm/drop_caches
f0=$(mem_kb)
o0=$(slab_objs)
nsx $NS_R python3 "$AFW_SRC/tests/tools/nlprobe.py" flow-flood 100000 >&2
sleep 1		# the table's last expansion runs from a worker
o1=$(slab_objs)
f1=$(mem_kb)
objsize=$(cat /sys/kernel/slab/afw_flow/object_size)
flows=$(nsx $NS_R "$AFWCTL" -j flow list | jq length)
buckets=$(awk -v n="$flows" 'BEGIN { b = 64; while (n > b / 4 * 3) b *= 2; print b }')
readlink /sys/kernel/slab/afw_flow >&2; grep bucket_table /proc/vmallocinfo >&2
echo "flows: $flows installed; slab objects $o0 -> $o1 of $objsize bytes;" \
	"$(( (objsize * (o1 - o0) + 8 * buckets) / flows )) bytes/flow with $buckets buckets;" \
	"all in $(per_rule "$f0" "$f1" "$flows" | sed 's,/rule,/flow,')" >> "$res"
afw_unload

# nftables with the same meaning: 10 non-matching rules in a forward chain.
if command -v nft > /dev/null; then
	{
		echo "table inet afwbench { chain afwfwd { type filter hook forward priority 10;"
		awk 'BEGIN { for (i = 0; i < 10; i++)
			printf "ip saddr 198.18.0.%d udp dport %d drop\n", i, 1000 }'
		printf '}\n}\n'
	} > $work/nft
	nsx $NS_R nft -f $work/nft || { echo "nftables: ruleset refused" >> "$res"; exit 1; }
	n10=$(gbps)
	echo "nftables, 10 rules:     $n10 Gbit/s  ratio $(ratio $n10 $base)" >> "$res"
	nsx $NS_R nft delete table inet afwbench
	# 100k rules of the same meaning, written as nftables would: one set.
	{
		echo "table inet afwbench { set src { type ipv4_addr . inet_service; elements = {"
		awk 'BEGIN { for (i = 0; i < 100000; i++)
			printf "%s198.%d.%d.%d . %d", i ? ", " : "", 18 + int(i / 65536) % 2,
				int(i / 256) % 256, i % 256, 1000 }'
		echo "} }"
		echo "chain afwfwd { type filter hook forward priority 10; ip saddr . udp dport @src drop; }"
		echo "}"
	} > $work/nft
	nsx $NS_R nft -f $work/nft || { echo "nftables: 100k set refused" >> "$res"; exit 1; }
	n100k=$(gbps)
	echo "nftables, 100k in a set: $n100k Gbit/s  ratio $(ratio $n100k $base)" >> "$res"
	nsx $NS_R nft delete table inet afwbench
fi
