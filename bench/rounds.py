#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
What afwd's rounds are made of, from an ftrace of an inspected stream
(bench/afwd.sh with AFW_BENCH_ROUNDS=1): function tracing on
nfqnl_enqueue_packet (a packet queued), and the events sched_switch and
sys_enter_io_uring_enter.

  bench/rounds.py TRACE RECEIVER_PID

A round is what afwd (its one worker) takes between two of its io_uring_enter()
calls: one system call a round. Each queued packet is put to the task in
whose context it was queued, which says where it came from:

  sender     the stream's sender, sending (its data)
  afwd       afwd itself, inside the io_uring_enter() whose verdicts let
             earlier packets on: what the receiver's TCP answered at once
             (its ACKs), in the softirq that call ran
  receiver   the receiving program, reading (its window updates)
  softirq    ksoftirqd, or any other task

Prints the rounds, their packets, how many rounds held only packets of one
origin and how large they were, and why the sender left the CPU (blocked,
or preempted as runnable).
"""
import collections
import re
import sys

LINE = re.compile(r'\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+):\s+(.*)$')
SWITCH = re.compile(r'prev_pid=(\d+) .*prev_state=(\S+) ==>')


def origin(comm, pid, receiver):
    if comm == 'afwd':
        return 'afwd'
    if pid == receiver:
        return 'receiver'
    if comm == 'iperf3':
        return 'sender'
    return 'softirq'


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, receiver = sys.argv[1], sys.argv[2]
    rounds = []
    cur = collections.Counter()
    started = False
    leaves = collections.Counter()
    for line in open(path, errors='replace'):
        if line.startswith('#'):
            continue
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, _, what = m.groups()
        if 'nfqnl_enqueue_packet' in what:
            cur[origin(comm.strip(), pid, receiver)] += 1
        elif what.startswith('sys_io_uring_enter') and comm.strip() == 'afwd':
            # The packets before the first call belong to a round cut in two.
            if started:
                rounds.append(cur)
            started = True
            cur = collections.Counter()
        elif what.startswith('sched_switch'):
            s = SWITCH.search(what)
            if s and comm.strip() == 'iperf3' and s.group(1) != receiver:
                leaves['preempted' if s.group(2).startswith('R') else 'blocked'] += 1
    packets = sum(sum(r.values()) for r in rounds)
    if not rounds:
        print('no round traced')
        return
    print('%d rounds, %d packets, %.2f packets a round, %.3f system calls a packet'
          % (len(rounds), packets, packets / len(rounds), len(rounds) / max(1, packets)))
    total = collections.Counter()
    for r in rounds:
        total.update(r)
    print('packets by origin: ' + ', '.join('%s %d' % kv for kv in sorted(total.items())))
    alone = collections.defaultdict(list)
    mixed = 0
    for r in rounds:
        if len(r) == 1:
            (k, n), = r.items()
            alone[k].append(n)
        elif r:
            mixed += 1
    for k in sorted(alone):
        sizes = alone[k]
        print('rounds of %s packets alone: %d, %.2f packets each (%d of one packet)'
              % (k, len(sizes), sum(sizes) / len(sizes), sizes.count(1)))
    print('rounds of mixed origin: %d; empty: %d'
          % (mixed, sum(1 for r in rounds if not r)))
    print('the sender left the CPU: ' +
          (', '.join('%s %d' % kv for kv in sorted(leaves.items())) or 'never'))


if __name__ == '__main__':
    main()
