"""What deprecation capture costs (target: < 5 % of executions/s), side by side in one process:
batches with capture on and off alternate (PINBENCH_DEPRECATIONS), outcome cache off, on the
warm and the cold path, for a program that raises a deprecation (numpy 1.21's `np.float`) and
one that raises none.

    uv run python bench/deprecations.py [--batches 6] [--per-batch 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs import ensure
from pinbench.sandbox.execute import execute
from pinbench.sandbox.grade import CAPTURE_VARIABLE
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

DEPRECATED = "import numpy as np\n\ndef f(x):\n    return np.float(x)\n"
CLEAN = "import numpy as np\n\ndef f(x):\n    return float(np.float64(x))\n"
TEST = TestSpec(kind=TestKind.SCRIPT, code="assert f(2) == 2.0")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--per-batch", type=int, default=20)
    args = parser.parse_args()
    env = ensure(EnvSpec(version="3.9", pins=("numpy==1.21.6",)))
    isolation = detect()
    pools = WarmPools(isolation, per_env=1)
    rates: dict[tuple[str, str, str], list[float]] = {}
    for batch in range(args.batches):
        for capture in ("on", "off") if batch % 2 == 0 else ("off", "on"):
            os.environ[CAPTURE_VARIABLE] = capture
            for path, warm in (("warm", pools), ("cold", None)):
                count = args.per_batch if warm is not None else max(4, args.per_batch // 4)
                for name, program in (("deprecated", DEPRECATED), ("clean", CLEAN)):
                    started = time.perf_counter()
                    for _ in range(count):
                        result = execute(
                            env.python, program, TEST, isolation=isolation, warm=warm,
                            preload=("numpy",) if warm else (), libraries=("numpy",),
                        )  # fmt: skip
                        assert result.status is Status.PASSED, result
                        assert (result.deprecations is not None) == (capture == "on"), result
                    seconds = time.perf_counter() - started
                    rates.setdefault((path, name, capture), []).append(count / seconds)
    pools.close()
    print(f"{'path':6} {'program':11} {'on /s':>8} {'off /s':>8} {'cost':>7}")
    for path in ("warm", "cold"):
        for name in ("deprecated", "clean"):
            on = statistics.median(rates[(path, name, "on")])
            off = statistics.median(rates[(path, name, "off")])
            print(f"{path:6} {name:11} {on:8.2f} {off:8.2f} {100 * (1 - on / off):6.1f}%")


if __name__ == "__main__":
    main()
