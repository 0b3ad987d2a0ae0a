#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The seed table, one command (make bench): three boots of Debian's 6.1
# kernel, one vCPU each, every setup measured against no firewall in the
# same boot (bench/seed-guest.sh says what each setup is):
#   throughput  -icount shift=0,sleep=off, so ratios repeat: iperf3 1 and 4
#               streams, 64-byte UDP, CPU busy share, ping;
#   latency     -icount shift=0 with idle time in real time (sleep=off
#               distorts anything that waits): new connections a second
#               with p50/p99, TLS handshakes p50/p99, a Chromium page load;
#   scaling     as throughput: 64-byte UDP with 10 to 1M rules, 1k to 1M
#               live flows (and memory per flow), nftables chains of 10
#               to 10k rules, and afwd's memory idle and under floods of
#               10k to 300k new flows (bench/scaling-guest.sh).
# Writes the figures with their ratios as a CSV, the table of ratios in
# Markdown and a plot (gnuplot) to docs/seed/, and prints the table.
#
#   bench/seed.sh [KERNEL_LABEL]    default 6.1
# AFW_BENCH_HALVES (default "throughput latency scaling"): the boots to make;
# AFW_BENCH_SECONDS (3), AFW_BENCH_PINGS (200), AFW_BENCH_SIZES ("10 100000
# 1000000"), AFW_BENCH_RATE_CONNS (2000), AFW_BENCH_HANDSHAKES (1000),
# AFW_BENCH_PAGES (5), AFW_BENCH_SCALE_RULES, _FLOWS, _CHAINS, _FLOODS:
# sizes, for quicker runs; AFW_BENCH_DOCS (docs/seed): where the results go.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-6.1}
. "$src/bench/prepare.sh"
bench_prepare "$label" "seed-$label"
docs=${AFW_BENCH_DOCS:-$src/docs/seed}

# The kernel selftest's NFQUEUE client (make tools builds it from Debian's
# kernel source, linux-source-6.1): the per-packet queue row's peer.
nfq=$src/build/tools/nf-queue
[ -x "$nfq" ] || echo "bench: no nf-queue client (scripts/install-deps --bench); its row is skipped" >&2

failed=0
commit=$(git -C "$src" describe --always --dirty 2> /dev/null || echo unknown)
# A half measured earlier (AFW_BENCH_HALVES names fewer) keeps its figures
# and the commit they were measured at; the table names each.
for half in ${AFW_BENCH_HALVES:-throughput latency scaling}; do
	# On a fresh tree the half's folder is not there yet (boot.sh makes it).
	mkdir -p "$out/$half"
	rm -f "$out/$half/seed-$half.csv" "$out/$half/commit"
	echo "$commit" > "$out/$half/commit.run"
	clock=--icount
	[ "$half" = latency ] && clock=--icount-idle
	job=$src/bench/seed-guest.sh
	[ "$half" = scaling ] && job=$src/bench/scaling-guest.sh
	"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out/$half" \
		-c 1 -m 3072 "$clock" -t 7200 -j "$job" \
		-e "AFW_KO=$src/build/kmod/$label/afw.ko" -e "AFW_BENCH_HALF=$half" \
		-e "AFW_BENCH_NFQUEUE=$nfq" \
		-e "AFW_BENCH_SECONDS=${AFW_BENCH_SECONDS:-3}" \
		-e "AFW_BENCH_PINGS=${AFW_BENCH_PINGS:-200}" \
		-e "AFW_BENCH_SIZES=${AFW_BENCH_SIZES:-10 100000 1000000}" \
		-e "AFW_BENCH_RATE_CONNS=${AFW_BENCH_RATE_CONNS:-2000}" \
		-e "AFW_BENCH_HANDSHAKES=${AFW_BENCH_HANDSHAKES:-1000}" \
		-e "AFW_BENCH_PAGES=${AFW_BENCH_PAGES:-5}" \
		-e "AFW_BENCH_SCALE_RULES=${AFW_BENCH_SCALE_RULES:-10 1000 10000 100000 1000000}" \
		-e "AFW_BENCH_SCALE_FLOWS=${AFW_BENCH_SCALE_FLOWS:-1000 10000 100000 1000000}" \
		-e "AFW_BENCH_SCALE_CHAINS=${AFW_BENCH_SCALE_CHAINS:-10 100 1000 10000}" \
		-e "AFW_BENCH_SCALE_FLOODS=${AFW_BENCH_SCALE_FLOODS:-10000 100000 300000}" ||
		{ echo "bench: the $half boot failed; see $out/$half" >&2; failed=1; }
	mv "$out/$half/commit.run" "$out/$half/commit"
	echo "== $half ($(cat "$out/$half/wall_s" 2> /dev/null || echo ?) s wall)"
done
cat "$out"/*/seed-*.csv > "$out/seed-raw.csv" 2> /dev/null || true
# "COMMIT", or "HALF COMMIT,HALF COMMIT" when the halves differ.
commits=$(for f in "$out"/*/commit; do [ -r "$f" ] && echo "$(basename "$(dirname "$f")") $(cat "$f")"; done)
if [ "$(echo "$commits" | awk '{ print $2 }' | sort -u | wc -l)" -gt 1 ]; then
	commit=$(echo "$commits" | paste -sd, -)
fi
mkdir -p "$docs"
python3 "$src/bench/seed-table.py" "$out/seed-raw.csv" "$docs" "$commit" "$label" || failed=1
cat "$docs/seed.md"
exit "$failed"
