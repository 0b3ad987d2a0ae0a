#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reading status is open to every user; changing state needs CAP_NET_ADMIN
# over the namespace, which a user namespace's root has for its own netns
# (GENL_UNS_ADMIN_PERM) and nobody has for the initial one.
. "$AFW_SRC/tests/vm/lib.sh"

nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)

check "insmod afw.ko" afw_load
on_exit afw_unload
ip netns add $NS_C
nsx $NS_C ip link set lo up
afw_activate $NS_C
nsx $NS_C ping -q -c 3 -i 0.05 127.0.0.1 > /dev/null

check "nobody can read status" "${nobody[@]}" "$AFWCTL" status
out=$("${nobody[@]}" "$AFWCTL" reset-counters 2>&1)
rc=$?
check_eq "nobody's reset-counters exits 1" 1 "$rc"
check_grep "nobody is told that CAP_NET_ADMIN is needed" \
	'^afwctl: reset-counters: permission denied: this needs CAP_NET_ADMIN' "$out"
check_eq "the error is a single line" 1 "$(printf '%s\n' "$out" | wc -l)"
out=$("${nobody[@]}" "$AFWCTL" config 2>&1)
check_grep "the settings are the admin's to read: nobody is told so" \
	'permission denied: this needs CAP_NET_ADMIN' "$out"

before=$(counter $NS_C ipv4 in packets)
check_ge "loopback pings were counted" 3 "$before"
check "nobody's failed reset changed nothing" test "$(counter $NS_C ipv4 in packets)" -ge "$before"

check "root resets the counters" "$AFWCTL" -n $NS_C reset-counters
check_eq "counters read zero after reset" 0 "$(counter $NS_C ipv4 in packets)"
nsx $NS_C ping -q -c 2 -i 0.05 127.0.0.1 > /dev/null
# Over loopback each echo request and each reply passes LOCAL_IN once.
check_eq "counting resumes from zero" 4 "$(counter $NS_C ipv4 in packets)"

# An unprivileged user who owns a user namespace and a netns in it may reset
# that netns's counters, and the initial namespace keeps its own.
init_before=$(counter - ipv4 out packets)
check "a user namespace's root resets its own netns" \
	"${nobody[@]}" unshare --user --map-root-user --net \
	sh -c "ip link set lo up && $AFWCTL config set enabled yes && \
	       ping -q -c 2 127.0.0.1 >/dev/null && \
	       test \"\$($AFWCTL -j status | jq '[.counters[].packets] | add')\" -ge 4 && \
	       $AFWCTL reset-counters && \
	       test \"\$($AFWCTL -j status | jq '[.counters[].packets] | add')\" = 0"
check "the initial namespace's counters were not reset" \
	test "$(counter - ipv4 out packets)" -ge "$init_before"

# Flows are allocated by packets, in softirq, where no memory cgroup pays
# for them: a user namespace's root may lower its max_flows, or raise it up
# to the module's max_flows (65536), but not past that; the host's root may.
out=$("${nobody[@]}" unshare --user --map-root-user --net sh -c "
	$AFWCTL config set max_flows 1000 && $AFWCTL config set max_flows 65536 || exit 10
	$AFWCTL config set max_flows 65537 2>&1 && exit 11
	test \"\$($AFWCTL -j config | jq .max_flows)\" = 65536 || exit 12")
check_eq "a user namespace's root sets max_flows up to the module's, not past it" 0 $?
check_grep "and is told why" \
	"max_flows above the module's max_flows needs CAP_NET_ADMIN in the initial user namespace" "$out"
check "the host's root raises a namespace's max_flows past it" \
	"$AFWCTL" -n $NS_C config set max_flows 100000
check_eq "and it holds" 100000 "$("$AFWCTL" -n $NS_C -j config | jq .max_flows)"

exit $AFW_FAILED
