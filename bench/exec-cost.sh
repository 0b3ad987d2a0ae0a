#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a process costs in a test VM: the time of one run of each command a
# scenario spends its time on, and its ratio to /bin/true, measured in the
# same boot. On the debug kernel this is where the VM suite's time goes, so
# scenarios are written to start few processes. Run it as a scenario:
#
#   AFW_SCENARIOS="$PWD/bench/exec-cost.sh" tests/vm/run.sh debug-6.1
#
# and read build/vm/debug-6.1/out/logs/exec-cost.log. AFW_EXEC_RUNS sets the
# runs per command (default 10). The module is not loaded: afwctl's cost is
# its start, entering the namespace and the family's lookup.
. "$AFW_SRC/tests/vm/lib.sh"

runs=${AFW_EXEC_RUNS:-10}
ip netns add "$NS_C" || exit 1
base=

# cost CMD...: the mean time of one run of CMD, in ms, and its ratio to the
# first command measured.
cost() {
	local i t0 t1 ms
	t0=${EPOCHREALTIME/./}
	for ((i = 0; i < runs; i++)); do
		"$@" > /dev/null 2>&1
	done
	t1=${EPOCHREALTIME/./}
	ms=$(( (t1 - t0) / runs / 1000 ))
	: "${base:=$ms}"
	printf 'exec-cost: %6d ms  %5s x  %s\n' "$ms" \
		"$(awk -v a="$ms" -v b="$base" 'BEGIN { printf "%.2f", a / (b ? b : 1) }')" "$*" >&2
}

cost /bin/true
cost bash -c true
cost unshare -m /bin/true
cost ip netns exec "$NS_C" /bin/true
cost nsenter --net=/run/netns/"$NS_C" /bin/true
cost "$AFWCTL" status
cost "$AFWCTL" -n "$NS_C" status
cost ip netns exec "$NS_C" "$AFWCTL" status
cost ip -n "$NS_C" link show
cost ip netns exec "$NS_C" ip link show
cost jq -n 1
cost python3 -c pass
exit 0
