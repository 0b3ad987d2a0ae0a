#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd --pcap: the live engine over captures. Real clients' ClientHellos
# (tests/fixtures/tls) sent whole, a byte per segment and out of order; a
# contradicting retransmit; malformed hellos; HTTP; QUIC; damaged files;
# and every way of showing afwd other bytes than the server reads, or of
# leaving a flow unread, with the decision and the reason afwd must give.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[host afwd --pcap] "
afwd=$src/build/afwd
fx=$src/tests/fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$afwd" ] || { not_ok "afwd is built" "run 'make'"; exit 1; }
# The committed captures are what the generator writes.
python3 "$fx/make-afwd-pcaps.py" "$work/gen" &&
	check "make-afwd-pcaps.py reproduces the committed captures" diff -r "$work/gen" "$fx/afwd"

cat > "$work/policy.conf" << 'EOF2'
default allow
prio 10 host curl.afw.test deny
prio 20 l7 http host www.example.com reject
EOF2

# field CAPTURE KEY: one field of the only record afwd prints for CAPTURE.
run() { "$afwd" --pcap "$fx/afwd/$1.pcap" -p "$work/policy.conf" -j 2> /dev/null; }
field() { run "$1" | jq -r ".$2"; }
ja4_of() { awk -v f="$1.bin" '$1 == f { print $NF }' "$fx/tls/expected.txt"; }

for client in chromium curl openssl crafted-two-records crafted-padding-two-records; do
	name=$(awk -v f="$client.bin" '$1 == f { print $3 }' "$fx/tls/expected.txt")
	for how in whole onebyte reordered; do
		out=$(run "$client-$how")
		check_eq "$client, $how: one record" 1 "$(printf '%s\n' "$out" | grep -c .)"
		check_eq "$client, $how: SNI $name" "$name" "$(jq -r .sni <<< "$out")"
		check_eq "$client, $how: JA4 as computed independently" "$(ja4_of "$client")" \
			"$(jq -r .ja4 <<< "$out")"
	done
done
check_eq "chromium offers h2 and http/1.1" '["h2","http/1.1"]' "$(field chromium-whole alpn | jq -c .)"
check_eq "chromium's version is TLS 1.3" 1.3 "$(field chromium-whole tls_version)"
check_eq "a denied name is denied by its rule" "deny policy line 2" \
	"$(run curl-onebyte | jq -r '"\(.verdict) \(.reason | sub("tls, "; ""))"')"
check_eq "a contradicting retransmit is denied" deny "$(field conflict verdict)"
check_eq "as evasion" "evasion" "$(field conflict giveup)"
check_eq "an identical retransmit is just a retransmit" chromium.afw.test "$(field retransmit sni)"
for bad in bad-sni-duplicate bad-sni-256 bad-two-sni-extensions bad-ext-len bad-hs-len-short; do
	check_eq "$bad: denied as a malformed ClientHello" "deny malformed" \
		"$(run "$bad" | jq -r '"\(.verdict) \(.giveup)"')"
done
check_eq "HTTP a byte per segment: Host read" www.example.com "$(field http-onebyte http_host)"
check_eq "and its rule rejects it" reject "$(field http-onebyte verdict)"
check_eq "SSH is neither: unknown, decided by the default" "unknown allow" \
	"$(run ssh | jq -r '"\(.proto) \(.verdict)"')"
check_eq "SSH: given up as not-tls" not-tls "$(field ssh giveup)"

# Evasions and give-ups (make-afwd-pcaps.py, evasions()): the policy allows
# chromium.afw.test and denies curl.afw.test. Each capture shows the server
# both, and only one of them is what the server's stack reads.
# expect CAPTURE "SNI VERDICT GIVEUP" [OPTIONS]: afwd's records, one per line.
expect() {
	local got
	got=$("$afwd" --pcap "$fx/afwd/$1.pcap" -p "$work/evasion.conf" -j ${3:-} 2> /dev/null |
		jq -r '"\(.sni) \(.verdict) \(.giveup)"')
	check_eq "$1: $(tr '\n' ';' <<< "$2")" "$2" "$got"
}
cat > "$work/evasion.conf" << 'EOF2'
default allow
prio 10 host curl.afw.test deny
EOF2
# A copy the server never takes is not read: the real one is.
for how in csum noack badack oldack md5 window paws; do
	expect "evasion-$how" "curl.afw.test deny null"
done
# A copy that may reach the server or not (afwd cannot see a TTL run out):
# the flow is allowed only once the server acknowledges what was read, and
# the other copy before that is evasion.
expect evasion-ttl "null deny evasion"
# SYN data the server's SYN-ACK does not acknowledge, then other bytes.
expect evasion-syndata "null deny evasion"
expect tfo-denied "curl.afw.test deny null"
# A new connection on a decided 5-tuple is analyzed on its own.
expect reuse-rst "chromium.afw.test allow null
curl.afw.test deny null"
expect reuse-same-isn "chromium.afw.test allow null
curl.afw.test deny null"
# A new SYN the server ignores leaves the old connection, unread: refused.
expect new-syn-ignored "null deny evasion"
# The urgent byte is out of the stream the server reads.
expect urgent "curl.afw.test deny null"
# Bounds a real client stays within: a byte per segment, each acknowledged;
# a hello of 16,380 bytes.
expect onebyte-acked "curl.afw.test deny null"
expect big-hello "curl.afw.test deny null"
# Silence decides nothing: a hello 6 s after the handshake, past the
# analysis time, is read. A client silent while its server speaks first
# (SMTP) is decided by the time, and the reason says so.
expect timeout "curl.afw.test deny null"
expect server-first "null allow timeout"
# Mid-stream, a whole hello is read, to refuse only: a denied name is
# denied, an allowed one decided as joined mid-stream.
expect mid-stream "curl.afw.test deny null"
expect mid-stream-allowed "null allow mid-stream"
expect undecodable "null allow undecodable"
# Linux reads a segment behind any number of IPv6 destination options
# headers, and so does afwd; a segment in IP fragments it never reads.
expect ipv6-exthdrs "curl.afw.test deny null"
expect fragments "null allow timeout"
expect table-full "null allow table-full
chromium.afw.test allow null" "--max-flows 1"
expect unconfirmed "chromium.afw.test allow null"
check_grep "unconfirmed: kept out of the kernel" "not acknowledged" \
	"$("$afwd" --pcap "$fx/afwd/unconfirmed.pcap" -p "$work/evasion.conf" -j 2> /dev/null)"
