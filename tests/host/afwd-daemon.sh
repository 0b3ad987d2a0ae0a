#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd as a daemon, without the module (this kernel cannot load it): the
# marks it sets, its control socket, its privileges, its log when nobody
# reads it, and what a reload does to flows it has decided. Real curl and
# a real TLS server on a namespace pair, behind the chain of docs/afwd.md.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd daemon] "
pair_tools="curl openssl conntrack jq"
pair_init afwdd 10.198.0
pair_up
# afwd reads its policy as the user afw once it runs (scripts/install-deps
# and make install create the user).
getent passwd afw > /dev/null || { not_ok "the user afw exists" "run 'make deps'"; exit 1; }
chmod 755 $work

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=afw-test \
	-addext "subjectAltName=DNS:allowed.test,DNS:denied.test,DNS:x.rej.test,DNS:long.test" \
	-keyout $work/key.pem -out $work/cert.pem 2> /dev/null ||
	{ not_ok "a test certificate" "openssl req failed"; exit 1; }
ip netns exec $S python3 "$src/tests/tools/tlsserver.py" $SA 443 $work/cert.pem $work/key.pem \
	$work/server.log &
wait_until 5 ip netns exec $S sh -c "ss -ltn | grep -q ':443 '"

# --- Hints that name the real cause.
check_eq "-V prints the version" "afwd $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")" \
	"$("$afwd" -V)"
out=$("$afwd" -q 0 -p $work/missing.conf --ctl $work/hint.sock 2>&1)
check_eq "a missing policy file: exit 1" 1 $?
check_grep "and the hint points at -p and make install" "with -p FILE; 'make install'" "$out"
printf 'default allow\n' > $work/hint.conf
chmod 644 $work/hint.conf
mkdir -m 777 $work/nobody
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	--bounding-set=-all "$afwd" -q 0 -p $work/hint.conf --ctl $work/nobody/hint.sock 2>&1)
check_eq "without CAP_NET_ADMIN: exit 1" 1 $?
check_grep "and the hint says CAP_NET_ADMIN, not another program" \
	"queue 0: opening the queue needs CAP_NET_ADMIN" "$out"

fetch() {
	ip netns exec $C curl -sS --max-time 4 --resolve "$1:443:$SA" --cacert $work/cert.pem \
		"https://$1/${2:-}"
}
handshakes() { grep -c "^handshake $1 " $work/server.log 2> /dev/null; }

cat > $work/policy.conf << 'POLICY'
default deny
prio 10 host allowed.test,long.test l7 tls allow
prio 20 host *.rej.test reject
POLICY
chmod 644 $work/policy.conf

# start_afwd [ARG...]: afwd on queue 0 in the server's namespace, log in
# $work/afwd.log; waits until it is ready.
start_afwd() {
	: > $work/afwd.log
	ip netns exec $S "$afwd" -q 0 -p $work/policy.conf --ctl $work/run/afwd.sock "$@" \
		2> $work/afwd.log &
	apid=$!
	wait_until 5 grep -q 'afwd: ready' $work/afwd.log || {
		cat $work/afwd.log >&2
		ip netns exec $S cat /proc/net/netfilter/nfnetlink_queue >&2
		ps -ef | grep -v grep | grep "$afwd" >&2
		return 1
	}
}
stop_afwd() {
	[ -n "$apid" ] && kill "$apid" 2> /dev/null && wait "$apid" 2> /dev/null
	apid=
}
# ctmarks: the conntrack marks of the server's port-443 flows, sorted.
ctmarks() {
	ip netns exec $S conntrack -L -p tcp --dport 443 2> /dev/null |
		sed -n 's/.* mark=\([0-9]*\).*/\1/p' | sort -n | uniq | tr '\n' ' '
}

# --- --mark-base: the verdict is added to the base, never OR'd into it.
out=$("$afwd" --mark-base 0xfd 2>&1)
check_eq "--mark-base 0xfd is refused: reject would be 0x100" 2 $?
check_grep "and the message gives the range" "N is 0 to 0xfc" "$out"
pair_mark_base=2
check "a chain for marks 3, 4 and 5 (base 2)" pair_chain "-p tcp --dport 443" "-p tcp --sport 443"
check "afwd starts with --mark-base 2" start_afwd -j --mark-base 2
check_eq "base 2: an allowed name passes" ok "$(fetch allowed.test)"
check_eq "base 2: a denied name fails" "" "$(fetch denied.test 2> /dev/null)"
out=$(fetch x.rej.test 2>&1)
check_grep "base 2: a rejected name gets a reset, not the page" "reset" "$out"
check_eq "and its server never completed a handshake" 0 "$(handshakes x.rej.test)"
check_eq "conntrack holds 3 (allow), 4 (deny) and 5 (reject)" "3 4 5 " "$(ctmarks)"
stop_afwd
ip netns exec $S conntrack -F 2> /dev/null
pair_mark_base=0xa0
pair_chain "-p tcp --dport 443" "-p tcp --sport 443"

