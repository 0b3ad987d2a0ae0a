#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd's io_uring when its io_uring_enter() fails. strace makes the calls
# fail with EAGAIN (what the kernel says when it has no memory for a
# request) without making them, so that what afwd queued on the ring stays
# queued: a run of failed calls under traffic loses and garbles no verdict
# (every packet of an inspected flow crosses afwd, and every line of an
# echo client comes back), and calls that fail for good stop afwd within
# seconds, where it once spun.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd ring] "
pair_tools="strace jq"
pair_init afwdu 10.196.0
pair_up

ip netns exec $S python3 "$src/tests/tools/tcpecho.py" server $SA 7000 &
wait_until 5 sh -c "ip netns exec $S ss -ltn | grep -q '$SA:7000 '" ||
	{ not_ok "the echo server listens" "see $work"; exit 1; }
check "the chain of docs/afwd.md for TCP 7000, failing closed" \
	pair_chain "-p tcp --dport 7000" "-p tcp --sport 7000"
# Every packet of the flow to afwd: a lost verdict stalls the echo.
cat > $work/policy.conf << 'POLICY'
default deny
prio 10 proto tcp dport 7000 inspect
POLICY

# traced WHEN: afwd under strace, its io_uring_enter() calls numbered WHEN
# (strace's syntax, per thread) failing with EAGAIN; $spid is strace's pid,
# $apid afwd's. strace ends with afwd and passes on its status.
traced() {
	: > $work/afwd.log
	ip netns exec $S strace -f -qq -o /dev/null -e trace=io_uring_enter \
		-e inject=io_uring_enter:error=EAGAIN:when="$1" \
		"$afwd" -q 0 -p $work/policy.conf --ctl $work/afwd.sock 2> $work/afwd.log &
	spid=$!
	wait_until 10 grep -q 'afwd: ready' $work/afwd.log && apid=$(pgrep -P $spid)
}
stats() { "$afwd" --stats --ctl $work/afwd.sock; }
echoes() {
	ip netns exec $C python3 "$src/tests/tools/tcpecho.py" client $SA 7000 "$1" "$2" "$3"
}

# --- Calls 40 to 90 fail, while an echo client talks through afwd.
check "afwd starts under strace, with io_uring" traced 40..90
check_grep "and waits with io_uring" "queues wait with io_uring" "$(cat $work/afwd.log)"
failed() { stats | jq '[.queues[].ring_failed] | add'; }
check_eq "no call has failed yet" 0 "$(failed)"
check "an echo client, every line through afwd, gets every line back over 4 s" \
	echoes 41001 4 $work/lines
check "afwd's calls failed meanwhile: each counted, with the tries after it" \
	test "$(failed)" -ge 51
check "a second client does too" echoes 41002 2 $work/lines2
packets=$(stats | jq '[.queues[].packets] | add')
check "its counts show the clients' packets crossed it" test "$packets" -ge 40
kill $apid 2> /dev/null
wait $spid 2> /dev/null

# --- From call 10 on, every call fails: afwd stops, and says why.
check "afwd starts under strace again" traced 10+
echoes 41003 4 $work/lines3 > /dev/null 2>&1 &
cpid=$!
check "once its calls fail for good, afwd stops within 10 s" \
	wait_until 10 sh -c "! kill -0 $spid 2> /dev/null"
check_grep "and says why" "io_uring has failed for a second .Resource temporarily unavailable.; stopping" \
	"$(cat $work/afwd.log)"
# One that spins on would hold the test up for ever.
kill -KILL $apid 2> /dev/null
wait $spid
check_eq "with a failure status, its own" 1 $?
wait $cpid
check "while it was gone, the queue failed closed: that client's lines did not all come back" \
	test $? -ne 0
