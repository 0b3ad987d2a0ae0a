# SPDX-License-Identifier: GPL-2.0
#
# Helpers for VM scenarios: namespaces, topologies and afw state. A scenario
# sources this file, calls its own setup, and relies on the EXIT trap here to
# tear down whatever it created.

. "$AFW_SRC/tests/lib/tap.sh"

AFWCTL=$AFW_SRC/build/afwctl
# Namespaces are named after the scenario so that scenarios never share one.
NSP=afw-$(basename "$0" .sh | tr -cd 'a-z0-9-' | cut -c1-20)
NS_C=$NSP-c
NS_R=$NSP-r
NS_S=$NSP-s

# Documentation address ranges: nothing here could ever leave the guest.
C4=192.0.2.2 R4C=192.0.2.1 R4S=198.51.100.1 S4=198.51.100.2
C6=2001:db8:1::2 R6C=2001:db8:1::1 R6S=2001:db8:2::1 S6=2001:db8:2::2

afw_cleanup_hooks=()
on_exit() { afw_cleanup_hooks+=("$*"); }

afw_cleanup() {
	local i f

	# A failed run keeps what its programs said: the folder goes below.
	if [ "$AFW_FAILED" = 1 ] && [ -n "${work:-}" ] && [ -d "$work" ]; then
		for f in "$work"/*.log; do
			[ -s "$f" ] || continue
			echo "== $(basename "$f"), its last 60 lines"
			tail -n 60 "$f"
		done >&2
	fi
	for (( i=${#afw_cleanup_hooks[@]}-1; i>=0; i-- )); do
		eval "${afw_cleanup_hooks[i]}" > /dev/null 2>&1 || true
	done
	for ns in $(ip netns list | awk -v p="$NSP-" 'index($1, p) == 1 { print $1 }'); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns"
	done
}
trap afw_cleanup EXIT

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# topo_end NS DEV ADDR4 ADDR6 GW4 GW6: an end host of topo_routed, in one
# ip -batch, its IPv6 address without duplicate detection.
topo_end() {
	nsx "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		"net.ipv6.conf.$2.accept_dad=0" || return 1
	ip -n "$1" -b - <<-EOF
		link set lo up
		addr add $3/24 dev $2
		addr add $4/64 dev $2 nodad
		link set $2 up
		route add default via $5
		route add default via $6
	EOF
}

# client --- router --- server, IPv4 and IPv6, with forwarding on the router.
topo_routed() {
	local ns
	# One process per namespace where the commands allow it (ip -batch,
	# one sysctl): on the debug kernel each exec costs seconds.
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		ip netns add "$ns" || return 1
	done
	ip -b - <<-EOF || return 1
		link add c0 netns $NS_C type veth peer name rc netns $NS_R
		link add s0 netns $NS_S type veth peer name rs netns $NS_R
	EOF
	nsx "$NS_R" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.rc.accept_dad=0 net.ipv6.conf.rs.accept_dad=0 \
		net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || return 1
	ip -n "$NS_R" -b - <<-EOF || return 1
		link set lo up
		addr add $R4C/24 dev rc
		addr add $R6C/64 dev rc nodad
		addr add $R4S/24 dev rs
		addr add $R6S/64 dev rs nodad
		link set rc up
		link set rs up
	EOF
	topo_end "$NS_C" c0 $C4 $C6 $R4C $R6C || return 1
	topo_end "$NS_S" s0 $S4 $S6 $R4S $R6S || return 1
	wait_until 10 nsx "$NS_C" ping -q -c1 -W1 $S4 > /dev/null &&
	wait_until 10 nsx "$NS_C" ping -6 -q -c1 -W1 $S6 > /dev/null
}

# iperf_server NS [IPERF3-ARGS...]: an iperf3 server daemon in NS, returned
# from only once it listens, and a failed check when it does not. iperf3 -D
# detaches before it binds, so a client started at once can be refused: an
# empty transfer that reads as a dropped flow (seen on the debug kernel).
iperf_server() {
	local ns=$1 port=5201 a prev=
	shift
	for a; do
		[ "$prev" = -p ] && port=$a
		prev=$a
	done
	nsx "$ns" iperf3 -s -D "$@" > /dev/null || { not_ok "iperf3 -s $* starts in $ns"; return 1; }
	wait_listen "$ns" tcp ":$port"
}

# at_least N CMD...: CMD prints a number, N or more (for wait_until, where
# a count comes a little after what brought it).
at_least() {
	local n=$1
	shift
	[ "$("$@")" -ge "$n" ] 2> /dev/null
}

# wait_listen NS tcp|udp [ADDR]:PORT: waits up to a minute for a socket
# bound there in NS, and fails a check when none comes. A server started in
# the background has not bound yet when its start returns, and a Python
# server's start takes seconds on the debug kernel. ADDR is IPv4 or absent.
# It polls with shell builtins only (bound_in): on the debug kernel each
# exec costs a quarter to one second, and ip netns exec, sh, ss and grep
# each time made a tenth of some scenarios' time.
wait_listen() {
	wait_until 60 bound_in "$@" ||
		{ not_ok "a $2 server is bound to $3 in $1" "nothing within 60 s"; return 1; }
}

# bound_in NS tcp|udp [ADDR]:PORT: a socket listens (TCP) or is bound
# (UDP) there, as /proc/PID/net shows it for a process PID in NS: any
# process whose network namespace is the one ip netns pinned (the same
# nsfs inode). ADDR is IPv4 or, in brackets, IPv6 ([fd00::1]:80); an
# unspecified one matches either family's; an IPv4 one a socket on [::]
# too (dual-stack, as net.ipv6.bindv6only 0 makes it; one made IPv6-only
# is taken for one that is not) or on the address mapped. The address is
# the kernel's: hex, each 32-bit word of it in network order read as a
# little-endian one.
bound_in() {
	local ns=$1 proto=$2 addr=${3%:*} port p f laddr st a b i n any any6= mapped= files
	printf -v port '%04X' "${3##*:}"
	addr=${addr#[}
	addr=${addr%]}
	files=("$proto" "${proto}6")
	if [[ $addr == *:* ]]; then
		# Eight groups, "::" filled in; two groups make a word.
		IFS=: read -r -a a <<< "${addr%%::*}"
		b=()
		[[ $addr == *::* ]] && IFS=: read -r -a b <<< "${addr#*::}"
		n=$((8 - ${#a[@]} - ${#b[@]}))
		for ((i = 0; i < n; i++)); do a+=(0); done
		a+=("${b[@]}")
		addr=
		for ((i = 0; i < 8; i += 2)); do
			printf -v addr '%s%02X%02X%02X%02X' "$addr" $((0x${a[i+1]} & 255)) \
				$((0x${a[i+1]} >> 8)) $((0x${a[i]} & 255)) $((0x${a[i]} >> 8))
		done
		any=00000000000000000000000000000000
		files=("${proto}6")
	elif [ -n "$addr" ]; then
		IFS=. read -r -a a <<< "$addr"
		printf -v addr '%02X%02X%02X%02X' "${a[3]}" "${a[2]}" "${a[1]}" "${a[0]}"
		any=00000000
		# A dual-stack socket on [::], or one on the address mapped
		# (::ffff:a.b.c.d), takes IPv4 too: it is in the IPv6 file.
		any6=00000000000000000000000000000000
		mapped=0000000000000000FFFF0000$addr
	fi
	for p in /proc/[0-9]*; do
		[ "$p/ns/net" -ef "/run/netns/$ns" ] || continue
		for f in "${files[@]}"; do
			while read -r _ laddr _ st _; do
				# TCP_LISTEN is 0A; an unconnected UDP socket is TCP_CLOSE, 07.
				case "$proto:$st" in tcp:0A|udp:07) ;; *) continue ;; esac
				[ "${laddr##*:}" = "$port" ] || continue
				[ -z "$addr" ] || [ "${laddr%:*}" = "$addr" ] ||
					[ "${laddr%:*}" = "$any" ] || [ "${laddr%:*}" = "$any6" ] ||
					[ "${laddr%:*}" = "$mapped" ] || continue
				return 0
			done < "$p/net/$f"
		done 2> /dev/null
		return 1
	done
	return 1
}

# echo_server NS ADDR PORT: tests/tools/tcpecho.py serving ADDR:PORT in NS
# while the scenario runs, bound when this returns.
# afwd_work: $AFWD, and $work, a folder removed on exit that afwd reads
# its policy from as the user afw once it runs.
afwd_work() {
	AFWD=$AFW_SRC/build/afwd
	work=$(mktemp -d)
	chmod 755 "$work"
	on_exit rm -rf "$work"
}

echo_server() {
	nsx "$1" python3 "$AFW_SRC/tests/tools/tcpecho.py" server "$2" "$3" &
	on_exit "kill $!"
	wait_listen "$1" tcp ":$3"
}

# bytes_up NS_C NS_S ADDR PORT N: N bytes on one connection from NS_C to a
# sink at ADDR:PORT in NS_S; prints how many the sink counted (tests/tools/
# bytecount.py), "0" when none came. bytes_down NS_C NS_S ADDR PORT N: N
# bytes the other way, from a source there; prints how many NS_C read.
# Exact, where iperf3 -n reports what its server had read when the client
# stopped writing.
bytes_up() {
	local out pid
	out=$(mktemp -u)
	nsx "$2" timeout 120 python3 "$AFW_SRC/tests/tools/bytecount.py" sink "$3" "$4" "$out" &
	pid=$!
	wait_listen "$2" tcp ":$4" || return 1
	nsx "$1" timeout 60 bash -c "head -c $5 /dev/zero > /dev/tcp/$3/$4" 2> /dev/null
	wait $pid
	cat "$out" 2> /dev/null || echo 0
	rm -f "$out"
}
bytes_down() {
	local pid
	nsx "$2" timeout 120 python3 "$AFW_SRC/tests/tools/bytecount.py" source "$3" "$4" "$5" &
	pid=$!
	wait_listen "$2" tcp ":$4" || return 1
	nsx "$1" timeout 60 bash -c "cat < /dev/tcp/$3/$4 | wc -c" 2> /dev/null || echo 0
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
}

# cgroup2_here: cgroup v2 at /sys/fs/cgroup, mounted for the scenario when
# the guest has none there (a plain init mounts none).
cgroup2_here() {
	[ -e /sys/fs/cgroup/cgroup.procs ] && return 0
	check "cgroup2 is mounted" mount -t cgroup2 none /sys/fs/cgroup || return 1
	on_exit "umount /sys/fs/cgroup"
}

# counter NS FAMILY DIRECTION FIELD: one afw hook counter of namespace NS
# ("-" for the initial namespace), as afwctl -j status reports it.
counter() {
	local ns=()
	[ "$1" = - ] || ns=(-n "$1")
	"$AFWCTL" "${ns[@]}" -j status |
		jq -r --arg f "$2" --arg d "$3" --arg k "$4" \
			'.counters[] | select(.family == $f and .direction == $d) | .[$k]'
}

afw_loaded() { [ -d /sys/module/afw ]; }

# afw_activate NS...: configures each namespace ("-" for the initial one)
# without changing a setting. afw registers its hooks in a namespace, and
# starts counting there, only once something configures it.
afw_activate() {
	local ns opt
	for ns; do
		opt=()
		[ "$ns" = - ] || opt=(-n "$ns")
		"$AFWCTL" "${opt[@]}" config set enabled yes || return 1
	done
}

# afw_load [PARAM=VALUE...]: insmod the module under test. insmod does not
# resolve dependencies, so load the kernel's reject and defragmentation
# helpers first (they are built into some kernels, hence no error check).
afw_load() {
	modprobe -q -a nf_reject_ipv4 nf_reject_ipv6 nf_defrag_ipv4 nf_defrag_ipv6 2>/dev/null
	insmod "$AFW_KO" "$@"
}

afw_unload() {
	if afw_loaded; then
		rmmod afw
	fi
}

# craft_start NS: one tests/tools/craft.py sender in NS for the whole
# scenario, fed through FIFOs on fds 7 and 8: a Python start per packet
# costs seconds on the debug kernel. craft SEND-ARGS... then sends one
# case ("send [OPTIONS] IFACE DMAC SRC DST") and fails on its error.
craft_start() {
	local fifo
	fifo=$(mktemp -u)
	mkfifo "$fifo.in" "$fifo.out"
	on_exit rm -f "$fifo.in" "$fifo.out"
	ip netns exec "$1" python3 "$AFW_SRC/tests/tools/craft.py" serve \
		< "$fifo.in" > "$fifo.out" 2>&1 &
	on_exit kill $!
	exec 7> "$fifo.in" 8< "$fifo.out"
}

craft() {
	local line ok=0
	echo "send $*" >&7
	while read -r -t 60 line <&8; do
		[ "$line" = done ] && return $ok
		[[ "$line" == error* ]] && { echo "craft.py: $line" >&2; ok=1; }
	done
	echo "craft.py: the sender did not answer" >&2
	return 1
}

# bench_half NAME SCRIPT [VAR=VALUE...]: one of bench/'s guest halves, small,
# in a process of its own (it sets its own traps and namespaces), with
# AFW_OUT=$out/NAME; its output is kept with the logs, and it must end well.
# For the bench smoke scenarios, which set $out.
bench_half() {
	local name=$1 script=$2 rc
	shift 2
	mkdir -p "$out/$name"
	env AFW_OUT="$out/$name" "$@" bash "$AFW_SRC/bench/$script" > "$out/$name/stdout" 2>&1
	rc=$?
	cp -r "$out/$name" "$AFW_LOGDIR/bench-smoke-$name" 2> /dev/null
	afw_unload
	check_eq "bench $name: its guest half ends well" 0 "$rc"
}

# seed_rows HALF SETUPS METRICS: in $out/seed-HALF/seed-HALF.csv (bench/
# seed-guest.sh's), each SETUP of HALF has each METRIC, a number > 0. A
# peer that is not installed may be skipped (OpenSnitch is not among the
# test packages: its service would filter the machine it is installed
# on), but then only with that reason.
seed_rows() {
	local f=$out/seed-$1/seed-$1.csv s m v
	for s in $2; do
		if [ "$s" = opensnitch ] && ! command -v opensnitchd > /dev/null; then
			check_grep "bench seed $1: opensnitch skipped, as not installed" \
				"^$1,opensnitch,skipped,opensnitchd is not installed" "$(cat "$f")"
			continue
		fi
		for m in $3; do
			v=$(awk -F, -v s="$s" -v m="$m" '$2 == s && $3 == m { print $4 }' "$f")
			check "bench seed $1: $s has $m ($v)" awk -v v="$v" \
				'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 > 0) }'
		done
	done
	check "bench seed $1: no setup skipped but a peer not installed" \
		sh -c "! grep ',skipped,' '$f' | grep -v '^$1,opensnitch,skipped,opensnitchd is not installed'"
}
# seed_table CSV WHAT REGEX: bench/seed-table.py makes its tables of CSV (a
# half's figures) in $out/seed, and seed.md has a line matching REGEX, the
# table's WHAT.
seed_table() {
	mkdir -p "$out/seed"
	check "bench seed: the table is made of $(basename "$1")" \
		python3 "$AFW_SRC/bench/seed-table.py" "$1" "$out/seed" smoke 6.1
	check_grep "bench seed: the table has $2" "$3" "$(cat "$out/seed/seed.md")"
}
