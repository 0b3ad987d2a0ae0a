# SPDX-License-Identifier: GPL-2.0
#
# What the evasion tests (tests/host/afwd-evasion.sh without the module,
# tests/vm/scenarios/96-afwd-told.sh with it) ask of the TLS server
# (tests/tools/tlsserver.py), whose log is $work/server.log.

# parsed NAME: how many times the server parsed a hello naming NAME.
parsed() { grep -c "^sni $1\$" $work/server.log 2> /dev/null; }

# denied CMD...: how many more times the server parsed denied.test during
# CMD (its output in $work/out).
denied() {
	local n0 n1
	n0=$(parsed denied.test)
	"$@" > $work/out 2>&1
	sleep 0.2
	n1=$(parsed denied.test)
	# The caller's evasion_dump, if any, says what the firewall held then.
	if [ "$n1" != "$n0" ] && declare -F evasion_dump > /dev/null; then
		evasion_dump "$*" >&2
	fi
	echo $((n1 - n0))
}

# real_clients: real clients over the client's own stack (the caller's
# client HOW NAME runs tests/tools/helloclient.py): a denied hello is never
# parsed however it is sent, and a big allowed one is answered. afwd runs
# with --max-time 1000, so that the late and paused hellos come past its
# analysis time (the caller's afwd_stat FILTER reads its --stats), and with
# --max-packets 8, fewer than the keepalives sent before a hello: neither
# silence nor keepalives decide anything.
real_clients() {
	local s0
	s0=$(afwd_stat '[.queues[].stalled] | add')
	check_eq "urgent byte, then a denied hello: the server never parses it" 0 \
		"$(denied client oob denied.test)"
	check_eq "a hello a byte per segment, the server acknowledging: never parsed" 0 \
		"$(denied client onebyte denied.test)"
	check_eq "a hello of 16,380 bytes: never parsed" 0 "$(denied client big denied.test)"
	check_eq "a hello 2.3 s after the handshake: never parsed" 0 \
		"$(denied client late denied.test)"
	check_eq "a hello paused 2.3 s after its first 10 bytes: never parsed" 0 \
		"$(denied client pause denied.test)"
	check_eq "an allowed hello paused so is answered" answered \
		"$(client pause allowed.test)"
	check_eq "a hello after 12 keepalives, one a second: never parsed" 0 \
		"$(denied client keepalive denied.test)"
	check_ge "afwd waited out the four silences, undecided" $((s0 + 4)) \
		"$(afwd_stat '[.queues[].stalled] | add')"
	check_eq "the 16,380-byte hello for the allowed name is answered" answered \
		"$(client big allowed.test)"
}