# --- Privileges: started as root, afwd runs as afw with CAP_NET_ADMIN alone,
# in every thread, and cannot gain more.
afw_uid=$(id -u afw)
afw_gid=$(id -g afw)
want="Uid: $afw_uid $afw_uid $afw_uid $afw_uid Gid: $afw_gid $afw_gid $afw_gid $afw_gid"
want+=" Groups: $afw_gid CapInh: 0000000000000000 CapPrm: 0000000000001000"
want+=" CapEff: 0000000000001000 CapBnd: 0000000000001000 CapAmb: 0000000000000000"
want+=" NoNewPrivs: 1"
# creds PID: one line per thread, the fields above.
creds() {
	local t
	for t in /proc/$1/task/*; do
		grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' $t/status |
			tr -s ' \t\n' ' ' | sed 's/ $//'
		echo
	done
}
check "afwd starts as root" start_afwd -j
check_ge "it runs its threads: main, worker, log writer" 3 "$(creds $apid | wc -l)"
check_eq "every thread runs as afw with CAP_NET_ADMIN alone and no_new_privs" "$want" \
	"$(creds $apid | sort -u)"
check_eq "as afw, it still decides: the allowed name passes" ok "$(fetch allowed.test)"
check_eq "and the denied name fails" "" "$(fetch denied.test 2> /dev/null)"
# A reload reads the file as afw; user names in it resolve through NSS.
cp $work/policy.conf $work/policy.orig
{ echo "prio 1 host denied.test allow"; echo "prio 2 uid nobody,afw deny"; cat $work/policy.orig; } \
	> $work/policy.conf
out=$("$afwd" --reload --ctl $work/run/afwd.sock)
check_grep "a reload as afw works, user names and all" "^ok $work/policy.conf: 4 rules;" "$out"
check_eq "and the new policy decides: the denied name now passes" ok "$(fetch denied.test)"
chmod 600 $work/policy.conf
out=$("$afwd" --reload --ctl $work/run/afwd.sock)
check_grep "a policy file afw cannot read fails the reload, saying why" \
	"^error .*policy.conf.*Permission denied.*the old policy stays" "$out"
check_eq "and the policy in force stays" ok "$(fetch denied.test)"
cp $work/policy.orig $work/policy.conf
chmod 644 $work/policy.conf
"$afwd" --reload --ctl $work/run/afwd.sock > /dev/null

# --- The control socket: mode 0660, group afw, for root and that group only.
check_eq "the control socket is 0660, group afw" "660 afw" "$(stat -c '%a %G' $work/run/afwd.sock)"
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$afwd" --stats --ctl $work/run/afwd.sock 2>&1)
check_eq "an unprivileged user is refused" 1 $?
check_grep "with a message that says who may ask" "Permission denied.*group afw" "$out"
out=$(setpriv --reuid=nobody --regid=nogroup --groups=$afw_gid \
	"$afwd" --stats --ctl $work/run/afwd.sock 2>&1)
check_grep "a member of the group afw gets afwd --stats" '"queues":\[' "$out"
out=$(timeout 5 "$afwd" -q 1 -p $work/policy.conf --ctl $work/run/afwd.sock 2>&1)
check_grep "a second afwd on the same socket refuses to start" "another afwd answers" "$out"
check_eq "and the first one still answers" ok "$(fetch allowed.test)"
stop_afwd
check "afwd removes its socket when it stops (as afw, in the directory it made)" \
	test ! -e $work/run/afwd.sock
# Never wider, not for a moment: under strace, every chmod afwd might make
# is held for 1.5 s, with umask 000, while the socket is looked at as soon
# as it appears.
: > $work/afwd.log
(umask 000; exec ip netns exec $S strace -f -qq -o /dev/null --seccomp-bpf \
	-e trace=chmod,fchmod,fchmodat -e inject=chmod,fchmod,fchmodat:delay_enter=1500000 \
	"$afwd" -q 0 -p $work/policy.conf --ctl $work/run/afwd.sock 2> $work/afwd.log) &
spid=$!
wait_until 5 test -S $work/run/afwd.sock
check_eq "under umask 000, the socket is born 0660, group afw" "660 afw" \
	"$(stat -c '%a %G' $work/run/afwd.sock)"
wait_until 5 grep -q 'afwd: ready' $work/afwd.log
# strace's only child is afwd; strace ends with it.
tpid=$(pgrep -P $spid)
kill $tpid 2> /dev/null
wait_until 5 sh -c "! kill -0 $tpid 2> /dev/null" || kill -KILL $tpid $spid 2> /dev/null
wait $spid 2> /dev/null

# --- A stopped afwd lets go of its queue at once: the next binds it at
# once (io_uring's deferred teardown used to keep it bound for a while).
restarts=0
for i in $(seq 10); do
	start_afwd 2> /dev/null || break
	stop_afwd
	restarts=$i
done
check_eq "afwd stopped and started again 10 times, each binding the queue at once" 10 $restarts

# --- A reload revokes: a long-lived connection to an allowed name stops
# passing once a reloaded policy denies the name. Without the module, the
# verdict is the flow's conntrack mark: afwd rewrites it.
pongs() { grep -c '^pong' $work/ping.log; }
check "afwd starts" start_afwd -j
: > $work/ping.log
ip netns exec $C python3 "$src/tests/tools/tlsping.py" $SA 443 long.test $work/cert.pem \
	$work/ping.log &
ppid=$!
pongs_ge() { [ "$(pongs)" -ge "$1" ]; }
check "a long-lived TLS connection to long.test passes" wait_until 10 pongs_ge 5
port=$(sed -n 's/^port //p' $work/ping.log)
flowmark() {
	ip netns exec $S conntrack -L -p tcp --sport "$port" --dport 443 2> /dev/null |
		sed -n 's/.* mark=\([0-9]*\).*/\1/p'
}
check_eq "its conntrack mark says allow (0xa1)" 161 "$(flowmark)"
{ echo "prio 1 host long.test deny"; cat $work/policy.conf; } > $work/deny.conf
cp $work/policy.conf $work/policy.orig
cp $work/deny.conf $work/policy.conf
out=$("$afwd" --reload --ctl $work/run/afwd.sock)
check_grep "the reload says a recorded flow changed verdict" "^ok .*; 1 recorded flow changed verdict" \
	"$out"
