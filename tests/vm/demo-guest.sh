#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the vm-demo VM: install afw as "make install" would (module where
# modprobe finds it, tools, man pages, bash completion), load it, make a
# little traffic, then show the status, run AFW_DEMO_CMD, or hand the
# console to a root shell (AFW_DEMO_SHELL).
set -u
kver=$(uname -r)
ip link set lo up
# The overlay is writable and thrown away at power-off: install for real.
# demo.sh ran depmod for afw.ko on the host (it takes minutes emulated).
install -D -m 0644 "$AFW_MODULES/extra/afw.ko" "/lib/modules/$kver/extra/afw.ko"
cp "$AFW_MODULES"/modules.* "/lib/modules/$kver/"
for f in afwctl afwd; do
	install -D -m 0755 "$AFW_SRC/build/$f" "/usr/local/sbin/$f"
	install -D -m 0644 "$AFW_SRC/dist/bash-completion/$f" \
		"/usr/local/share/bash-completion/completions/$f"
done
install -D -m 0644 -t /usr/local/share/man/man8 "$AFW_SRC/docs/afwctl.8" "$AFW_SRC/docs/afwd.8"
install -D -m 0644 -t /usr/local/share/man/man5 "$AFW_SRC/docs/afwd-policy.5"
install -D -m 0644 "$AFW_SRC/dist/afw.conf" /etc/afw/afw.conf
install -D -m 0644 "$AFW_SRC/dist/policy.conf" /etc/afw/policy.conf
modprobe afw || exit 1
# What afw.service does at boot: the settings and the ruleset.
afwctl load /etc/afw/afw.conf || exit 1

ip netns add demo
ip link add veth-host type veth peer name veth-demo netns demo
ip addr add 192.0.2.1/24 dev veth-host
ip link set veth-host up
ip -n demo link set lo up
ip -n demo addr add 192.0.2.2/24 dev veth-demo
ip -n demo link set veth-demo up
ping -q -c 5 -i 0.2 192.0.2.2 > /dev/null

if [ -n "${AFW_DEMO_CMD:-}" ]; then
	bash -c "$AFW_DEMO_CMD"
	exit
fi
echo "afw is loaded (modprobe afw); 5 pings went to namespace 'demo'. 'afwctl status' says:"
afwctl status || exit 1
[ -n "${AFW_DEMO_SHELL:-}" ] || exit 0

cat > /root/.afw-demo-rc <<'RC'
PS1='afw-vm# '
. /usr/local/share/bash-completion/completions/afwctl
. /usr/local/share/bash-completion/completions/afwd
RC
# The host terminal's size, so that man and long lines fit.
[ -n "${AFW_TTY_SIZE:-}" ] && stty rows "${AFW_TTY_SIZE% *}" cols "${AFW_TTY_SIZE#* }" < /dev/ttyS0
echo
echo "You are root inside the VM, booted in $(cut -d' ' -f1 /proc/uptime)s. afw is installed"
echo "(afwctl, afwd, 'man afwctl', tab completion). Try: ip netns exec demo ping 192.0.2.1,"
echo "then Ctrl-C; afwctl -j status. 'exit' powers the VM off."
# A session of its own with the serial line as its controlling terminal:
# without one, Ctrl-C reaches nothing and job control is off.
setsid -w -c bash --rcfile /root/.afw-demo-rc -i < /dev/ttyS0 > /dev/ttyS0 2>&1
exit 0
