#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The event log: afwd --events stores each decision in SQLite, afwctl log
# reads them back (filters, JSON, bad input), and the database keeps to its
# age and size. afwd on this host's kernel, behind an iptables NFQUEUE rule
# in a network namespace, deciding real curl connections to a TLS server.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host events] "
afwctl=${AFWCTL:-$src/build/afwctl}
pair_tools="curl openssl"
pair_init afwev 10.197.0
pair_up

pair_tls_server allowed.test denied.test
fetch() {
	ip netns exec $C curl -sS --max-time 4 --resolve "$1:443:$SA" --cacert $work/cert.pem \
		"https://$1/"
}
chain() { pair_chain "-p tcp --dport 443" "-p tcp --sport 443" "$1"; }
check "iptables NFQUEUE chain in the server namespace" chain ""
cat > $work/policy.conf << 'POLICY'
default deny
prio 10 host allowed.test l7 tls allow
POLICY

db=$work/events.db
start_afwd() { pair_afwd --events $db "$@"; }
stop_afwd() { kill $apid; wait $apid; }
# rows: the events stored, by SQLite's own reading of the file.
rows() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM events").fetchone()[0])' $db; }

check "afwd starts with --events" start_afwd
check_grep "and says where the decisions go" "decisions are stored in $db" "$(cat $work/afwd.log)"
check_eq "an allowed name passes" ok "$(fetch allowed.test)"
check_eq "a denied name does not" "" "$(fetch denied.test 2> /dev/null)"
# The writer stores a round at a time, as soon as it is woken.
stored() { [ "$(rows)" -ge 2 ]; }
wait_until 10 stored
out=$("$afwctl" log --db $db)
check_grep "afwctl log lists the allowed decision" \
	'^20[0-9-]*T[0-9:.]*Z allow +tls +10.197.0.1:[0-9]+ -> 10.197.0.2:443 allowed.test \(tls, policy line 2\)$' "$out"
check_grep "and the denied one, by the default" ' deny +tls .* denied.test \(tls, default' "$out"
check_eq "two decisions, two lines" 2 "$(wc -l <<< "$out")"
json=$("$afwctl" -j log --db $db --verdict drop)
check_eq "-j --verdict drop (deny): one JSON record, the decision log's own" \
	"denied.test deny 10.197.0.2 443" \
	"$(jq -r '.[] | "\(.sni) \(.verdict) \(.dst) \(.dport)"' <<< "$json")"
check_eq "--host takes a glob, in any case" allowed.test \
	"$("$afwctl" -j log --db $db --host 'ALLOWED.*' | jq -r '.[].sni')"
check_eq "--last 1: the latest" denied.test "$("$afwctl" -j log --db $db --last 1 | jq -r '.[].sni')"
check_eq "--since 1h takes both" 2 "$("$afwctl" -j log --db $db --since 1h | jq length)"
check_eq "--since a date to come takes none" 0 \
	"$("$afwctl" -j log --db $db --since 2099-01-01T00:00 | jq length)"

# The database is a file anyone with the rights may edit: what it holds
# reaches the terminal escaped, whatever afwd would have written.
python3 - $db << 'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO events (time_ms, verdict, l7, host, dst, dport, record)"
           " VALUES (?, 'deny', 'tls', ?, '10.197.0.2', 443, ?)",
           (int((time.time() - 3600) * 1000), "evil\x1b]0;owned\x07.test",
            '{"reason": "line\\nforged \\u001b[2J"}'))
db.commit()
PY
out=$("$afwctl" log --db $db --host 'evil*')
check_grep "afwctl log prints a stored control byte escaped" \
	' evil\\x1b\]0;owned\\x07\.test \(line\\x0aforged \\x1b\[2J\)$' "$out"
check_eq "and no control byte reaches the terminal" 0 "$(tr -d '\n' <<< "$out" | tr -cd '\000-\037\177' | wc -c)"
check_eq "one line" 1 "$(wc -l <<< "$out")"
# A record that is not JSON loses neither the listing nor the other rows.
python3 - $db << 'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO events (time_ms, verdict, l7, host, dst, dport, record)"
           " VALUES (?, 'deny', 'tls', 'torn.test', '10.197.0.2', 443, ?)",
           (int((time.time() - 3000) * 1000), '{"src": "10.197.0.1", "rea'))
db.commit()
PY
out=$("$afwctl" log --db $db --since 2h 2>&1)
check_grep "a torn record is listed from its columns" ' deny +tls .* torn.test \(malformed record\)$' "$out"
check_grep "and the rows around it too" ' allowed.test ' "$out"
check_eq "afwctl -j log stays JSON, the torn record a string in it" '{"src": "10.197.0.1", "rea' \
	"$("$afwctl" -j log --db $db --host torn.test | jq -r '.[0].malformed_record')"

# afwctl monitor: the decisions afwd stores from now on, each as it comes;
# -j one object a line; --last N first the N latest, then the new ones.
"$afwctl" monitor --db $db > $work/mon.txt 2> $work/mon.err &
mon=$!
"$afwctl" -j monitor --db $db --verdict deny > $work/monj.txt 2> $work/monj.err &
monj=$!
"$afwctl" monitor --db $db --last 1 --host 'allowed.*' > $work/monl.txt 2> $work/monl.err &
monl=$!
sleep 1
check_eq "an allowed name passes, under monitor" ok "$(fetch allowed.test)"
check_eq "a denied name does not" "" "$(fetch denied.test 2> /dev/null)"
mon_lines() { [ "$(wc -l < $work/mon.txt)" -ge 2 ] && [ "$(wc -l < $work/monj.txt)" -ge 1 ] &&
	[ "$(wc -l < $work/monl.txt)" -ge 2 ]; }
