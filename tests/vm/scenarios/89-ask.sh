#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ask mode with the module: a flow the policy asks about waits, held in
# the queue, while a person answers with afwctl ask; the question names
# the program the kernel recorded; an answer kept until the program exits,
# for a while, or for good decides that program's later flows without a
# question, and the flows answered are installed in the module.
. "$AFW_SRC/tests/vm/lib.sh"
afwd_work
apid=
wpid=
on_exit 'kill $apid $wpid'

check "insmod afw.ko" afw_load
on_exit afw_unload
topo_routed || not_ok "routed topology comes up" "ping across the router failed"
echo_server $NS_S $S4 5201
for p in a b c; do cp /usr/bin/bash $work/prog-$p; done

cat > $work/policy.conf << POLICY
default allow
ask-default reject
ask-timeout 30
prio 1 dir out proto tcp dport 5201 ask
POLICY
check "the client's unknown flows go to afwd" \
	"$AFWCTL" -n $NS_C config set unknown queue queue 0 fail closed
start_afwd() {
	: > $work/afwd.log
	ip netns exec $NS_C "$AFWD" -q 0 -p $work/policy.conf --ctl $work/afwd.sock -j \
		--module on --answers $work/answers/answers.conf 2> $work/afwd.log &
	apid=$!
	wait_until 60 grep -q 'afwd: ready' $work/afwd.log
}
check "afwd starts with the module" start_afwd

# talk PROG [N]: PROG's N (default 1) TCP echo exchanges, one process, from
# the client's namespace; PROG's pid to $work/PROG.pid first.
talk() {
	nsenter --net=/run/netns/$NS_C timeout 40 $work/$1 -c '
		echo $$ > "$1.pid"
		for i in $(seq "$2"); do
			exec 3<>"/dev/tcp/$3/5201" && echo hi >&3 && read -r r <&3 &&
				[ "$r" = hi ] || exit 1
			exec 3>&-
		done' - $work/$1 "${2:-1}" $S4 2> /dev/null
}
ask() { "$AFWCTL" --afwd $work/afwd.sock ask "$@"; }
ask_q() { ask "$@" > /dev/null; }
# The id of the last question about program $1.
qid() { jq -r "select(.event == \"ask\" and .exe == \"$work/$1\") | .id" $work/watch.out |
	tail -1; }
nq() { jq -r "select(.event == \"ask\" and .exe == \"$work/$1\") | .id" $work/watch.out | wc -l; }
asked() { [ "$(nq "$1")" -ge "$2" ]; }

check_fails "with nobody listening, an asked flow gets the ask-default" talk prog-a
"$AFWCTL" --afwd $work/afwd.sock -j ask watch > $work/watch.out &
wpid=$!
check "a watcher connects" wait_until 10 grep -q '"event":"watching"' $work/watch.out

# Allowed until the program exits: its second connection passes unasked.
talk prog-a 2 &
tpid=$!
check "a question about prog-a reaches the watcher" wait_until 20 asked prog-a 1
q=$(jq -c "select(.id == $(qid prog-a))" $work/watch.out)
check_eq "it names the program, its pid and user, and the destination" \
	"$work/prog-a $(cat $work/prog-a.pid) 0 $S4 5201" \
	"$(jq -r '"\(.exe) \(.pid) \(.uid) \(.dst) \(.dport)"' <<< "$q")"
check "afwctl ask allow ID exit" ask_q allow "$(qid prog-a)" exit
check "prog-a's two connections go through" wait $tpid
check_eq "with one question only" 1 "$(nq prog-a)"
check_eq "the module holds that process's connections as accepted, listed as prog-a's" \
	"accept $work/prog-a" "$("$AFWCTL" -n $NS_C -j flow list |
	jq -r "[.[] | select(.dport == 5201 and .owner.pid == $(cat $work/prog-a.pid)) |
		\"\\(.verdict) \\(.owner.exe)\"] | unique | .[]")"
check_grep "afwd's log gives the answer as the reason" \
	"answered allow until pid $(cat $work/prog-a.pid) exits, this destination, this program.*\"exe\":\"$work/prog-a\"" \
	"$(cat $work/afwd.log)"
talk prog-a &
tpid=$!
check "a new prog-a process is asked again" wait_until 20 asked prog-a 2

