#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a forwarded packet of a known flow costs afw's hook, for two or more
# builds of afw.ko in one boot (Debian's 6.1 kernel, one vCPU, -icount
# shift=0,sleep=off: a guest nanosecond is an instruction). For each build,
# through the router of the "Allowed" benchmark with 10 rules and the rule
# that accepts the traffic: 64-byte UDP datagrams a second (iperf3, twice),
# ping's round trip (ping's own and afwstress rtt's), and afw_hook's median
# time a packet under ftrace's function_graph. The tracer adds the same
# cost to every build (about 670 ns: the time it gave a function that
# returned at once), so two builds' difference is the instructions one
# saves. No firewall first and last. Not a test: an A/B for changes to the
# packet path, about 3 minutes of wall time a build. AFW_BENCH_RULES=accept
# loads the accepting rules alone, so that a rule, not a flow, decides
# each packet.
#
#   bench/hookcost.sh KO...    each KO an afw.ko built for Debian's 6.1
#   bench/hookcost.sh          the tree's own build, alone
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/prepare.sh"
bench_prepare 6.1 hookcost
bench_kos "$@"
rm -f "$out/hookcost.txt"
"$src/tests/vm/boot.sh" -k "$img" -i "$out/initrd.gz" -o "$out" -c 1 -m 3072 --icount \
	-t 3600 -j "$src/bench/hookcost-guest.sh" -e "AFW_KO=${kos[0]}" -e "AFW_BENCH_KOS=${kos[*]}" \
	-e "AFW_BENCH_RULES=${AFW_BENCH_RULES:-}"
cat "$out/hookcost.txt"
