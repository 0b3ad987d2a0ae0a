# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the benchmarks that load rulesets in the guest (guest.sh,
# load-guest.sh): the rules they load and how memory per rule is counted.

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
# settle: waits until mem_kb holds still (within 256 kB) twice running, a
# second apart, for at most a minute: a flushed ruleset is freed by a worker
# after a grace period, and what it frees must not count against what the
# next measurement allocates.
settle() {
	local a b i still=0
	b=$(mem_kb)
	for i in $(seq 60); do
		sleep 1
		a=$b
		b=$(mem_kb)
		if awk -v a="$a" -v b="$b" 'BEGIN { split(a, x); split(b, y)
			for (i = 1; i <= 3; i++) d += x[i] > y[i] ? x[i] - y[i] : y[i] - x[i]
			exit d > 256 }'; then
			still=$((still + 1))
			[ $still -lt 2 ] || { echo "settle: $i s ($b)" >&2; return; }
		else
			still=0
		fi
	done
	echo "settle: memory still moving after 60 s ($b)" >&2
}
# per_rule "S0 P0 V0" "S1 P1 V1" N: bytes per rule, total and by allocator.
per_rule() {
	awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { split(a, x); split(b, y)
		for (i = 1; i <= 3; i++) { d[i] = (y[i] - x[i]) * 1024 / n; t += d[i] }
		printf "%d bytes/rule (slab %d, per-CPU %d, vmalloc %d)", t, d[1], d[2], d[3] }'
}
# rules_file N FILE: N distinct rules that never match the stream, sources
# from the benchmarking range 198.18.0.0/15.
rules_file() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "prio 100 family ipv4 dir forward proto udp from 198.%d.%d.%d/32 dport %d drop\n",
			18 + i / 65536 % 2, i / 256 % 256, i % 256, 1000 + int(i / 131072) }' > "$2"
}
