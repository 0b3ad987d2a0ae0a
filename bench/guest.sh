#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the benchmark VM. Writes bench.txt to the result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
exec 2> "$AFW_OUT/bench.log"
res=$AFW_OUT/bench.txt
: > "$res"
secs=${AFW_BENCH_SECONDS:-10}
work=$(mktemp -d)

topo_routed
nsx $NS_S iperf3 -s -D -B $S4 > /dev/null
wait_until 10 nsx $NS_S sh -c "ss -ltn | grep -q ':5201'"

# gbps: one iperf3 run from client port 45000 through the router.
gbps() {
	nsx $NS_C iperf3 -c $S4 --cport 45000 -t "$secs" -J > $work/ip.json
	jq '.end.sum_received.bits_per_second / 1e9' $work/ip.json
}
# pcpu_meta_kb: the per-CPU allocator's own bookkeeping, which it vmallocs
# (pcpu_* callers; for memory charged to a cgroup, 8 bytes per 4 of chunk).
pcpu_meta_kb() {
	awk '/unpurged|pcpu_get_vm_areas/ { next } /pcpu_/ { m += $2 } END { printf "%d\n", m / 1024 }' \
		/proc/vmallocinfo
}
# mem_kb: what afw allocates from, in kB, as "slab percpu vmalloc". Per-CPU
# is the chunks' pages (meminfo) and the bookkeeping above; vmalloc is the
# rest; areas freed but not yet purged count nowhere.
mem_kb() {
	awk -v m="$(pcpu_meta_kb)" '/^Slab:/ { s = $2 } /^Percpu:/ { p = $2 }
		END { printf "%d %d ", s, p + m }' /proc/meminfo
	awk '/unpurged|pcpu_/ { next } { v += $2 } END { printf "%d\n", v / 1024 }' /proc/vmallocinfo
}
# per_rule "S0 P0 V0" "S1 P1 V1" N: bytes per rule, total and by allocator.
per_rule() {
	awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { split(a, x); split(b, y)
		for (i = 1; i <= 3; i++) { d[i] = (y[i] - x[i]) * 1024 / n; t += d[i] }
		printf "%d bytes/rule (slab %d, per-CPU %d, vmalloc %d)", t, d[1], d[2], d[3] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# rules_file N FILE: N distinct rules that never match the stream, sources
# from the benchmarking range 198.18.0.0/15.
rules_file() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "prio 100 family ipv4 dir forward proto udp from 198.%d.%d.%d/32 dport %d drop\n",
			18 + i / 65536 % 2, i / 256 % 256, i % 256, 1000 + int(i / 131072) }' > "$2"
}

gbps > /dev/null	# warm-up
base=$(gbps)
echo "no firewall:            $base Gbit/s" >> "$res"

afw_load
rules_file 10 $work/r10
nsx $NS_R "$AFWCTL" load $work/r10
# The data stream's flow is decided; the control connection meets the rules.
nsx $NS_R "$AFWCTL" flow add proto tcp from $C4 to $S4 sport 45000 dport 5201 accept
r10=$(gbps)
echo "afw, 10 rules, flow:    $r10 Gbit/s  ratio $(ratio $r10 $base)" >> "$res"
nsx $NS_R "$AFWCTL" flow flush
r10nf=$(gbps)
echo "afw, 10 rules, no flow: $r10nf Gbit/s  ratio $(ratio $r10nf $base)" >> "$res"
nsx $NS_R "$AFWCTL" flow add proto tcp from $C4 to $S4 sport 45000 dport 5201 accept

for n in 100000 1000000; do
	rules_file $n $work/big
	nsx $NS_R "$AFWCTL" rule flush
	sync; echo 3 > /proc/sys/vm/drop_caches
	m0=$(mem_kb)
	pm0=$(pcpu_meta_kb)
	t0=$(date +%s%N)
	nsx $NS_R "$AFWCTL" load $work/big
	t1=$(date +%s%N)
	m1=$(mem_kb)
	pm1=$(pcpu_meta_kb)
	r=$(gbps)
	echo "afw, $n rules, flow: $r Gbit/s  ratio $(ratio $r $base)  vs 10 rules $(ratio $r $r10)" >> "$res"
	echo "  load $n rules: $(( (t1 - t0) / 1000000 )) ms guest time, $(per_rule "$m0" "$m1" $n)," \
		"$(nproc) CPU; per-CPU allocator bookkeeping $(( (pm1 - pm0) * 1024 / n )) bytes/rule" >> "$res"
done
nsx $NS_R "$AFWCTL" rule flush
nsx $NS_R "$AFWCTL" flow flush

# Memory per flow, from slab accounting: the afw_flow cache's objects, plus
# the bucket array sized at the first insert (8 bytes a bucket, max_flows/2
# buckets rounded up to a power of two).
nsx $NS_R "$AFWCTL" config set max_flows 200000
slab_objs() { awk '$1 == "afw_flow" { print $2 }' /proc/slabinfo; }
o0=$(slab_objs)
nsx $NS_R python3 "$AFW_SRC/tests/tools/nlprobe.py" flow-flood 100000 >&2
o1=$(slab_objs)
objsize=$(awk '$1 == "afw_flow" { print $4 }' /proc/slabinfo)
flows=$(nsx $NS_R "$AFWCTL" -j flow list | jq length)
echo "flows: $flows installed; slab objects $o0 -> $o1 of $objsize bytes;" \
	"$(( (objsize * (o1 - o0) + 8 * 131072) / flows )) bytes/flow with buckets" >> "$res"
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
