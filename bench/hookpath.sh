#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The exact instructions afw's hook runs for one packet of a known flow,
# for one or more builds of afw.ko in one boot (Debian's 6.1 kernel, one
# vCPU, -icount shift=0,sleep=off). The guest carries traffic through the
# router of the "Allowed" benchmark (10 rules and the rule that accepts the
# traffic), 64-byte UDP and then an iperf3 TCP stream; meanwhile gdb, on
# QEMU's gdbstub, stops at afw_hook and single-steps each of three calls
# until it returns. Unlike a tracer's timing this adds nothing to what it
# counts, so two builds differ by exactly the instructions one saves; the
# listing of every step, function by function, is kept for reading.
# Not a test: about 3 minutes of wall time a build. AFW_BENCH_FUNC steps
# another function than afw_hook (nf_hook_slow: every hook of the packet's
# way, with netfilter's own part); AFW_BENCH_PHASES="udp" or "tcp" takes
# one traffic; AFW_BENCH_RULES=accept loads the accepting rules alone,
# so that a rule, not a flow, decides each packet.
#
#   bench/hookpath.sh KO...    each KO an afw.ko built for Debian's 6.1
#   bench/hookpath.sh          the tree's own build, alone
#
# Prints, for each build and traffic, the three calls' instruction counts
# and each function's share of the first call; the listings are in
# build/bench/hookpath/steps-N.txt.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
command -v gdb > /dev/null || { echo "hookpath: gdb is not installed (install-deps --bench)" >&2; exit 1; }
. "$src/bench/prepare.sh"
bench_prepare 6.1 hookpath
bench_kos "$@"
phases=${AFW_BENCH_PHASES:-udp tcp}
func=${AFW_BENCH_FUNC:-afw_hook}
rm -f "$out"/ready.* "$out"/done.* "$out"/steps-*.txt "$out/hookpath.txt"
sock=$(mktemp -u /tmp/afw-gdb.XXXXXX)
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out" -c 1 -m 3072 --icount \
	-t 3600 -g "$sock" -j "$src/bench/hookpath-guest.sh" -e "AFW_KO=${kos[0]}" \
	-e "AFW_BENCH_KOS=${kos[*]}" -e "AFW_BENCH_PHASES=$phases" \
	-e "AFW_BENCH_RULES=${AFW_BENCH_RULES:-}" > "$out/boot.log" 2>&1 &
vm=$!
trap 'kill $vm 2> /dev/null || true; rm -f "$sock"' EXIT

# The guest says ready.N (its kallsyms in it) when the traffic of step N
# flows, and waits for done.N.
n=0
for ko in "${kos[@]}"; do
	for phase in $phases; do
		until [ -e "$out/ready.$n" ]; do
			kill -0 $vm 2> /dev/null || { echo "hookpath: the VM ended early" >&2; exit 1; }
			sleep 2
		done
		if [ -s "$out/ready.$n" ]; then
			AFW_STEP_SYMS=$out/ready.$n AFW_STEP_OUT=$out/steps-$n.txt AFW_STEP_SOCK=$sock AFW_STEP_FUNC=$func \
				timeout 600 gdb -q -batch -x "$src/bench/hookpath.py" > "$out/gdb-$n.log" 2>&1 ||
				echo "hookpath: gdb failed, see $out/gdb-$n.log" >&2
			{
				echo "$ko, $phase, $func: $(grep -h '^# call' "$out/steps-$n.txt" 2> /dev/null |
					awk '{ print $4 }' | paste -sd' ') instructions a call"
				awk '$1 == 0 { split($2, f, "+"); n[f[1]]++; if (!(f[1] in o)) o[f[1]] = ++k }
					END { for (x in o) l[o[x]] = x
						for (i = 1; i <= k; i++) printf "  %-28s %d\n", l[i], n[l[i]] }' \
					"$out/steps-$n.txt" 2> /dev/null
			} >> "$out/hookpath.txt"
		else
			echo "$ko, $phase: $(cat "$out/ready.$n.why" 2> /dev/null || echo skipped)" >> "$out/hookpath.txt"
		fi
		touch "$out/done.$n"
		n=$((n + 1))
	done
done
wait $vm || true
cat "$out/hookpath.txt"