check_grep "and the log names it" \
	"afwd: reload: tcp $CA:$port -> $SA:443 host=\"long.test\": allow -> deny" \
	"$(cat $work/afwd.log)"
check_eq "conntrack now holds deny (0xa2) for it" 162 "$(flowmark)"
sleep 1.5
n=$(pongs)
sleep 2
check_eq "and the connection stopped passing: no echo for 2 s" "$n" "$(pongs)"
check_grep "its pings are lost" "^lost" "$(tail -n 3 $work/ping.log)"
check_eq "afwd --stats counts the rewritten mark" 1 \
	"$("$afwd" --stats --ctl $work/run/afwd.sock | jq '[.queues[].ct_updated] | add')"
check_eq "a new connection to the name is denied too" "" "$(fetch long.test 2> /dev/null)"
check_eq "while other names still pass" ok "$(fetch allowed.test)"
kill $ppid 2> /dev/null
wait $ppid 2> /dev/null
cp $work/policy.orig $work/policy.conf
stop_afwd

# --- Names with a quote, a newline and a forged line, an escape sequence,
# an overlong NUL and a NUL, sent by a real client: the daemon's log holds
# one record per flow, in text and in JSON, and nothing raw.
evil() {
	ip netns exec $C python3 "$src/tests/tools/evil_names.py" send $SA 443 sni
	ip netns exec $C python3 "$src/tests/tools/evil_names.py" send $SA 443 alpn
}
# The decision log's time: RFC 3339, UTC, milliseconds.
TIME_RE='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z'
raw_bytes() { LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f-\xff]' "$1"; }
for mode in text json; do
	check "afwd starts, $mode log" start_afwd $([ $mode = json ] && echo -j)
	evil
	stop_afwd
	# Only these two flows: a client's earlier, abandoned hellos may still be retransmitted.
	grep -e 'evil\.afw\.test' -e 'malformed ClientHello: SNI' $work/afwd.log > $work/evil.$mode
	check_eq "$mode log: one line per flow" 2 "$(wc -l < $work/evil.$mode)"
	check_eq "$mode log: no control or high byte" 0 "$(raw_bytes $work/afwd.log)"
	check_eq "$mode log: no line forged by a name" 0 "$(grep -c '^afwd: forged' $work/afwd.log)"