check "afwctl monitor shows the new decisions as afwd stores them" wait_until 10 mon_lines
kill $mon $monj $monl
wait $mon $monj $monl 2> /dev/null
check_grep "monitor: the allowed one" \
	'^20[0-9-]*T[0-9:.]*Z allow +tls +10.197.0.1:[0-9]+ -> 10.197.0.2:443 allowed.test \(tls, policy line 2\)$' \
	"$(sed -n 1p $work/mon.txt)"
check_grep "then the denied one" ' deny +tls .* denied.test \(tls, default' "$(sed -n 2p $work/mon.txt)"
check_eq "and none stored before it started" 2 "$(wc -l < $work/mon.txt)"
check_eq "-j --verdict deny: one JSON object a line, the denied one" "denied.test deny" \
	"$(jq -r '"\(.sni) \(.verdict)"' $work/monj.txt)"
check_eq "--last 1 --host: the latest allowed one stored before, then the new one" 2 \
	"$(grep -c ' allowed.test (tls, policy line 2)$' $work/monl.txt)"
check "the two are two decisions, not one shown twice" \
	test "$(sed -n 1p $work/monl.txt)" != "$(sed -n 2p $work/monl.txt)"
check_eq "monitor said nothing on stderr" "" "$(cat $work/mon.err $work/monj.err $work/monl.err)"
"$afwctl" monitor --db $work/none.db > $work/out 2> $work/err
check_eq "monitor of a missing database fails at once" 1 $?
check_grep "saying where the decisions go" "monitor: .*none.db: No such file or directory" \
	"$(cat $work/err)"
"$afwctl" monitor --db $db --verdcit deny > $work/out 2> $work/err
check_eq "monitor takes log's options, and a typo is a usage error" 2 $?
check_grep "with a hint" "monitor: unknown option '--verdcit'; did you mean '--verdict'" \
	"$(cat $work/err)"

# Bad input: a usage error (2) or a failure (1), said on stderr, nothing on stdout.
for bad in "--verdict maybe" "--since yesterday" "--last 0" "--hots x" "--since"; do
	# shellcheck disable=SC2086
	"$afwctl" log --db $db $bad > $work/out 2> $work/err
	check_eq "log $bad is a usage error" 2 $?
	check_eq "and prints nothing on stdout" "" "$(cat $work/out)"
done
check_grep "an unknown option gets a hint" "did you mean '--host'" "$("$afwctl" log --hots x 2>&1)"
"$afwctl" log --db $work/none.db > $work/out 2> $work/err
check_eq "a missing database fails" 1 $?
check_grep "and points at afwd --events" \
	"none.db: No such file or directory \(afwd stores its decisions there when run with --events" \
	"$(cat $work/err)"
echo 'not a database' > $work/junk.db
"$afwctl" log --db $work/junk.db > $work/out 2> $work/err
check_eq "a file that is no event log fails" 1 $?
check_eq "with nothing on stdout" "" "$(cat $work/out)"

# Bounds: an event past its age, and a megabyte and more of old ones, put
# in while afwd is stopped. The next decision's round trims them.
check "afwd stops" stop_afwd
python3 - $db << 'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
old = int((time.time() - 40 * 86400) * 1000)
db.execute("INSERT INTO events (time_ms, verdict, l7, host, dst, dport, record)"
           " VALUES (?, 'deny', 'tls', 'ancient.test', '10.197.0.2', 443, '{}')", (old,))
now = int(time.time() * 1000) - 60000
db.executemany("INSERT INTO events (time_ms, verdict, l7, host, dst, dport, record)"
               " VALUES (?, 'deny', 'tls', 'filler.test', '10.197.0.2', 443, ?)",
               [(now + i, "x" * 1000) for i in range(3000)])
db.commit()
PY
check_ge "the database holds 3,000 more events" 3003 "$(rows)"
check "afwd starts again with --events-days 30 --events-mb 1" start_afwd --events-days 30 --events-mb 1
check_eq "an allowed name passes" ok "$(fetch allowed.test)"
trimmed() { [ "$(rows)" -lt 3000 ]; }
check "the round trims the database" wait_until 10 trimmed
check_eq "the event past its age is gone" 0 "$("$afwctl" -j log --db $db --host ancient.test | jq length)"
check_ge "the rows left fit in 1 MB" "$(python3 -c 'import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
print(d.execute("SELECT (page_count - freelist_count) * page_size FROM pragma_page_count, "
                "pragma_freelist_count, pragma_page_size").fetchone()[0])' $db)" 1048576
check_eq "the newest decision is kept" allowed.test \
	"$("$afwctl" -j log --db $db --last 1 | jq -r '.[].sni')"
stop_afwd

"$afwd" --events-mb 0 > /dev/null 2> $work/err
check_eq "afwd --events-mb 0 is a usage error" 2 $?
ip netns exec $S "$afwd" -q 0 -p $work/policy.conf --ctl $work/afwd2.sock \
	--events /nonexistent/dir/events.db 2> $work/err
check_eq "afwd with an event log it cannot create does not start" 1 $?
check_grep "and says why" "event log /nonexistent/dir/events.db: cannot open" "$(cat $work/err)"

python3 -c 'import sqlite3, sys
sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version=7")' $work/v7.db
ip netns exec $S "$afwd" -q 0 -p $work/policy.conf --ctl $work/afwd2.sock \
	--events $work/v7.db 2> $work/err
check_eq "nor with an event log of another schema" 1 $?
check_grep "and says so" "schema 7, not 1: move it away" "$(cat $work/err)"
"$afwctl" log --db $work/v7.db > $work/out 2> $work/err
check_eq "afwctl log refuses it too" 1 $?
check_grep "saying why" "is not an afw event log of this version" "$(cat $work/err)"

exit $AFW_FAILED
