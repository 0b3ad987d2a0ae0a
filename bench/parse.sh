#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ClientHello parse cost, afw against nDPI: runs build/bench/parse in both
# modes under callgrind and prints the instructions (Ir) each spends per
# ClientHello of each real client, and the ratio afw/nDPI. Callgrind counts
# instructions, so one run gives the same numbers every time. Not a test: it
# passes no judgement, the numbers go to docs/performance.md.
#
#   bench/parse.sh [ITERATIONS]    hellos per client and mode, default 100
#   AFW_BENCH_SEGMENT=1448         cut each flight into TCP segments for nDPI
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100}

if ! command -v valgrind > /dev/null || ! pkg-config --exists libndpi ||
   [ ! -e /usr/include/valgrind/callgrind.h ]; then
	echo "bench: needs valgrind and libndpi-dev; run 'sudo scripts/install-deps --bench'" >&2
	exit 1
fi
make -s -C "$src" bench-parse > /dev/null
out=$src/build/bench/parse.out
rm -rf "$out"
mkdir -p "$out"

for mode in afw ndpi; do
	# Counting starts at the first measured loop; each loop dumps its own file.
	if ! valgrind --tool=callgrind --instr-atstart=no \
		--callgrind-out-file="$out/$mode" "$src/build/bench/parse" "$mode" "$n" \
		"$src/tests/fixtures" > "$out/$mode.txt" 2> "$out/$mode.log"; then
		cat "$out/$mode.txt" "$out/$mode.log" >&2
		echo "bench: $mode failed; see $out/$mode.log" >&2
		exit 1
	fi
done

# Ir of the loop named CLIENT in MODE's dumps.
ir() {
	local f
	for f in "$out/$1".*; do
		if grep -qx "desc: Trigger: Client Request: $2" "$f"; then
			sed -n 's/^totals: //p' "$f"
			return
		fi
	done
	echo "bench: no callgrind dump for $1 $2" >&2
	exit 1
}

echo "ClientHello parse cost, instructions per hello (callgrind Ir, $n hellos each)"
[ -z "${AFW_BENCH_SEGMENT:-}" ] ||
	echo "nDPI gets each flight in TCP segments of $AFW_BENCH_SEGMENT bytes"
total_afw=0
total_ndpi=0
count=0
for client in chromium curl openssl python node gnutls; do
	a=$(ir afw "$client")
	d=$(ir ndpi "$client")
	total_afw=$((total_afw + a))
	total_ndpi=$((total_ndpi + d))
	count=$((count + n))
	awk -v c="$client" -v a="$a" -v d="$d" -v n="$n" 'BEGIN {
		printf "%-9s afw %7.0f Ir/hello, nDPI %7.0f Ir/hello, ratio %.3f\n",
		       c, a / n, d / n, a / d }'
done
awk -v a="$total_afw" -v d="$total_ndpi" -v n="$count" 'BEGIN {
	printf "%-9s afw %7.0f Ir/hello, nDPI %7.0f Ir/hello, ratio %.3f\n",
	       "overall", a / n, d / n, a / d }'
