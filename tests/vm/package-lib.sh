# SPDX-License-Identifier: GPL-2.0
#
# What the systemd boots' scenarios (50-package, then 51-package-reboot on
# the same disk) share: where the install's records are, what afw.conf puts
# in force, the boot order of the two units, and an SSH-like session from a
# peer. Sourced after tests/vm/lib.sh.

# The install's records (package-preboot.sh); run.sh copies them into the
# reboot's results too.
pkg=$AFW_OUT/package
kver=$(uname -r)
kver_re=$(printf '%s' "$kver" | sed 's/[.+]/\\&/g')
AFWCTL=/usr/sbin/afwctl

# What package-preboot.sh's afw.conf puts in force, as save prints it back.
want='set unknown accept
set queue 2-5
set fail closed
set max_flows 4242
set tcp_timeout 86400
set udp_timeout 120
set flow_timeout 77

id 5 prio 10 family ipv4 dir in proto tcp from 192.0.2.0/24 dport 22 accept
id 6 prio 20 dir out proto udp dport 9 uid 0 drop'
in_force() { "$AFWCTL" save | grep -v '^#'; }

# ts UNIT PROPERTY: a monotonic timestamp of a unit, in microseconds.
ts() { systemctl show -P "$2" "$1"; }

# check_boot_order: afw.service loaded the module and the file before
# network-pre.target, and afwd.service started after it.
check_boot_order() {
	local afw_up pre_up afwd_start
	check_eq "afw.service is active" active "$(systemctl is-active afw.service)"
	check_eq "network-pre.target is active" active "$(systemctl is-active network-pre.target)"
	afw_up=$(ts afw.service ActiveEnterTimestampMonotonic)
	pre_up=$(ts network-pre.target ActiveEnterTimestampMonotonic)
	check "afw.service was up ($afw_up us) before network-pre.target ($pre_up us)" \
		test "$afw_up" -gt 0 -a "$afw_up" -le "$pre_up"
	check_eq "afwd.service is active" active "$(systemctl is-active afwd.service)"
	afwd_start=$(ts afwd.service ExecMainStartTimestampMonotonic)
	check "afwd started ($afwd_start us) after afw.service was up" test "$afwd_start" -ge "$afw_up"
}

# session_start: an SSH-like session from 192.0.2.2 (namespace afw-peer)
# to 192.0.2.1 port 22, which rule 5 of afw.conf accepts: tcpecho.py's
# client sends a line every 0.2 s and counts the echoes in $session_dir.
session_start() {
	session_dir=$(mktemp -d)
	ip netns add afw-peer
	ip link add afw-lan type veth peer name afw-wan netns afw-peer
	ip addr add 192.0.2.1/24 dev afw-lan
	ip link set afw-lan up
	ip -n afw-peer addr add 192.0.2.2/24 dev afw-wan
	ip -n afw-peer link set afw-wan up
	python3 "$AFW_SRC/tests/tools/tcpecho.py" server 192.0.2.1 22 &
	wait_until 60 session_listening ||
		not_ok "the session's server listens on 192.0.2.1:22" "not within 60 s"
	nsx afw-peer python3 "$AFW_SRC/tests/tools/tcpecho.py" client 192.0.2.1 22 45022 1200 \
		"$session_dir/progress" &
	session_client=$!
}
session_listening() { ss -ltnH | grep -q '192.0.2.1:22 '; }
session_lines() { cat "$session_dir/progress" 2> /dev/null || echo 0; }
session_more_than() { [ "$(session_lines)" -gt "$1" ]; }
# alive: the session echoes lines now (the client gives up after 3 s of
# silence, so one that stalls is cut).
alive() {
	local n
	n=$(session_lines)
	wait_until 10 session_more_than "$n" && kill -0 $session_client 2> /dev/null && return
	"$AFWCTL" -j flow list >&2
	"$AFWCTL" -j stats >&2
	return 1
}
session_stopped() { ! kill -0 $session_client 2> /dev/null; }
# session_end: stops the client, which exits 0 only if every line came back
# (the client itself, not the shell around it, which would die of it), and
# checks that.
session_end() {
	local rc
	pkill -TERM -f "tcpecho.py client 192.0.2.1 22 45022"
	if wait_until 15 session_stopped; then
		wait $session_client
		rc=$?
	else
		pkill -KILL -f "tcpecho.py client 192.0.2.1 22 45022"
		rc="still running 15 s after SIGTERM"
	fi
	check_eq "the session never missed a line" 0 "$rc"
	pkill -f "tcpecho.py server 192.0.2.1 22"
	ip netns del afw-peer
	rm -rf "$session_dir"
}
