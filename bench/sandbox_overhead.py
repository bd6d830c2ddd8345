"""Sandbox overhead of one cold execution over a bare `python -c pass` of the same interpreter.

Usage: uv run python bench/sandbox_overhead.py [--runs 40]
Interleaves the two so machine noise hits both alike; prints medians per isolation level.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.sandbox.execute import execute
from pinbench.sandbox.isolation import FULL, NONE, USERNS
from pinbench.sandbox.probe import detect


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    python = ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4",))).python
    test = TestSpec(kind=TestKind.SCRIPT, code="assert x == 1")
    best = detect()
    levels = [iso for iso in (FULL, USERNS, NONE) if iso.level in {best.level, "none", "userns"}]
    bare: list[float] = []
    sandboxed: dict[str, list[float]] = {iso.level: [] for iso in levels}
    for _ in range(args.runs):
        started = time.perf_counter()
        subprocess.run([str(python), "-c", "pass"], check=True)
        bare.append(time.perf_counter() - started)
        for iso in levels:
            started = time.perf_counter()
            result = execute(python, "x = 1", test, isolation=iso)
            sandboxed[iso.level].append(time.perf_counter() - started)
            assert result.status is Status.PASSED, result
    base = statistics.median(bare)
    print(f"bare `python -c pass`: median {base * 1000:.1f} ms over {args.runs} runs")
    for level, times in sandboxed.items():
        med = statistics.median(times)
        print(
            f"sandboxed ({level:6}): median {med * 1000:.1f} ms, "
            f"overhead {(med - base) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
