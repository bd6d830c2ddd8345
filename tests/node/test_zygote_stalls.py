"""A warm server's watch for stalled Node zygote children (`_zygotes.Stalls`), on real
processes: a child forked from a multithreaded Node can wait forever on a lock its fork copied
(a futex no thread of the child will release), and the server must tell it from a child that
computes or sleeps, so that the execution is run again in fresh processes instead of being
reported as the program's timeout."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

INSIDE = Path(__file__).resolve().parents[2] / "src/pinbench/sandbox/inside"

# A "zygote" whose one child does what the test names; the child's pid is printed.
PARENT = """
import os, sys, threading, time
kind = sys.argv[1]
pid = os.fork()
if pid == 0:
    if kind == "stalled":  # a lock held by no one left to release it: a futex wait, no CPU
        lock = threading.Lock()
        lock.acquire()
        lock.acquire()
    elif kind == "busy":
        while True:
            pass
    else:  # asleep: a timer, not a futex
        time.sleep(600)
    os._exit(0)
print(pid, flush=True)
time.sleep(600)
"""


def _stalls_class() -> type:
    sys.path.insert(0, str(INSIDE))
    try:
        import _zygotes  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    stalls: type = _zygotes.Stalls
    return stalls


@pytest.fixture
def zygote(request: pytest.FixtureRequest) -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", PARENT, request.param], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    time.sleep(0.3)  # the child is in its wait (or loop) by now
    try:
        yield proc.pid
    finally:
        subprocess.run(["kill", "-9", str(child), str(proc.pid)], check=False)
        proc.wait()


@pytest.mark.parametrize(
    ("zygote", "stalled"),
    [("stalled", True), ("busy", False), ("asleep", False)],
    indirect=["zygote"],
)
def test_a_child_waiting_on_a_futex_without_cpu_is_a_stall(zygote: int, stalled: bool) -> None:
    stalls = _stalls_class()([zygote])
    assert not stalls.check()  # one look is never enough: the CPU must stand still between two
    time.sleep(0.3)
    assert stalls.check() is stalled and stalls.found is stalled


def test_no_zygote_or_a_gone_one_is_no_stall() -> None:
    stalls = _stalls_class()([2**22 - 7])  # no such process
    assert not stalls.check() and not stalls.check()