# Refused for a while, any host: the program's next flows are refused unasked.
check "afwctl ask reject ID minutes 5 any" ask_q reject "$(qid prog-a)" minutes 5 any
check_fails "that prog-a process is refused" wait $tpid
check_fails "another prog-a process is refused" talk prog-a
check_eq "without a question" 2 "$(nq prog-a)"
talk prog-b &
tpid=$!
check "prog-b is asked about: the answer was prog-a's" wait_until 20 asked prog-b 1
check "afwctl ask allow ID" ask_q allow "$(qid prog-b)"
check "prog-b goes through" wait $tpid

# For good: a rule of the answers file, by program and destination.
talk prog-c &
tpid=$!
check "a question about prog-c" wait_until 20 asked prog-c 1
out=$(ask allow "$(qid prog-c)" always)
check_grep "afwctl ask allow ID always names the rule" \
	"answers.conf: exe $work/prog-c to $S4 proto 6 dport 5201 allow" "$out"
check "prog-c goes through" wait $tpid
kill $wpid
wait $wpid 2> /dev/null
wpid=
kill $apid
wait $apid 2> /dev/null
apid=
check "afwd restarts" start_afwd
check "prog-c goes through by the kept rule, with nobody listening" talk prog-c
check_fails "prog-b gets the ask-default again" talk prog-b
st=$("$AFWD" --stats --ctl $work/afwd.sock)
check_eq "the restarted afwd asked nobody and counts one unheard" "0 1" \
	"$(jq -r '"\(.ask.asked) \(.ask.unheard)"' <<< "$st")"

# afwctl top, in tmux: the module's flow events give each flow's program,
# its end and its bytes; a question answered there with a key.
tm=afw-top-$$
on_exit "tmux kill-session -t $tm"
screen() { tmux capture-pane -p -t $tm; }
shows() { screen | grep -Eq -- "$1"; }
nsenter --net=/run/netns/$NS_C "$AFWCTL" -j flow watch > $work/fw.out 2>&1 &
on_exit "kill $!"
TERM=xterm tmux new-session -d -s $tm -x 220 -y 40 \
	"nsenter --net=/run/netns/$NS_C $AFWCTL --afwd $work/afwd.sock top"
check "afwctl top shows the module's events and watches afwd" \
	wait_until 10 shows "module: events +afwd: watching"
talk prog-b &
tpid=$!
check "prog-b's question appears, naming it" \
	wait_until 20 shows "^> question [0-9]+: $work/prog-b pid [0-9]+ uid 0 wants tcp $S4:5201"
tmux send-keys -t $tm A
check "'A' allows it always: prog-b goes through" wait $tpid
check_grep "and the answers file holds prog-b's rule" "^exe $work/prog-b to $S4 proto 6 dport 5201 allow" \
	"$(cat $work/answers/answers.conf)"
check "the flow is listed as prog-b's, accepted, to the echo server" \
	wait_until 10 shows "^accept +(live|ended) +$work/prog-b +0 +$S4:5201 .*answered allow always"
tmux send-keys -t $tm 2
check "'2' shows the top programs: prog-b among them" wait_until 5 shows "^$work/prog-b +[1-9]"
tmux send-keys -t $tm 1
# A flow that goes on: its rate, from the module's counts about every 5 s.
nsenter --net=/run/netns/$NS_C timeout 40 $work/prog-c -c "exec 3<>/dev/tcp/$S4/5201 &&
	for i in \$(seq 40); do echo x >&3; read -t 5 r <&3; sleep 0.5; done" &
long=$!
check "a live flow of prog-c's shows its rate" \
	wait_until 30 shows "^accept +live +$work/prog-c .* [0-9]+k? +[0-9]+k?/s"
kill $long 2> /dev/null
# A closed flow lingers 10 s in the module, then its end comes with its counts.
check "and as ended, with the bytes it carried" \
	wait_until 60 shows "^accept +ended +$work/prog-b +0 +$S4:5201 +- +unknown +[1-9][0-9]* "
if ! shows "^accept +ended +$work/prog-b"; then
	screen | sed 's/^/# /'
	"$AFWCTL" -n $NS_C -j flow list | jq -c '.[] | select(.dport == 5201)' | sed 's/^/# /'
	grep prog-b $work/afwd.log | tail -3 | sed 's/^/# /'
	sed 's/^/# flow watch: /' $work/fw.out
fi
tmux send-keys -t $tm q
