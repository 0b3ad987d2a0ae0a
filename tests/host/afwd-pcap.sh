#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd --pcap: the live engine over captures. Real clients' ClientHellos
# (tests/fixtures/tls) sent whole, a byte per segment and out of order; a
# contradicting retransmit; malformed hellos; HTTP; QUIC; damaged files.
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
prio 20 app http host www.example.com reject
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
check_grep "as evasion" "evasion" "$(field conflict reason)"
check_eq "an identical retransmit is just a retransmit" chromium.afw.test "$(field retransmit sni)"
for bad in bad-sni-duplicate bad-sni-256 bad-two-sni-extensions bad-ext-len bad-hs-len-short; do
	check_eq "$bad: denied as a malformed ClientHello" "deny malformed" \
		"$(run "$bad" | jq -r '"\(.verdict) \(.reason | split(" ")[0])"')"
done
check_eq "HTTP a byte per segment: Host read" www.example.com "$(field http-onebyte http_host)"
check_eq "and its rule rejects it" reject "$(field http-onebyte verdict)"
check_eq "SSH is neither: unknown, decided by the default" "unknown allow" \
	"$(run ssh | jq -r '"\(.proto) \(.verdict)"')"
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
exit $AFW_FAILED
