#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the seed table's VMs (bench/seed.sh). AFW_BENCH_HALF picks the half:
#   throughput (booted with -icount sleep=off): iperf3 with 1 and 4 streams,
#              64-byte UDP datagrams a second, the guest's CPU busy share
#              under a fixed load (UDP, 1400-byte datagrams at 200 Mbit/s,
#              which every setup but the nftables chain carries whole), and
#              ping, for each setup;
#   latency    (booted so that idle time passes in real time): new TCP
#              connections a second with p50/p99, full TLS handshakes with
#              p50/p99, and a headless Chromium's page load of a local HTTPS
#              site of 31 resources.
# Every figure goes to seed-HALF.csv in the result share as
# "half,setup,metric,value"; bench/seed.sh turns them into ratios to the
# "host" setup (no firewall) of the same boot. A setup that cannot be
# measured (a peer not installed) writes a line "half,setup,skipped,why".
#
# The setups, through the router (client, router, server namespaces):
#   host          no firewall
#   allowed-N     afw with N rules that never match and two accept rules
#                 worse than all of them (throughput only; N = 10, 100k, 1M),
#                 or a kernel rule accepting the ports (latency)
#   analyzed      afw queues each new flow to afwd, policy "default allow":
#                 afwd reads the flow's first bytes, decides, and the module
#                 carries the rest
#   analyzed-port (latency) afwd decides by the port at the SYN, and the
#                 module keeps that decision for the next connections
#   transfer      afwd "default inspect": every packet through afwd
#   nft-set, nft-chain (throughput) nftables: the 100k rules as one set, 10k
#                 as a linear chain
#   nfqueue       (throughput) the kernel selftest's nf-queue client,
#                 accepting every forwarded packet from NFQUEUE, one verdict
#                 each
#   opensnitch    OpenSnitch's daemon on the client, default allow, deciding
#                 each new connection
#   host-again    no firewall, at the end, to show the boot drifted or not
set -u
. "$AFW_SRC/tests/vm/lib.sh"
. "$AFW_SRC/bench/rules-mem.sh"
. "$AFW_SRC/bench/lib.sh"
half=${AFW_BENCH_HALF:?AFW_BENCH_HALF is throughput or latency}
exec 2> "$AFW_OUT/seed-$half.log"
csv=$AFW_OUT/seed-$half.csv
: > "$csv"
secs=${AFW_BENCH_SECONDS:-3}
pings=${AFW_BENCH_PINGS:-200}
conns=${AFW_BENCH_RATE_CONNS:-2000}
handshakes=${AFW_BENCH_HANDSHAKES:-1000}
pages=${AFW_BENCH_PAGES:-5}
# The page's resources beside itself, and the connections not counted that
# warm the path before each rate (CI's smoke makes both small).
resources=${AFW_BENCH_RESOURCES:-30}
warm=${AFW_BENCH_WARM:-100}
# The setups whose page load is measured (CI's smoke: one, as each load
# starts a browser, which takes most of a minute under an emulator).
page_setups=${AFW_BENCH_PAGE_SETUPS:-host allowed analyzed transfer opensnitch host-again}
sizes=${AFW_BENCH_SIZES:-10 100000 1000000}
nfq=${AFW_BENCH_NFQUEUE:-}
work=$(mktemp -d)
chmod 755 "$work"
fw_ns=$NS_R

# put SETUP METRIC VALUE: one figure; "fail" where the measurement did not
# happen (bench/seed.sh prints it as such, and the smoke test fails on it).
put() { echo "$half,$1,$2,${3:-fail}" >> "$csv"; }
skip() { echo "$half,$1,skipped,$2" >> "$csv"; }

topo_routed || { skip all "the topology did not come up"; exit 1; }

# afwd_policy TEXT [OPTION...]: afwd on the router with TEXT as its policy.
afwd_policy() {
	printf '%s\n' "$1" > "$work/policy.conf"
	shift
	afwd_run "$@"
}

# --- throughput ---

