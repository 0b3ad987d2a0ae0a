#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Long fuzzing: every libFuzzer target of tests/fuzz to AFW_FUZZ_RUNS
# executions (default 10 million), from its committed corpus, with its
# dictionary. "make fuzz-long" runs it; docs/reliability.md keeps the
# figures. Per target it records executions, seconds, executions per
# second, edge coverage (libFuzzer's "cov", and the instrumented edges of
# the binary) and the corpus size, in build/fuzz-long/summary.txt. New
# inputs go to build/fuzz-long/NAME-corpus; crashes to
# build/fuzz-long/NAME-crash-*. Exits 1 if a target crashed or stopped short.
#
#   AFW_FUZZ_RUNS  executions per target (default 10000000)
#   AFW_FUZZ_JOBS  targets fuzzed at once (default 1)
#   AFW_FUZZ_TARGETS  names to run (default: all, e.g. "fuzz_tls fuzz_http")
#   AFW_FUZZ_OUT   the output directory (default build/fuzz-long), so that
#                  two runs of one target can go at once
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
runs=${AFW_FUZZ_RUNS:-10000000}
jobs=${AFW_FUZZ_JOBS:-1}
out=${AFW_FUZZ_OUT:-build/fuzz-long}
mkdir -p "$out"

make -s fuzz || { echo "fuzz-long: the fuzz targets do not build" >&2; exit 1; }
targets=${AFW_FUZZ_TARGETS:-$(cd build/fuzz && ls fuzz_*)}

# one NAME: fuzzes one target to the end and prints its summary line.
one() {
	local name=$1 t=build/fuzz/$1 log=$out/$1.log dict=() start secs rc execs cov ft corp edges
	[ -f "tests/fuzz/${name#fuzz_}.dict" ] && dict=("-dict=tests/fuzz/${name#fuzz_}.dict")
	mkdir -p "$out/$name-corpus"
	start=$(date +%s)
	"$t" "${dict[@]}" -runs="$runs" -print_final_stats=1 -artifact_prefix="$out/$name-crash-" \
		"$out/$name-corpus" "tests/fuzz/corpus/${name#fuzz_}" > "$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	# The last status line: "#N DONE cov: X ft: Y corp: Z/..."
	read -r cov ft corp < <(grep -E '^#[0-9]+' "$log" | tail -n 1 |
		sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/\1 \2 \3/p')
	edges=$(sed -n 's/^INFO: Loaded 1 modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -n 1)
	printf '%-12s rc %s execs %s seconds %s execs_per_s %s cov %s of %s edges ft %s corpus %s\n' \
		"$name" "$rc" "${execs:-0}" "$secs" "$(( ${execs:-0} / (secs > 0 ? secs : 1) ))" \
		"${cov:-?}" "${edges:-?}" "${ft:-?}" "${corp:-?}"
}
export -f one
export out runs

echo "fuzz-long: $runs executions per target, $jobs at a time" >&2
# shellcheck disable=SC2086
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'one {}' | tee "$out/summary.txt"
fail=0
while read -r name _ rc _ execs _; do
	if [ "$rc" != 0 ] || [ "$execs" -lt "$runs" ]; then
		echo "fuzz-long: $name stopped at $execs executions (rc $rc); see $out/$name.log" >&2
		fail=1
	fi
done < "$out/summary.txt"
exit $fail
