#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM beside the job: a sign of life for boot.sh, which
# stops a guest that shows none for long. A job may be quiet for many
# minutes (a benchmark under -icount, a scenario's wait); this is not.
while :; do
	date +%s > /afw-out/heartbeat
	sleep 10
done
