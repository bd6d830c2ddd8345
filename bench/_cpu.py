"""CPU accounting shared by the throughput benchmarks: the machine's busy ticks, and the CPU the
sandbox's long-lived processes spent (warm servers, Node zygotes) with every child they reaped,
which is every sandboxed process of an execution."""

from __future__ import annotations

import os
from pathlib import Path

# the command lines of the processes that fork an execution's processes and reap them
REAPERS = (b"inside/_server.py", b"_pinbench_zygote.js")


def busy() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine so far."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def seconds() -> tuple[float, float]:
    """(CPU seconds of the warm servers and zygotes, with the children they reaped; of this
    host process), so far. Every living one is counted, children forked from them too: a
    process that ends between two readings moves what it spent into its reaper's children's
    time, which the second reading counts, so a difference of readings counts it once."""
    tick = os.sysconf("SC_CLK_TCK")
    reapers = 0
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
            if not any(marker in cmdline for marker in REAPERS):
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        reapers += sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    host = os.times()
    return reapers / tick, host.user + host.system
