#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Requests the module must refuse, each with an error a human can read.
. "$AFW_SRC/tests/vm/lib.sh"

probe=$AFW_SRC/tests/tools/nlprobe.py

check "insmod afw.ko" afw_load
on_exit afw_unload

check_grep "a well-formed STATUS_GET is answered" '^ok' "$(python3 "$probe" status)"
check_grep "STATUS_GET carrying a reply-only attribute gets EINVAL and says why" \
	'^error 22 reply-only attribute' "$(python3 "$probe" status-with-attr)"
check_grep "an attribute beyond the policy gets EINVAL" \
	'^error 22' "$(python3 "$probe" status-unknown-attr)"
check_grep "an unknown command gets EOPNOTSUPP" \
	'^error 95' "$(python3 "$probe" unknown-cmd)"
check_grep "a truncated attribute gets EINVAL" \
	'^error 22' "$(python3 "$probe" truncated-attr)"
check_grep "RESET with an attribute is refused before acting" \
	'^error 22 reply-only attribute' "$(python3 "$probe" reset-with-attr)"
check "the module still answers afterwards" "$AFWCTL" status

exit $AFW_FAILED
