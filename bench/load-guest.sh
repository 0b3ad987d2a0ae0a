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

# Microseconds of guest time, from bash itself: a "$(date)" forks and
# execs, and under -icount with sleep=off an exec is not free (below).
now() { local t=$EPOCHREALTIME; echo "${t/./}"; }
ms() { echo $(( ($2 - $1) / 1000 )); }

# stage PROGRAM DIR: the program, its libraries and its loader copied to
# DIR, on the guest's tmpfs; prints how to run it from there. With sleep=off
# the guest's clock jumps to its next timer whenever the guest waits on the
# host, and every open() over 9p waits on the host, cached or not: an
# exec of a program and its libraries from the 9p root cost 0.2-0.4 s of
# guest time, the same for 10 rules as for a million, and none of it
# afwctl's work.
stage() {
	local lib interp
	mkdir -p "$2"
	cp "$1" "$2/"
	interp=$(readelf -l "$1" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	cp "$interp" "$2/ld.so"
	for lib in $(ldd "$1" | awk '$3 ~ /^\// { print $3 }'); do
		cp "$lib" "$2/"
	done
	echo "$2/ld.so --library-path $2 $2/$(basename "$1")"
}

afw_load || { echo "bench: afw.ko did not load (load.log)" >> "$res"; exit 1; }
ip netns add $ns
on_exit ip netns del $ns
for n in ${AFW_BENCH_LOAD_RULES:-100000 1000000}; do
	rules_file "$n" $work/rules
	i=0
	for ctl in ${AFW_BENCH_AFWCTL_OLD:-} "$AFWCTL"; do
		i=$((i + 1))
		run=$(stage "$ctl" $work/bin$i)
		settle
		sync; echo 3 > /proc/sys/vm/drop_caches
		$run check $work/rules > /dev/null 2>&1
		# The output goes to the tmpfs too: load.log is over 9p.
		t0=$(now)
		$run check $work/rules > $work/check.out 2>&1 ||
			{ echo "bench: $ctl check failed" >> "$res"; exit 1; }
		t1=$(now)
		m0=$(mem_kb)
		t2=$(now)
		$run -n $ns load $work/rules > $work/load.out 2>&1 ||
			{ echo "bench: $ctl load failed" >> "$res"; exit 1; }
		t3=$(now)
		m1=$(mem_kb)
		cat $work/check.out $work/load.out >&2
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