# busy CMD...: the share of guest CPU time, in %, that was neither idle
# nor waiting while CMD ran (1 vCPU: of the uptime). Idle and iowait are
# the kernel's exact counts, kept at each idle entry and exit; /proc/stat's
# busy figures are tick samples, and under -icount sleep=off the clock jumps
# over idle spans straight to the next tick, so a tick almost never samples
# a short burst of work (a paced stream read 1% busy that way). iowait
# counts as idle: on 6.1 a task waiting in io_uring_enter(), as afwd's
# workers do, makes the idle CPU's time iowait.
busy() {
	local a b
	a="$(cut -d' ' -f1 /proc/uptime) $(awk '/^cpu / { print $5 + $6 }' /proc/stat)"
	"$@" > /dev/null || { echo fail; return; }
	b="$(cut -d' ' -f1 /proc/uptime) $(awk '/^cpu / { print $5 + $6 }' /proc/stat)"
	awk -v a="$a" -v b="$b" -v n="$(nproc)" -v hz="$(getconf CLK_TCK)" 'BEGIN {
		split(a, x); split(b, y); t = (y[1] - x[1]) * n; i = (y[2] - x[2]) / hz
		if (t > 0) printf "%.1f\n", 100 * (1 - i / t); else print "fail" }'
}

# through SETUP: the throughput half's figures of one setup.
through() {
	local r
	put "$1" tcp1_gbps "$(bench_tcp $NS_C $S4 1 "$secs")"
	put "$1" tcp4_gbps "$(bench_tcp $NS_C $S4 4 "$secs")"
	put "$1" udp64_pps "$(bench_udp $NS_C $S4 "$secs")"
	put "$1" cpu_busy_pct "$(busy nsx $NS_C iperf3 -c $S4 -u -l 1400 -b 200M -t "$secs")"
	r=($(bench_rtt $NS_C $S4 "$pings"))
	put "$1" ping_min_ms "${r[0]:-}"
	put "$1" ping_avg_ms "${r[1]:-}"
	put "$1" ping_max_ms "${r[2]:-}"
}

throughput_half() {
	local n name
	iperf_server $NS_S -B $S4 || { skip all "no iperf3 server"; exit 1; }
	bench_tcp $NS_C $S4 1 "$secs" > /dev/null	# warm-up
	through host

	afw_load || { skip allowed "afw.ko did not load"; exit 1; }
	nsx $NS_R "$AFWCTL" config set unknown accept > /dev/null
	bench_accept > $work/accept
	for n in $sizes; do
		case $n in
		1000000) name=1m ;;
		100000) name=100k ;;
		*) name=$n ;;
		esac
		bench_ruled "$n" "allowed-$name" through
	done

	nsx $NS_R "$AFWCTL" config set unknown queue queue 0-1 fail closed
	if afwd_policy "default allow"; then
		through analyzed
		afwd_stop
	else
		skip analyzed "afwd did not start"
	fi
	if afwd_policy "default inspect"; then
		through transfer
		afwd_stop
	else
		skip transfer "afwd did not start"
	fi
	afw_unload

	if command -v nft > /dev/null; then
		bench_nft_set > $work/nft
		bench_nft nft-set through
		bench_nft_chain > $work/nft
		bench_nft nft-chain through
	else
		skip nft-set "nft is not installed"
		skip nft-chain "nft is not installed"
	fi

	# The kernel selftest's client: every forwarded packet queued, one
	# verdict each (its GSO flag on, whole packets copied).
	if [ -x "$nfq" ]; then
		nsx $NS_R "$nfq" -q 0 -t 3600 > /dev/null 2>> $work/nfq.log &
		local nfq_pid=$!
		sleep 1
		nsx $NS_R iptables -A FORWARD -j NFQUEUE --queue-num 0
		through nfqueue
		nsx $NS_R iptables -D FORWARD -j NFQUEUE --queue-num 0
		kill $nfq_pid
		wait $nfq_pid 2> /dev/null
		# An empty table still hooks every packet: the next rows
		# (Host again among them) must not pay for it.
		nsx $NS_R nft flush ruleset
	else
		skip nfqueue "no nf-queue client built (linux-source-6.1)"
	fi

	if osn_start $NS_C "$work/osn"; then
		through opensnitch
		osn_stop
	else
		skip opensnitch "$osn_why"
	fi
	through host-again
}

# --- latency ---

# The servers listen on every address of the server's namespace, and each
# measurement goes to an address of its own (198.51.100.10 on): the client
# closes first, so every connection leaves a TIME_WAIT socket for 60 s, and
# a later run to the same address and port would spend its connect()s
# searching for a free port among them.
srv_n=10
next_srv() { srv=198.51.100.$((srv_n++)); nsx $NS_S ip addr add $srv/24 dev s0; }

