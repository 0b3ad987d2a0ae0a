#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ask mode on this host's kernel, behind an iptables NFQUEUE chain (marks):
# a flow the policy asks about is held while a person decides with
# afwctl ask, and what they answer is what curl gets from the real TLS
# server. Without the module afwd knows no program, so answers are kept by
# host; tests/vm/scenarios/89-ask.sh answers by program.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host ask] "
afwctl=${AFWCTL:-$src/build/afwctl}
pair_tools="curl openssl jq"
pair_init afwask 10.197.0
pair_up
pair_tls_server allowed.test inspect.test a.ask.test b.ask.test c.ask.test d.ask.test \
	e.ask.test f.ask.test g.ask.test
pair_chain "-p tcp --dport 443" "-p tcp --sport 443"

fetch() {
	ip netns exec $C curl -sS --max-time "${2:-20}" --resolve "$1:443:$SA" \
		--cacert $work/cert.pem "https://$1/"
}
handshakes() { cat $work/server.log 2> /dev/null | grep -c "^handshake $1 "; }
ask() { "$afwctl" --afwd $work/afwd.sock ask "$@"; }
ask_q() { ask "$@" > /dev/null; }
ask_j() { "$afwctl" --afwd $work/afwd.sock -j ask "$@"; }
# The id of the question about host $1, from the watcher's lines.
qid() { jq -r "select(.event == \"ask\" and .host == \"$1\") | .id" $work/watch.out 2> /dev/null |
	tail -1; }
has_q() { [ -n "$(qid "$1")" ]; }
waiting() { ip netns exec $S awk '$1 == 0 { print $3 }' /proc/net/netfilter/nfnetlink_queue; }

cat > $work/policy.conf << 'POLICY'
default deny
ask-default reject
ask-timeout 60
prio 10 host allowed.test allow
prio 15 host inspect.test inspect
prio 20 host *.ask.test ask
POLICY
out=$("$afwd" --check $work/policy.conf 2>&1)
check_eq "afwd --check takes ask, ask-default and ask-timeout" 0 $?
printf 'default deny\nask-default inspect\n' > $work/bad.conf
out=$("$afwd" --check $work/bad.conf 2>&1)
check_grep "and refuses an ask-default that is not a person's answer" \
	"bad.conf:2:13: 'inspect': what an unanswered ask becomes: allow, deny or reject" "$out"

check "afwd starts with an answers file" pair_afwd -j --answers $work/answers/answers.conf

# Nobody listening: ask means the ask-default, at once.
out=$(fetch a.ask.test 2>&1)
check_grep "with nobody listening, an asked flow gets the ask-default (reset)" "reset" "$out"
check_eq "and the server never completed its handshake" 0 "$(handshakes a.ask.test)"
check_grep "the log says why" '"sni":"a.ask.test".*"verdict":"reject".*nobody listening to ask' \
	"$(cat $work/afwd.log)"

"$afwctl" --afwd $work/afwd.sock -j ask watch > $work/watch.out 2> $work/watch.err &
wpid=$!
check "a watcher connects" wait_until 5 grep -q '"event":"watching"' $work/watch.out
check_grep "afwd counts it as listening" '"listeners":1' "$("$afwd" --stats --ctl $work/afwd.sock)"

# Held, then allowed once.
fetch b.ask.test > $work/b.out 2>&1 &
bpid=$!
check "a question about b.ask.test reaches the watcher" wait_until 5 has_q b.ask.test
id=$(qid b.ask.test)
check_eq "its ClientHello is held in the queue, not answered" 1 "$(waiting)"
check_grep "afwctl ask list shows it" "^question $id: \\(no program\\)( uid 0)? wants tcp $SA:443 host b.ask.test; [0-9]+ s left\$" \
	"$(ask list)"
