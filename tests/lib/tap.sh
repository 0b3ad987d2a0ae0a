# SPDX-License-Identifier: GPL-2.0
#
# Test result helpers shared by the host tests and the VM scenarios. Each
# check appends one "ok - NAME" or "not ok - NAME" line to $AFW_TAP and
# explains a failure on stderr, which the scenario's log keeps.

: "${AFW_TAP:=/dev/stdout}"
AFW_FAILED=0
# Checks failed so far: a scenario may say more of a section that failed.
AFW_NFAILED=0
AFW_PREFIX=${AFW_PREFIX:-}
AFW_T_LAST=${EPOCHREALTIME/./}

# The log, not the TAP, says how long each check took since the one before:
# that is where a slow run's time went.
afw_tap_log() {
	local now=${EPOCHREALTIME/./}

	echo "$1 [$(( (now - AFW_T_LAST) / 1000 )) ms]" >&2
	AFW_T_LAST=$now
}

ok() {
	echo "ok - ${AFW_PREFIX}$1" >> "$AFW_TAP"
	afw_tap_log "ok - ${AFW_PREFIX}$1"
}

not_ok() {
	echo "not ok - ${AFW_PREFIX}$1" >> "$AFW_TAP"
	afw_tap_log "not ok - ${AFW_PREFIX}$1"
	shift
	echo "FAIL: $*" >&2
	AFW_FAILED=1
	AFW_NFAILED=$((AFW_NFAILED + 1))
}

# check NAME CMD...: the check passes when CMD exits 0.
check() {
	local name=$1
	shift
	if "$@"; then
		ok "$name"
	else
		not_ok "$name" "command failed: $*"
	fi
}

# check_fails NAME CMD...: the check passes when CMD exits non-zero.
check_fails() {
	local name=$1
	shift
	if "$@"; then
		not_ok "$name" "command unexpectedly succeeded: $*"
	else
		ok "$name"
	fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected '$2', got '$3'"
	fi
}

# check_ge NAME MIN ACTUAL: integer ACTUAL >= MIN.
check_ge() {
	if [ -n "$3" ] && [ "$3" -ge "$2" ] 2>/dev/null; then
		ok "$1"
	else
		not_ok "$1" "expected at least $2, got '$3'"
	fi
}

# check_grep NAME PATTERN TEXT: extended regex PATTERN occurs in TEXT.
check_grep() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ok "$1"
	else
		not_ok "$1" "'$2' not found in: $3"
	fi
}

# sleep SECONDS: the same pause without a process, where SECONDS is a
# number: a read that times out on a FIFO of this shell's own, held open
# read-write so that it never ends. On the debug kernel under emulation a
# process start costs about a second, and polling loops paid it twice a
# round. Other arguments ("infinity", "1m") go to sleep(1).
sleep() {
	if [[ $# != 1 || ! "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		command sleep "$@"
		return
	fi
	# Subshells share the FIFO: nothing is ever written to it.
	if [ -z "${afw_sleep_fd:-}" ]; then
		local f
		f=$(mktemp -u) && mkfifo -m 600 "$f" && exec {afw_sleep_fd}<> "$f" &&
			rm -f "$f" || { command sleep "$1"; return; }
	fi
	read -rt "$1" -u "$afw_sleep_fd"
	return 0
}

# wait_until TIMEOUT_S CMD...: polls CMD every 0.1 s until it succeeds.
wait_until() {
	local deadline=$(( ${EPOCHREALTIME/./} + $1 * 1000000 ))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}
