# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the benchmarks' guest halves, after tests/vm/lib.sh: the
# measurements they share (iperf3, ping), the rulesets of the nftables rows,
# afwd and OpenSnitch started and stopped, and the HTTPS site the page loads
# and handshakes go to.

# bench_tcp NS ADDR STREAMS SECONDS: iperf3 TCP from NS to ADDR, in Gbit/s
# received.
bench_tcp() {
	nsx "$1" iperf3 -c "$2" -P "$3" -t "$4" -J |
		jq '.end.sum_received.bits_per_second / 1e9' 2> /dev/null
}
# bench_udp NS ADDR SECONDS: 64-byte UDP datagrams from NS to ADDR, as fast
# as iperf3 sends them, counted as received a second. When iperf3 wrote no
# result, its own error goes to stderr.
bench_udp() {
	local j
	j=$(nsx "$1" iperf3 -c "$2" -u -l 64 -b 0 -t "$3" -J)
	jq '(.end.sum.packets - .end.sum.lost_packets) / .end.sum.seconds' <<< "$j" 2> /dev/null ||
		jq -c '{error, intervals: (.intervals | length)}' <<< "$j" >&2
}
# bench_rtt NS ADDR COUNT: COUNT pings 2 ms apart, as "min avg max" in ms.
bench_rtt() {
	nsx "$1" ping -q -n -c "$3" -i 0.002 "$2" | awk -F'[/ ]' '/^rtt/ { print $7, $8, $9 }'
}

# bench_nft_set: the 100k rules of rules_file (bench/rules-mem.sh) as
# nftables would be written for them: one set of address and port.
bench_nft_set() {
	echo "table inet afwbench { set src { type ipv4_addr . inet_service; elements = {"
	awk 'BEGIN { for (i = 0; i < 100000; i++)
		printf "%s198.%d.%d.%d . %d", i ? ", " : "", 18 + int(i / 65536) % 2,
			int(i / 256) % 256, i % 256, 1000 + int(i / 131072) }'
	echo "} }"
	echo "chain afwfwd { type filter hook forward priority 10; ip saddr . udp dport @src drop; accept; }"
	echo "}"
}
# bench_nft_chain [N]: N rules (default 10k) one after another: every packet
# walks them all.
bench_nft_chain() {
	echo "table inet afwbench { chain afwfwd { type filter hook forward priority 10;"
	awk -v n="${1:-10000}" 'BEGIN { for (i = 0; i < n; i++)
		printf "ip saddr 198.18.%d.%d udp dport 1000 drop\n", int(i / 256) % 256, i % 256 }'
	echo "accept; }"
	echo "}"
}

# bench_accept: the two rules that accept the client's and the server's
# traffic through the router, worse than every rule of rules_file, so that
# a packet no flow carries yet looks up every table first.
bench_accept() {
	printf 'prio 1000 dir forward from %s/32 to %s/32 accept\nprio 1000 dir forward from %s/32 to %s/32 accept\n' \
		$C4 $S4 $S4 $C4
}
# bench_hook_rules FILE: the ruleset of the hook benchmarks (hookcost.sh,
# hookpath.sh): rules_file's 10 rules and bench_accept's, whose accept
# installs each flow; with AFW_BENCH_RULES=accept, bench_accept's alone,
# which with nothing refused and unknown flows accepted install no flow,
# so that a rule decides every packet.
bench_hook_rules() {
	if [ "${AFW_BENCH_RULES:-}" = accept ]; then
		: > "$1"
	else
		rules_file 10 "$1"
	fi
	bench_accept >> "$1"
}
# bench_ruled N SETUP CMD...: afw on the router with rules_file's N rules
# (bench/rules-mem.sh) and then $work/accept, "CMD SETUP" run under them,
# and the rules and their flows taken away again; SETUP skipped when the
# ruleset is refused. The caller defines skip.
bench_ruled() {
	local n=$1 setup=$2
	shift 2
	rules_file "$n" "$work/rules"
	cat "$work/accept" >> "$work/rules"
	if nsx $NS_R "$AFWCTL" load "$work/rules"; then
		"$@" "$setup"
	else
		skip "$setup" "the ruleset was refused"
	fi
	nsx $NS_R "$AFWCTL" rule flush
	nsx $NS_R "$AFWCTL" flow flush
}
# bench_nft SETUP CMD...: $work/nft loaded on the router, "CMD SETUP" run
# under it, the table taken away again; SETUP skipped when refused.
bench_nft() {
	local setup=$1
	shift
	if nsx $NS_R nft -f "$work/nft"; then
		"$@" "$setup"
		nsx $NS_R nft delete table inet afwbench
	else
		skip "$setup" "nftables refused it"
	fi
}

# afwd_run [OPTION...]: afwd in $fw_ns with the module and $work/policy.conf,
# its queues 0-1, its log appended to $work/afwd.log; returns once its
# control socket is there.
afwd_run() {
	rm -f "$work/afwd.sock"
	# ip netns exec execs afwd, so $! is afwd itself.
	ip netns exec "$fw_ns" ${AFW_BENCH_WRAP:-} "$AFW_SRC/build/afwd" -q 0-1 --module on \
		-p "$work/policy.conf" --ctl "$work/afwd.sock" "$@" 2>> "$work/afwd.log" &
	afwd_pid=$!
	wait_until 10 test -S "$work/afwd.sock"
}
# afwd_stat FIELD: FIELD summed over afwd's queues (afwd --stats, from its
# control socket $work/afwd.sock).
afwd_stat() {
	"$AFW_SRC/build/afwd" --stats --ctl "$work/afwd.sock" | jq "[.queues[].$1] | add"
}
# proc_kb PID KEY: KEY of /proc/PID/status (VmRSS, VmHWM), in kB.
proc_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# afwd_stop: afwd gone, and the flows it installed with it.
afwd_stop() {
	[ -n "${afwd_pid:-}" ] || return 0
	kill "$afwd_pid"
	wait "$afwd_pid" 2> /dev/null
	afwd_pid=
	nsx "$fw_ns" "$AFWCTL" flow flush
}