check_eq "ask list -j is JSON" "$id" "$(ask_j list | jq -r .id)"
# Meanwhile other flows go on, many packets of them through afwd in batches:
# none of those verdicts may take the held packet along.
got=$(ip netns exec $C curl -sS --max-time 20 --resolve "inspect.test:443:$SA" \
	--cacert $work/cert.pem -o /dev/null -w '%{size_download}' https://inspect.test/bytes/3000000)
check_eq "an inspected download runs meanwhile" 3000000 "$got"
check_eq "and the question's packet is still held" 1 "$(waiting)"
check_eq "the server has not seen b's hello" 0 "$(handshakes b.ask.test)"
out=$(ask allow "$id")
check_eq "afwctl ask allow ID answers" 0 $?
check_grep "and says how" "question $id: answered allow once" "$out"
wait $bpid
check_eq "curl to b.ask.test gets the page" "ok" "$(cat $work/b.out)"
check_eq "the server completed that handshake" 1 "$(handshakes b.ask.test)"
check "the watcher hears it is done" wait_until 3 grep -q "\"event\":\"done\",\"id\":$id,\"decision\":\"allow\"" $work/watch.out
check_eq "nothing is left waiting in the queue" 0 "$(waiting)"

# Rejected.
fetch c.ask.test > $work/c.out 2>&1 &
cpid=$!
check "a question about c.ask.test" wait_until 5 has_q c.ask.test
check "afwctl ask reject ID" ask_q reject "$(qid c.ask.test)"
wait $cpid
check_grep "curl to c.ask.test is refused by a reset" "reset" "$(cat $work/c.out)"
check_eq "the server never completed that handshake" 0 "$(handshakes c.ask.test)"

# Nobody answers: the ask-default once the ask-timeout is up. It was 60 s
# until here, so that a question outlives a download on a loaded machine;
# a reload makes it 4 s for the questions asked from now on.
sed -i 's/^ask-timeout 60$/ask-timeout 4/' $work/policy.conf
check "a reload sets ask-timeout 4" "$afwd" --reload --ctl $work/afwd.sock
t0=${EPOCHREALTIME/./}
out=$(fetch d.ask.test 2>&1)
t1=${EPOCHREALTIME/./}
check_grep "an unanswered question gets the ask-default (reset)" "reset" "$out"
check_ge "after the ask-timeout (waited $(( (t1 - t0) / 1000 )) ms)" 3900 $(( (t1 - t0) / 1000 ))
check_grep "the log says it was not answered" '"sni":"d.ask.test".*not answered in time' \
	"$(cat $work/afwd.log)"

# For a while: the answer decides the host's later flows without a question.
fetch e.ask.test > $work/e.out 2>&1 &
epid=$!
check "a question about e.ask.test" wait_until 5 has_q e.ask.test
out=$(ask allow "$(qid e.ask.test)" minutes 0 2>&1)
check_eq "minutes 0 is refused" 1 $?
check_grep "with the range" "minutes: 1 to 10080" "$out"
out=$(ask allow "$(qid e.ask.test)" any minutes 5 2>&1)
check_eq "'any' host without a program is refused" 1 $?
check_grep "saying the question names no program" "names no program" "$out"
check "afwctl ask allow ID minutes 5" ask_q allow "$(qid e.ask.test)" minutes 5
wait $epid
check_eq "curl to e.ask.test gets the page" "ok" "$(cat $work/e.out)"
check_eq "a second flow to e.ask.test passes" "ok" "$(fetch e.ask.test)"
check_eq "without a second question" 1 "$(jq -r 'select(.event == "ask" and .host == "e.ask.test") | .id' $work/watch.out | wc -l)"
check_grep "the log names the answer that decided it" \
	'"sni":"e.ask.test".*"verdict":"allow".*answer to question [0-9]* \(allow for a while\)' \
	"$(cat $work/afwd.log)"

# Always: a rule in the answers file, in force through a restart.
fetch f.ask.test > $work/f.out 2>&1 &
fpid=$!
check "a question about f.ask.test" wait_until 5 has_q f.ask.test
out=$(ask allow "$(qid f.ask.test)" always)
check_eq "afwctl ask allow ID always" 0 $?
check_grep "names the rule it kept" "answers.conf: host f.ask.test allow" "$out"
wait $fpid
check_eq "curl to f.ask.test gets the page" "ok" "$(cat $work/f.out)"
check_grep "the answers file holds the rule" "^host f.ask.test allow  # 20" \
	"$(cat $work/answers/answers.conf)"
check_eq "and is afwd's user's" "$(stat -c %U $work/answers)" "$(id -un afw 2> /dev/null || echo root)"

out=$(ask allow 999 2>&1)
check_eq "an answer to no question fails" 1 $?
check_grep "saying so" "no question 999 waits" "$out"
stats=$("$afwd" --stats --ctl $work/afwd.sock)
check_eq "afwd counts the questions asked and answered" "5 4 1" \
	"$(echo "$stats" | jq -r '"\(.ask.asked) \(.ask.answered) \(.ask.timed_out)"')"
check_ge "and the later packets of held flows it dropped" 1 "$(echo "$stats" | jq .ask.dropped)"

# Always, with a policy that no longer loads: the answer decides the flow,
# and the answers file is put back as it was (by rename: nothing left beside).
cp $work/answers/answers.conf $work/answers.before
cp $work/policy.conf $work/policy.good
echo "host y.test alow" >> $work/policy.conf
fetch g.ask.test > $work/g.out 2>&1 &
gpid=$!
check "a question about g.ask.test" wait_until 5 has_q g.ask.test
out=$(ask allow "$(qid g.ask.test)" always 2>&1)
check_eq "always, while the policy does not load, fails" 1 $?
check_grep "naming the policy's line" "policy.conf:[0-9]+:" "$out"
wait $gpid
check_eq "curl to g.ask.test gets the page: answered once" "ok" "$(cat $work/g.out)"
check_eq "the answers file is as it was" "" \
	"$(cmp $work/answers.before $work/answers/answers.conf 2>&1)"
check_eq "and nothing is left beside it" "answers.conf" "$(ls $work/answers)"
mv $work/policy.good $work/policy.conf

kill $wpid
wait $wpid 2> /dev/null
unheard() { "$afwd" --stats --ctl $work/afwd.sock | grep -q '"listeners":0'; }
check "the watcher gone, afwd stops listening" wait_until 3 unheard
kill $apid
wait $apid 2> /dev/null
apid=
check "afwd restarts" pair_afwd -j --answers $work/answers/answers.conf
check_eq "f.ask.test passes by the kept rule, with nobody listening" "ok" "$(fetch f.ask.test)"
check "the log says the answers file's rule allowed it" wait_until 3 grep -q \
	"\"sni\":\"f.ask.test\".*\"verdict\":\"allow\",\"reason\":\"tls, answers line 4\"" $work/afwd.log
out=$(fetch g.ask.test 2>&1)
check_grep "another asked host still gets the ask-default" "reset" "$out"

# A broken answers file: afwd keeps the old policy on reload and says why.
echo "host x.test alow" >> $work/answers/answers.conf
out=$("$afwd" --reload --ctl $work/afwd.sock)
check_eq "a reload with a broken answers file fails" 1 $?
check_grep "naming its line" "answers.conf:[0-9]*:" "$out"
check_eq "and f.ask.test still passes" "ok" "$(fetch f.ask.test)"
exit $AFW_FAILED
