#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink family under random and mutated requests (tests/fuzz/nlfuzz.c)
# from three kinds of users, while pings run in the fuzzed namespace:
#   root: two fuzzers at once in a namespace, with CAP_NET_ADMIN over
#     everything; every admin command must succeed at times, and a flush
#     afterwards must leave no rule and no flow;
#   userns: the root of a user namespace in a network namespace it owns
#     (unshare -Urn), the container case: the same must hold;
#   userns-init: the root of a user namespace in the initial network
#     namespace, which it does not own: no admin command may succeed.
# The four fuzzers run at once.
# AFW_NLFUZZ_MESSAGES (default 7000) is the count for each kind;
# AFW_NLFUZZ_SEED fixes the seeds (each run prints its own: root-a's, and
# the others follow it: root-b +1, userns +2, userns-init +3), and
# AFW_NLFUZZ_KINDS (default all four) names the ones to run, to repeat one
# kind's run. The suite checks the kernel log for splats afterwards.
. "$AFW_SRC/tests/vm/lib.sh"
FUZZ=$AFW_SRC/build/tools/nlfuzz
n=${AFW_NLFUZZ_MESSAGES:-7000}
seed=${AFW_NLFUZZ_SEED:-$(( (RANDOM << 15 | RANDOM) ))}

check "nlfuzz is built" test -x "$FUZZ"
check "insmod afw.ko" afw_load
on_exit afw_unload
ip netns add $NS_R
nsx $NS_R ip link set lo up

# Traffic for the hooks (LOCAL_OUT, LOCAL_IN) to judge by whatever rules,
# flows and configuration the fuzzers leave.
nsx $NS_R ping -q -i 0.05 127.0.0.1 > /dev/null 2>&1 &
nsx $NS_R ping -6 -q -i 0.05 ::1 > /dev/null 2>&1 &

# One fuzzer; its output goes to nlfuzz-NAME.log and its messages to the
# summary.
# fuzz NAME SEED COUNT EXPECT [--check-flush] -- CMD-PREFIX...
fuzz() {
	local name=$1 s=$2 count=$3 expect=$4 opts=() rc
	shift 4
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$@" "$FUZZ" --seed "$s" --count "$count" --expect "$expect" "${opts[@]}" \
		> "$AFW_LOGDIR/nlfuzz-$name.log" 2>&1
	rc=$?
	check_eq "nlfuzz $name (seed $s, $count messages, expect $expect) exits 0" 0 $rc
	if [ $rc != 0 ]; then
		grep -E 'VIOLATION|cannot' "$AFW_LOGDIR/nlfuzz-$name.log" | head -n 5 >&2
	fi
}

messages() { sed -n 's/^nlfuzz: seed [0-9]*, \([0-9]*\) messages.*/\1/p' "$AFW_LOGDIR/nlfuzz-$1.log"; }

# All four at once: the kinds share the family and the module's globals,
# and the vCPUs are kept busy (a long run takes half the time on two).
kinds=" ${AFW_NLFUZZ_KINDS:-root-a root-b userns userns-init} "
on() { [[ "$kinds" == *" $1 "* ]]; }
start=$SECONDS
a= b= u= i=
on root-a && { fuzz root-a $seed $(( n / 2 )) admin -- ip netns exec $NS_R & a=$!; }
on root-b && { fuzz root-b $(( seed + 1 )) $(( n - n / 2 )) admin -- ip netns exec $NS_R & b=$!; }
on userns && { fuzz userns $(( seed + 2 )) $n admin --check-flush -- unshare -Urn & u=$!; }
on userns-init && { fuzz userns-init $(( seed + 3 )) $n eperm -- unshare -Ur & i=$!; }
if on root-a && on root-b; then
	wait $a $b
	"$AFWCTL" -n $NS_R rule flush && "$AFWCTL" -n $NS_R flow flush
	check_eq "after both root fuzzers, a flush leaves no rule and no flow" "0 0" \
		"$("$AFWCTL" -n $NS_R -j stats | jq -r '"\(.rules) \(.flows)"')"
	root=$(( $(messages root-a) + $(messages root-b) ))
	check_ge "root sent its messages" "$n" "$root"
fi
wait $a $b $u $i
on userns && check_ge "the user namespace's root sent its messages" "$n" "$(messages userns)"
on userns-init && check_ge "the user namespace's root in the initial netns sent its messages" \
	"$n" "$(messages userns-init)"
check "the family still answers" "$AFWCTL" -n $NS_R status
summary="seconds=$(( SECONDS - start )) seed=$seed"
for k in $kinds; do summary+=" $k=$(messages "$k")"; done
echo "$summary" > "$AFW_LOGDIR/nlfuzz-summary.txt"
grep -h '^nlfuzz:' "$AFW_LOGDIR"/nlfuzz-*.log >&2
echo "nlfuzz: $summary" >&2

exit $AFW_FAILED