# osn_start NS DIR: OpenSnitch's daemon in NS, its rules, configuration and
# log in DIR, returned from once its NFQUEUE rules are in place (mangle
# OUTPUT, new connections). Default action allow, the /proc method, one
# rule allowing everything: with neither a rule nor its UI, 1.5.8 applies
# the default action and logs no program; a rule that matches makes it log
# "✔ PATH -> HOST:PORT" for each connection it attributed. False, with
# osn_why set, when it is not installed or does not come up.
osn_start() {
	local ns=$1 dir=$2
	osn_ns=$ns
	if ! command -v opensnitchd > /dev/null; then
		osn_why="opensnitchd is not installed (scripts/install-deps --bench)"
		return 1
	fi
	mkdir -p "$dir/rules"
	cat > "$dir/rules/allow-all.json" <<-EOF
		{"created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z",
		 "name": "allow-all", "enabled": true, "precedence": false,
		 "action": "allow", "duration": "always",
		 "operator": {"type": "simple", "operand": "true", "sensitive": false,
		              "data": "", "list": []}}
	EOF
	# The daemon reads this path and no other; the guest's /etc is a
	# writable overlay of the host's.
	jq --arg log "$dir/osn.log" '.DefaultAction = "allow" | .ProcMonitorMethod = "proc" |
		.LogLevel = 0 | .Server.LogFile = $log | .Firewall = "iptables"' \
		/etc/opensnitchd/default-config.json > "$dir/config.json"
	cp "$dir/config.json" /etc/opensnitchd/default-config.json
	modprobe -q -a nfnetlink_queue xt_NFQUEUE xt_conntrack nf_conntrack 2> /dev/null
	ip netns exec "$ns" opensnitchd -rules-path "$dir/rules" -debug \
		-log-file "$dir/osn.log" > "$dir/osn.out" 2>&1 &
	osn_pid=$!
	osn_ready() { nsx "$osn_ns" iptables -t mangle -S OUTPUT 2> /dev/null | grep -q NFQUEUE; }
	if ! wait_until 120 osn_ready; then
		osn_why="OpenSnitch did not install its NFQUEUE rules within 120 s"
		osn_stop
		return 1
	fi
	# A moment more, for its queue and monitor to settle.
	sleep 3
	osn_ver=$(dpkg-query -W -f '${Version}' opensnitch 2> /dev/null)
}
# osn_stop: OpenSnitch's daemon gone, and the rules it left in its namespace.
osn_stop() {
	[ -n "${osn_pid:-}" ] || return 0
	kill "$osn_pid"
	wait "$osn_pid" 2> /dev/null
	osn_pid=
	# Its tables, even empty, would still hook every packet of the
	# namespace (iptables is nftables underneath on Debian).
	nsx "$osn_ns" iptables -t mangle -F 2> /dev/null
	nsx "$osn_ns" iptables -F 2> /dev/null
	nsx "$osn_ns" nft flush ruleset 2> /dev/null
}

# bench_cert DIR: DIR/cert.pem and DIR/key.pem, a P-256 certificate for
# bench.test.
bench_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=bench.test -addext subjectAltName=DNS:bench.test \
		-keyout "$1/key.pem" -out "$1/cert.pem" 2> /dev/null
}
# bench_site DIR [N]: a page of N + 1 resources in DIR (itself, N / 3 style
# sheets, the rest images, 2.5 to 17 kB each; N is 30 by default), whose
# load event writes the time since navigation began into the element "t",
# where --dump-dom shows it.
bench_site() {
	local i n=${2:-30}
	mkdir -p "$1"
	for i in $(seq "$n"); do
		head -c $((2000 + i * 500)) /dev/urandom | base64 > "$1/r$i.txt"
	done
	{
		echo '<!doctype html><html><head><title>afw bench</title>'
		for i in $(seq $((n / 3))); do echo "<link rel=stylesheet href=\"/r$i.txt\">"; done
		echo '</head><body><div id="t">none</div>'
		for i in $(seq $((n / 3 + 1)) "$n"); do echo "<img src=\"/r$i.txt\" alt=\"\">"; done
		echo '<script>window.addEventListener("load", function () {'
		echo '  document.getElementById("t").textContent = "load " + performance.now().toFixed(1);'
		echo '});</script></body></html>'
	} > "$1/index.html"
}
# bench_nginx NS DIR: nginx in NS serving DIR/site over HTTPS on port 443 of
# every address, with DIR's certificate (bench_cert); returns once it
# listens.
bench_nginx() {
	mkdir -p "$2/nginx/logs"
	cat > "$2/nginx/nginx.conf" <<-EOF
		worker_processes 1;
		pid $2/nginx/nginx.pid;
		error_log $2/nginx/logs/error.log;
		user root;
		events { worker_connections 4096; }
		http {
			access_log off;
			server {
				listen 443 ssl;
				server_name bench.test;
				ssl_certificate $2/cert.pem;
				ssl_certificate_key $2/key.pem;
				ssl_session_tickets off;
				ssl_session_cache off;
				root $2/site;
			}
		}
	EOF
	nsx "$1" nginx -p "$2/nginx" -c "$2/nginx/nginx.conf" -e "$2/nginx/logs/error.log" || return 1
	on_exit "kill \$(cat $2/nginx/nginx.pid)"
	wait_listen "$1" tcp ":443"
}