# page_ms: the median of $pages page loads, each in a new Chromium with
# an empty profile: the time from navigation start to the load event, as
# the page measured it.
page_ms() {
	local i t
	for i in $(seq "$pages"); do
		t=$(nsx $NS_C chromium --headless=new --no-sandbox --disable-gpu \
			--ignore-certificate-errors --no-first-run --user-data-dir="$(mktemp -d)" \
			--host-resolver-rules="MAP bench.test $srv" --dump-dom https://bench.test/ \
			2>> $work/chromium.log | sed -n 's/.*id="t">load \([0-9.]*\)<.*/\1/p')
		[ -n "$t" ] && echo "$t"
	done | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f\n",
		NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "fail" }'
}

# lat SETUP: the latency half's figures of one setup, with the page load
# where SETUP is among $page_setups.
lat() {
	local out r
	next_srv
	# Warm the path: connections not counted.
	nsx $NS_C "$stress" connrate $srv 7000 "$warm" > /dev/null
	# "connrate: OK/N ok, R conn/s, p50 A us, p99 B us"; a run where any
	# connection failed is no measurement (the figures are "fail").
	out=$(nsx $NS_C "$stress" connrate $srv 7000 "$conns") || echo "$1: $out" >&2
	r=($(echo "$out" | awk -v n="$conns" '$2 == n "/" n { print $4, $7, $10 }'))
	put "$1" conn_per_s "${r[0]:-}"
	put "$1" conn_p50_us "${r[1]:-}"
	put "$1" conn_p99_us "${r[2]:-}"
	next_srv
	out=$(nsx $NS_C "$tlsrate" $srv 443 "$handshakes" bench.test $work/cert.pem) ||
		echo "$1: $out" >&2
	r=($(echo "$out" | awk -v n="$handshakes" '$2 == n "/" n { print $4, $7, $10 }'))
	put "$1" tls_per_s "${r[0]:-}"
	put "$1" tls_p50_us "${r[1]:-}"
	put "$1" tls_p99_us "${r[2]:-}"
	next_srv
	[[ " $page_setups " != *" $1 "* ]] || put "$1" page_load_ms "$(page_ms)"
	return 0
}

# lat_afwd SETUP POLICY: SETUP measured with afwd running POLICY.
lat_afwd() {
	if afwd_policy "$2"; then
		lat "$1"
		afwd_stop
	else
		skip "$1" "afwd did not start"
	fi
}

latency_half() {
	stress=$AFW_SRC/build/tools/afwstress
	tlsrate=$AFW_SRC/build/tools/afwtlsrate
	bench_cert $work
	bench_site $work/site "$resources"
	bench_nginx $NS_S $work || { skip all "nginx did not start"; exit 1; }
	nsx $NS_S "$stress" echo 0.0.0.0 7000 &
	wait_listen $NS_S tcp ":7000" || { skip all "no echo server"; exit 1; }
	lat host

	afw_load || { skip allowed "afw.ko did not load"; exit 1; }
	nsx $NS_R "$AFWCTL" rule add prio 10 dir forward proto tcp dport 7000 accept > /dev/null
	nsx $NS_R "$AFWCTL" rule add prio 10 dir forward proto tcp dport 443 accept > /dev/null
	nsx $NS_R "$AFWCTL" config set unknown accept > /dev/null
	lat allowed
	nsx $NS_R "$AFWCTL" rule flush
	nsx $NS_R "$AFWCTL" flow flush

	nsx $NS_R "$AFWCTL" config set unknown queue queue 0-1 fail closed
	lat_afwd analyzed "default allow"
	lat_afwd analyzed-port "default deny
prio 10 proto tcp dport 7000 allow
prio 10 proto tcp dport 443 allow"
	lat_afwd transfer "default inspect"
	afw_unload

	if osn_start $NS_C "$work/osn"; then
		lat opensnitch
		osn_stop
	else
		skip opensnitch "$osn_why"
	fi
	lat host-again
	return 0
}

on_exit afwd_stop
on_exit osn_stop
case $half in
throughput) throughput_half ;;
latency) latency_half ;;
*) skip all "unknown half $half"; exit 1 ;;
esac
cp "$work"/*.log "$AFW_OUT/" 2> /dev/null
exit 0
