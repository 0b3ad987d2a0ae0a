#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwctl top, driven in tmux as a person would: it shows afwd's decisions
# as they come (host, l7, the policy line), the top hosts, filters by text
# and verdict, and answers afwd's questions, which curl feels at once.
# Without the module here it says so and shows afwd's side alone;
# tests/vm/scenarios/89-ask.sh drives it with the module's flow events.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host top] "
afwctl=${AFWCTL:-$src/build/afwctl}
pair_tools="curl openssl tmux"
pair_init afwtop 10.196.0
pair_up
pair_tls_server allowed.test b.ask.test c.ask.test
pair_chain "-p tcp --dport 443" "-p tcp --sport 443"
cat > $work/policy.conf << 'POLICY'
default deny
ask-default reject
ask-timeout 30
prio 10 host allowed.test allow
prio 20 host *.ask.test ask
POLICY
check "afwd starts" pair_afwd

fetch() {
	ip netns exec $C curl -sS --max-time 20 --resolve "$1:443:$SA" --cacert $work/cert.pem \
		"https://$1/"
}
tm=afwtop-$$
on_exit_tmux() { tmux kill-session -t $tm 2> /dev/null; pair_cleanup; }
trap on_exit_tmux EXIT
screen() { tmux capture-pane -p -t $tm; }
shows() { screen | grep -Eq -- "$1"; }
key() { tmux send-keys -t $tm "$@"; }

out=$("$afwctl" --afwd $work/afwd.sock top < /dev/null 2>&1)
check_eq "without a terminal, afwctl top refuses" 1 $?
check_grep "and says what to use instead" "needs a terminal.*flow watch.*ask watch" "$out"

tmux new-session -d -s $tm -x 200 -y 40 "$afwctl --afwd $work/afwd.sock top"
check "afwctl top runs in tmux and watches afwd" wait_until 5 shows "afwd: watching"
check "it says there is no module here" shows "module: none"

check_eq "curl to an allowed name passes" ok "$(fetch allowed.test)"
check "the decision appears: accept, its host, tls, the policy line" \
	wait_until 5 shows "^accept .* allowed\.test +tls .*tls, policy line 4"

fetch b.ask.test > $work/b.out 2>&1 &
bpid=$!
check "afwd's question appears in the panel, selected" \
	wait_until 5 shows "^> question 1: \(no program\).* wants tcp $SA:443 host b\.ask\.test \([0-9]+ s\)"
key a
check "'a' answers allow once: the status line says so" \
	wait_until 5 shows "question 1: (allow \\()?answered allow once"
wait $bpid
check_eq "and curl to b.ask.test gets the page" ok "$(cat $work/b.out)"
check "the panel is empty again" wait_until 5 bash -c "! tmux capture-pane -p -t $tm | grep -q 'questions waiting'"
check "the flow shows as accepted, decided by the answer" \
	wait_until 5 shows "^accept .* b\.ask\.test +tls .*answered allow once"

fetch c.ask.test > $work/c.out 2>&1 &
cpid=$!
check "a second question" wait_until 5 shows "^> question 2: .*host c\.ask\.test"
key r
wait $cpid
check_grep "'r' rejects it: curl is reset" "reset" "$(cat $work/c.out)"
check "and the flow shows as rejected" wait_until 5 shows "^reject .* c\.ask\.test"

key 3
check "'3' shows the top hosts" wait_until 3 shows "^HOST +FLOWS +LIVE +REFUSED +BYTES"
check "allowed.test among them, one flow" shows "^allowed\.test +1 "
key 1
key /
tmux send-keys -t $tm -l "allowed"
key Enter
check "'/' filters by text: the header says so" wait_until 3 shows "filter allowed"
check "allowed.test stays" shows "^accept .* allowed\.test"
check_fails "c.ask.test is gone from the view" shows "c\.ask\.test"
key /
key Enter
key v
key v
key v
check "'v' cycles to the rejected flows" wait_until 3 shows "verdict reject"
check "c.ask.test is the one shown" shows "^reject .* c\.ask\.test"
check_fails "allowed.test is not" shows "^accept .* allowed\.test"
key q
check "'q' quits" wait_until 3 bash -c "! tmux has-session -t $tm 2> /dev/null"
exit $AFW_FAILED