# TLS 1.3: a second hello after the server's HelloRetryRequest must name
# what the first named; the allow waits for the server's answer.
expect hrr-other-name "null deny evasion"
expect hrr-early "null deny evasion"
expect hrr-same-name "chromium.afw.test allow null"
check_eq "hrr-same-name: confirmed once the server answered the second hello" "" \
	"$("$afwd" --pcap "$fx/afwd/hrr-same-name.pcap" -p "$work/evasion.conf" -j 2> /dev/null |
		grep -o 'not acknowledged')"
# Under inspect, a body is also read as a server that reads no body reads it.
printf 'default allow\nhost inspect.afw.test inspect\nhost denied.afw.test deny\n' > "$work/inspect.conf"
check_eq "inspect-body-request: the request in the body is judged, and denied" \
	"denied.afw.test deny" "$("$afwd" --pcap "$fx/afwd/inspect-body-request.pcap" \
		-p "$work/inspect.conf" -j 2> /dev/null | jq -r '"\(.http_host) \(.verdict)"')"
# Decided flows are remembered: no second record for late packets.
expect deny-late "curl.afw.test deny null"
expect allow-late "chromium.afw.test allow null"

out=$("$afwd" --pcap "$fx/pcap/chromium-quic-initial.pcap" -j 2> /dev/null)
check_eq "QUIC: Chromium's Initials give the SNI" "quic www.example.org" \
	"$(jq -r '"\(.proto) \(.sni)"' <<< "$out")"

# Damaged captures: an error with the byte offset, the flows before it kept.
head -c 100 "$fx/afwd/curl-whole.pcap" > "$work/cut.pcap"
out=$("$afwd" --pcap "$work/cut.pcap" -j 2>&1 > /dev/null)
check_eq "a truncated capture exits 1" 1 $?
check_grep "naming the byte offset" "offset [0-9]+" "$out"
cat "$fx/afwd/curl-whole.pcap" > "$work/tail.pcap"
printf '\x01\x02\x03\x04\x05\x06\x07\x08\xff\xff\xff\x7f\x00\x00\x00\x00' >> "$work/tail.pcap"
out=$("$afwd" --pcap "$work/tail.pcap" -j 2> "$work/err")
check_eq "a lying record after a whole flow still reports the flow" curl.afw.test \
	"$(jq -r .sni <<< "$out")"
check_grep "then the error with its offset" "offset $(stat -c %s "$fx/afwd/curl-whole.pcap")" \
	"$(cat "$work/err")"
printf 'not a capture at all' > "$work/junk"
check_fails "a file that is no capture is refused" "$afwd" --pcap "$work/junk"
check_fails "a missing file is refused" "$afwd" --pcap "$work/none.pcap"
out=$("$afwd" --pcap "$fx/pcap/twoif.pcapng" -j 2> /dev/null)
check_eq "pcapng with two interfaces: both flows" 2 "$(printf '%s\n' "$out" | grep -c .)"
# Names that carry a quote, a newline with a forged line after it, an escape
# sequence, an overlong NUL and a NUL: one record per flow, nothing raw.
python3 "$src/tests/tools/evil_names.py" pcap "$work/evil.pcap"
json=$("$afwd" --pcap "$work/evil.pcap" -j 2> /dev/null)
text=$("$afwd" --pcap "$work/evil.pcap" 2> /dev/null)
check_eq "evil names, JSON: one line per flow" 2 "$(printf '%s\n' "$json" | wc -l)"
check_eq "evil names, JSON: every line is one JSON object" 2 "$(jq -c . <<< "$json" | wc -l)"
check_eq "evil names, text: one line per flow" 2 "$(printf '%s\n' "$text" | wc -l)"
check_eq "evil names: no control byte or high byte reaches either log" 0 \
	"$(printf '%s\n%s\n' "$json" "$text" | LC_ALL=C grep -c $'[\x01-\x1f\x7f-\xff]')"
check_eq "an SNI with such bytes is refused as malformed, and not echoed" "deny null" \
	"$(jq -rs '.[0] | "\(.verdict) \(.sni)"' <<< "$json")"
check_grep "JSON: the ALPN values are escaped per RFC 8259" \
	'"alpn":\["h2\\"x","a\\nafwd: forged line","\\u001b\[31mred","\\u00c0\\u0080",' "$json"
check_eq "JSON: and decode to the bytes sent" true \
	"$(jq -s '.[1].alpn[0:3] == ["h2\"x", "a\nafwd: forged line", "\u001b[31mred"]' <<< "$json")"
check_grep "text: each ALPN value is one quoted field, quote and controls escaped" \
	' sni="evil.afw.test" alpn="h2\\"x","a\\x0aafwd: forged line","\\x1b\[31mred","\\xc0\\x80",' \
	"$text"
check_grep "text: the refused flow's line names no SNI" \
	'^tcp 192.0.2.10:40001 -> 198.51.100.20:443 tls giveup=malformed: deny \(malformed ClientHello' "$text"
exit $AFW_FAILED
