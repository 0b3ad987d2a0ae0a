# SPDX-License-Identifier: GPL-2.0
#
# gdb's part of bench/hookpath.sh: on QEMU's gdbstub (AFW_STEP_SOCK), stop
# at AFW_STEP_FUNC (its address from the guest's kallsyms, AFW_STEP_SYMS) and
# single-step three calls until each returns (the stack pointer above the
# one at entry), writing every step as "CALL FUNCTION+OFFSET INSTRUCTION"
# to AFW_STEP_OUT and each call's count as "# call N: COUNT instructions".
# QEMU keeps interrupts off while it single-steps, so the steps are the
# call's own.
import bisect
import os

import gdb

syms = []
with open(os.environ["AFW_STEP_SYMS"]) as f:
    for line in f:
        p = line.split()
        if len(p) >= 3 and p[1] in "tTwW":
            syms.append((int(p[0], 16), p[2]))
syms.sort()
starts = [a for a, _ in syms]


def where(pc):
    i = bisect.bisect_right(starts, pc) - 1
    return "%s+0x%x" % (syms[i][1], pc - syms[i][0]) if i >= 0 else hex(pc)


def reg(name):
    return int(gdb.parse_and_eval(name)) & (2 ** 64 - 1)


target = [a for a, n in syms if n == os.environ["AFW_STEP_FUNC"]][0]
gdb.execute("set pagination off")
gdb.execute("target remote " + os.environ["AFW_STEP_SOCK"])
gdb.execute("break *0x%x" % target)
with open(os.environ["AFW_STEP_OUT"], "w") as out:
    for call in range(3):
        gdb.execute("continue")
        sp0 = reg("$sp")
        n = 0
        while True:
            ins = gdb.execute("x/i $pc", to_string=True).split(":", 1)[-1].strip()
            out.write("%d %s %s\n" % (call, where(reg("$pc")), ins))
            gdb.execute("stepi", to_string=True)
            n += 1
            if reg("$sp") > sp0 or n > 100000:
                break
        out.write("# call %d: %d instructions\n" % (call, n))
gdb.execute("delete")
gdb.execute("detach")
