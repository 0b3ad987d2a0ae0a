#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make vm-demo at a terminal, driven through tmux as a user would: the
# shell comes up, loopback works, Ctrl-C stops a running ping and gives the
# prompt back, tab completion and man pages are there, "exit" powers off.
# Prints TAP lines (tests/lib/tap.sh); tests/run's vm stage runs it.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/lib/tap.sh"
AFW_PREFIX="[vm-demo tty] "
sock=afw-demo-$$
work=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT

# screen: the pane as text, blank lines dropped.
screen() { tm capture-pane -p -J -S -200 -t demo | sed '/^ *$/d'; }
# shows SECONDS REGEX: waits until the pane holds REGEX.
shows() { wait_until "$1" sh -c "tmux -L $sock capture-pane -p -J -S -200 -t demo | grep -Eq -- '$2'"; }
# prompt_last: the pane's last line is the prompt, nothing running.
prompt_last() { [ "$(screen | tail -n 1 | sed 's/ *$//')" = "afw-vm#" ]; }

tm new-session -d -s demo -x 120 -y 40 \
	"'$src/tests/vm/demo.sh'; echo \"demo exited \$?\"; sleep 600"
if ! shows 300 '^afw-vm# '; then
	not_ok "the demo's shell comes up" "$(screen | tail -n 20)"
	exit 1
fi
ok "the demo's shell comes up"
check_grep "the banner says how long the boot took" "booted in [0-9.]+s" "$(screen)"
echo "vm-demo: $(screen | grep -o 'booted in [0-9.]*s') (guest time, until the shell)" >&2

tm send-keys -t demo 'ping 127.0.0.1' Enter
check "loopback is up: ping 127.0.0.1 answers" shows 30 '64 bytes from 127\.0\.0\.1'
tm send-keys -t demo C-c
check "Ctrl-C stops ping: it prints its summary" shows 15 'packets transmitted'
check "and the prompt comes back" wait_until 10 prompt_last
tm send-keys -t demo 'echo after-ctrl-c $((6 * 7))' Enter
check "the same shell goes on" shows 10 '^after-ctrl-c 42'

tm send-keys -t demo 'afwctl rule l' Tab
check "tab completes afwctl's words" shows 10 'afwctl rule list'
tm send-keys -t demo C-u 'man -P cat afwctl | head -n 5' Enter
check "man afwctl shows the page" shows 30 'afwctl - configure the afw'
tm send-keys -t demo 'modprobe -r afw && modprobe afw && echo modprobe-ok' Enter
check "modprobe afw finds the module" shows 30 '^modprobe-ok'

tm send-keys -t demo 'exit' Enter
check "exit powers the VM off and the demo ends with 0" shows 60 '^demo exited 0'
exit $AFW_FAILED
