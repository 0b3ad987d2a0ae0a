#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the load benchmark VM: for each ruleset size, how long afwctl takes
# to parse the file alone ("afwctl check"), to load it whole ("afwctl load",
# one transaction), and the memory per rule the load leaves. Guest time.
# AFW_BENCH_AFWCTL_OLD names a second afwctl to measure the same way, in
# the same boot, before ours. Writes load.txt to the result share.
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
exec 2> "$AFW_OUT/load.log"
res=$AFW_OUT/load.txt
: > "$res"
work=$(mktemp -d)
ns=afw-bench-load

ms() { echo $(( ($2 - $1) / 1000000 )); }

afw_load || { echo "bench: afw.ko did not load (load.log)" >> "$res"; exit 1; }
ip netns add $ns
on_exit ip netns del $ns
for n in ${AFW_BENCH_LOAD_RULES:-100000 1000000}; do
	rules_file "$n" $work/rules
	for ctl in ${AFW_BENCH_AFWCTL_OLD:-} "$AFWCTL"; do
		settle
		sync; echo 3 > /proc/sys/vm/drop_caches
		# The file and the program come over 9p: read them now, or
		# their reading, which waits on the host, is timed too.
		cat $work/rules "$ctl" > /dev/null
		"$ctl" check $work/rules > /dev/null 2>&1
		t0=$(date +%s%N)
		"$ctl" check $work/rules >&2 || { echo "bench: $ctl check failed" >> "$res"; exit 1; }
		t1=$(date +%s%N)
		m0=$(mem_kb)
		t2=$(date +%s%N)
		"$ctl" -n $ns load $work/rules || { echo "bench: $ctl load failed" >> "$res"; exit 1; }
		t3=$(date +%s%N)
		m1=$(mem_kb)
		echo "$n rules, $ctl: load $(ms "$t2" "$t3") ms (parse alone $(ms "$t0" "$t1") ms)," \
			"$(per_rule "$m0" "$m1" "$n"), $(nproc) CPU" >> "$res"
		"$ctl" -n $ns rule flush
	done
done
# AFW_BENCH_LOAD_PERF=1: one more load of the last size under perf (cpu-clock,
# every CPU, call graphs), its report by symbol to load-perf.txt: where the
# time goes, afwctl's and the kernel's. Not timed: perf's own cost is in it.
if [ "${AFW_BENCH_LOAD_PERF:-0}" = 1 ] && command -v perf > /dev/null; then
	settle
	perf record -q -a -g -o $work/perf.data -- "$AFWCTL" -n $ns load $work/rules 2>> "$AFW_OUT/load.log"
	# Flat, by symbol: the call graphs of a guest without frame pointers
	# in libc say little, and their lines crowded the symbols out.
	perf report -i $work/perf.data --stdio --no-children -g none --percent-limit 0.2 \
		--sort comm,dso,sym 2>> "$AFW_OUT/load.log" |
		grep -E '^ +[0-9]' | head -80 > "$AFW_OUT/load-perf.txt"
	"$AFWCTL" -n $ns rule flush
fi