done
check_grep "text log: the refused SNI is not echoed" \
	"^afwd: $TIME_RE tcp $CA:[0-9]+ -> $SA:443 tls giveup=malformed( uid=[0-9]+)?: deny \(malformed ClientHello" \
	"$(cat $work/evil.text)"
check_grep "text log: each ALPN value one quoted field, quote and controls escaped" \
	' sni="evil.afw.test" alpn="h2\\"x","a\\x0aafwd: forged line","\\x1b\[31mred","\\xc0\\x80",' \
	"$(cat $work/evil.text)"
check_eq "JSON log: every line is one object" 2 "$(jq -c . $work/evil.json | wc -l)"
check_eq "text log: each decision starts with today's UTC time" 2 \
	"$(grep -cE "^afwd: $(date -u +%F)T[0-9:]{8}\.[0-9]{3}Z (tcp|udp) " $work/evil.text)"
check_eq "JSON log: each decision's first field is today's UTC time" 2 \
	"$(grep -cE "^\{\"time\":\"$(date -u +%F)T[0-9:]{8}\.[0-9]{3}Z\",\"proto\":" $work/evil.json)"
check_grep "JSON log: the ALPN values escaped per RFC 8259" \
	'"alpn":\["h2\\"x","a\\nafwd: forged line","\\u001b\[31mred","\\u00c0\\u0080",' \
	"$(cat $work/evil.json)"

# --- The log must never stop the packets: stderr is a pipe nobody reads.
# 3000 UDP flows are decided while the pipe (4 KiB) is full; each decision
# makes a log record, the writer is stuck, so records are dropped, counted,
# and the datagrams still reach the server.
flood() {
	ip netns exec $C python3 -c 'import socket, sys
for port in range(int(sys.argv[2]), int(sys.argv[2]) + int(sys.argv[3])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", port))
    s.sendto(b"x", (sys.argv[1], 5353))
    s.close()' $SA "$1" "$2"
}
received() { awk -v lo="$1" -v hi="$2" '$1 >= lo && $1 < hi { n[$1] = 1 } END { print length(n) }' \
	$work/udp.log; }
# all_received FIRST COUNT: every one of COUNT flows from port FIRST on reached the server.
all_received() { [ "$(received "$1" $(($1 + $2)))" = "$2" ]; }
ip netns exec $S python3 "$src/tests/tools/udpsink.py" $SA 5353 $work/udp.log &
ip netns exec $S iptables -A INPUT -p udp --dport 5353 -j afw
{ echo "prio 5 proto udp dport 5353 allow"; cat $work/policy.conf; } > $work/udp.conf
mkfifo $work/stderr
exec 7<> $work/stderr
python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
' $work/stderr
ip netns exec $S "$afwd" -q 0 -p $work/udp.conf --ctl $work/run/afwd.sock -j 2> $work/stderr &
apid=$!
stats() { "$afwd" --stats --ctl $work/run/afwd.sock 2> /dev/null; }
check "afwd starts with its stderr on a pipe nobody reads" wait_until 5 eval "stats > /dev/null"
flood 20000 3000
check "every datagram of 3000 new flows reaches the server while the log is stuck" \
	wait_until 20 all_received 20000 3000
check_eq "afwd decided them all" 3000 "$(stats | jq '[.queues[].allow] | add')"
check_ge "the log records it could not write were dropped and counted" 2000 \
	"$(stats | jq .log_dropped)"
check_eq "a TLS flow is still decided: the allowed name passes" ok "$(fetch allowed.test)"
cat <&7 > $work/drained &
cpid=$!
check "once stderr is read again, the log says how many records it dropped" \
	wait_until 5 grep -q 'log records dropped' $work/drained
kill $cpid
wait $cpid 2> /dev/null
# Stuck again, then stopped: the stop does not wait for stderr.
flood 30000 1000
wait_until 10 all_received 30000 1000
kill -TERM $apid
check "afwd stops within 5 s of SIGTERM with its stderr stuck" \
	wait_until 5 sh -c "! kill -0 $apid 2> /dev/null"
kill -KILL $apid 2> /dev/null
wait $apid 2> /dev/null
apid=
exec 7<&-

exit $AFW_FAILED
