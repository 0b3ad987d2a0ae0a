#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afwd reads DNS queries: host rules decide them, over UDP and over TCP,
# behind the iptables NFQUEUE chain of docs/afwd.md. A real responder logs
# each name it parsed, so the test sees what reached the server.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/afwd-pair.sh"
AFW_PREFIX="[host afwd-dns] "
pair_init afwdns 10.197.0
pair_up
dns="$src/tests/tools/dnsserver.py"

ip netns exec $S python3 "$dns" server $SA 53 $work/server.log &
wait_until 20 sh -c "ip netns exec $S ss -ltn | grep -q '$SA:53 '" ||
	{ not_ok "the DNS responder listens" "it did not start"; exit 1; }

chain() {
	pair_chain "-p udp --dport 53" "-p udp --sport 53" &&
	ip netns exec $S iptables -A INPUT -p tcp --dport 53 -j afw &&
	ip netns exec $S iptables -A OUTPUT -p tcp --sport 53 -j afw
}
check "iptables NFQUEUE chain for DNS over UDP and TCP" chain

# Host rules only: no DNS-specific word, so the rules apply to DNS as to TLS.
cat > $work/policy.conf << 'POLICY'
default deny
prio 10 host allowed.test,*.ok.test allow
POLICY

# The resolv.conf that "to resolvers" reads (afwd-policy(5), ENVIRONMENT).
echo "nameserver $SA" > $work/resolv.conf
: > $work/afwd.log
AFW_RESOLV_CONF=$work/resolv.conf ip netns exec $S "$afwd" -q 0 -p $work/policy.conf \
	--ctl $work/afwd.sock -j 2> $work/afwd.log &
apid=$!
check "afwd starts" wait_until 10 grep -q 'afwd: ready' $work/afwd.log

# ask TRANSPORT NAME [pointer]: the address answered, or "" for none.
ask() { ip netns exec $C python3 "$dns" query $SA 53 "$@" 2> /dev/null; }
asked() { grep -cx "$1 $2" $work/server.log 2> /dev/null; }

check_eq "udp: a query for an allowed name is answered" 192.0.2.1 "$(ask udp allowed.test)"
check_eq "udp: the server parsed that name" 1 "$(asked udp allowed.test)"
check_eq "udp: a query for another name gets no answer" "" "$(ask udp denied.test)"
check_eq "udp: and never reached the server" 0 "$(asked udp denied.test)"
check_eq "tcp: a query under an allowed suffix is answered" 192.0.2.1 "$(ask tcp www.ok.test)"
check_eq "tcp: the server parsed that name" 1 "$(asked tcp www.ok.test)"
check_eq "tcp: a query for another name gets no answer" "" "$(ask tcp denied.test)"
check_eq "tcp: and never reached the server" 0 "$(asked tcp denied.test)"
# The allowed name spelt with a compression pointer: a lenient server reads
# allowed.test, afwd refuses it as malformed rather than read it otherwise.
check_eq "udp: a question with a compression pointer gets no answer" "" \
	"$(ask udp allowed.test pointer)"
check_eq "tcp: nor over TCP" "" "$(ask tcp allowed.test pointer)"
check_eq "the server saw the allowed name only from the plain queries" 1 \
	"$(asked udp allowed.test)"

log=$(cat $work/afwd.log)
check_grep "the log names the allowed query, its name and rule" \
	'"proto":"dns","l4":"udp".*"dns_name":"allowed.test".*"verdict":"allow","reason":"dns, policy line 2"' "$log"
check_grep "and the denied one, by the default" \
	'"dns_name":"denied.test".*"verdict":"deny","reason":"dns, default' "$log"
check_grep "and the pointer, as malformed" \
	'"proto":"dns".*"giveup":"malformed".*compression pointer' "$log"

# "to resolvers": DNS to the servers the host is configured to ask, read
# when the policy loads; a reload reads them again.
cat > $work/policy.conf << 'POLICY'
default deny
prio 5 l7 dns to resolvers allow
POLICY
check_grep "a policy with to resolvers loads" "^ok" "$("$afwd" --reload --ctl $work/afwd.sock)"
check_eq "a query to the configured resolver is answered, whatever its name" 192.0.2.1 \
	"$(ask udp denied.test)"
check_eq "and reached the server" 1 "$(asked udp denied.test)"
echo "nameserver 192.0.2.99" > $work/resolv.conf
check_grep "after the host's resolver changes, a reload" "^ok" \
	"$("$afwd" --reload --ctl $work/afwd.sock)"
check_eq "makes a query to the old one go unanswered" "" "$(ask udp other.test)"
check_eq "and never reach it" 0 "$(asked udp other.test)"

exit $AFW_FAILED
