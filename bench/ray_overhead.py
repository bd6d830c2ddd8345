"""The Ray executor's overhead over the local one, side by side on the same executions, and the
costs a capacity estimate needs (docs/ray.md).

  local   LocalExecutor, --jobs 2 (this machine's two cores)
  ray     RayExecutor on a local cluster started here: a head and a worker node, one CPU
          each (so two executions at once, as local), separate raylets and object stores

Both run the same N distinct tiny programs (half numpy 1.21.6, half pandas 1.3.5, interleaved:
two environments, so locality and replicas matter), all submitted at once as a run does, with
the outcome cache off. Runs alternate local/ray so machine noise hits both alike.

Also measured: the driver's CPU per execution under Ray (what bounds one driver), and the cost
of an environment on a node that has never built it (a fresh pinbench home, uv's download
cache warm): what a new node pays before its first execution of that environment.

Usage: uv run python bench/ray_overhead.py [--n 2000] [--runs 3] [--no-builds]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from pinbench.distributed.executor import RayExecutor
from pinbench.executions import ExecutionService
from pinbench.executors import Executor, LocalExecutor
from pinbench.paths import uv_cache_dir
from pinbench.problems.model import EnvSpec, TestKind, TestSpec
from pinbench.sandbox.outcome import Limits, Status

SUITES = (
    (
        EnvSpec(python="3.9", pins=("numpy==1.21.6",)),
        "import numpy as np\ndef f(x):\n    return int(np.square(np.int64(x))) + {i}\n",
        "assert f(3) == 9 + {i}",
    ),
    (
        EnvSpec(python="3.9", pins=("pandas==1.3.5",)),
        "import pandas as pd\ndef f(x):\n    return int(pd.Series([x, x]).sum()) + {i}\n",
        "assert f(3) == 6 + {i}",
    ),
)
NODE = {"num_cpus": 1, "object_store_memory": 100 * 1024**2}


async def execute_all(executor: Executor, n: int) -> tuple[float, float, int]:
    """(wall seconds, driver CPU seconds, passed) for n executions submitted at once."""
    handles = [await executor.prepare(spec) for spec, _, _ in SUITES]
    limits = Limits(wall_seconds=30)
    warm = [  # one per server and environment, so both sides start with warm servers
        executor.run(h, "x = 1\n", TestSpec(kind=TestKind.SCRIPT, code=""), limits, h.modules)
        for h in handles
        for _ in range(4)
    ]
    await asyncio.gather(*warm)
    jobs = []
    for i in range(n):
        handle, (_, program, test) = handles[i % 2], SUITES[i % 2]
        spec = TestSpec(kind=TestKind.SCRIPT, code=test.format(i=i))
        jobs.append(executor.run(handle, program.format(i=i), spec, limits, handle.modules))
    wall, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*jobs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, sum(r.status is Status.PASSED for r in results)


def one(
    kind: str, n: int, address: str, jobs: int | None = None
) -> tuple[float, float, float, int, dict[str, int]]:
    """(start-up s, wall s, driver CPU s, passed, stats) of one executor's run."""
    started = time.perf_counter()
    executor: Executor = (
        LocalExecutor(2, service=ExecutionService(jobs=2, cache=False))
        if kind == "local"
        else RayExecutor(address, jobs=jobs, cache=False)
    )
    startup = time.perf_counter() - started
    try:
        wall, cpu, passed = asyncio.run(execute_all(executor, n))
        stats = executor.stats()
    finally:
        executor.close()
    return startup, wall, cpu, passed, stats


def fresh_node_builds() -> dict[str, float]:
    """Seconds to make each environment ready in a pinbench home that has none (a new node),
    uv's download cache warm: venv, install by hardlinks, bytecode compiled once."""
    seconds = {}
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PINBENCH_HOME": home, "UV_CACHE_DIR": str(uv_cache_dir())}
        for spec, _, _ in SUITES:
            code = (
                "import time; from pinbench.envs.builder import ensure; "
                "from pinbench.problems.model import EnvSpec; t = time.perf_counter(); "
                f"ensure(EnvSpec.model_validate_json({spec.model_dump_json()!r})); "
                "print(time.perf_counter() - t)"
            )
            done = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            )
            seconds[spec.pins[0]] = float(done.stdout.strip().splitlines()[-1])
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-builds", action="store_true")
    parser.add_argument(
        "--wide", type=int, default=8, help="also: driver CPU with this many slots per node"
    )
    args = parser.parse_args()

    from ray.cluster_utils import Cluster

    head = {**NODE, "include_dashboard": False}
    cluster = Cluster(initialize_head=True, head_node_args=head)
    results: dict[str, list[tuple[float, float, float, int, dict[str, int]]]] = {
        "local": [],
        "ray": [],
    }
    try:
        cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        for run in range(args.runs):
            for kind in ("local", "ray"):
                results[kind].append(one(kind, args.n, cluster.address))
                startup, wall, cpu, passed, _ = results[kind][-1]
                print(
                    f"run {run + 1} {kind:5}: {wall:6.2f} s for {args.n} ({args.n / wall:5.0f}/s), "
                    f"start-up {startup:4.2f} s, driver CPU {1000 * cpu / args.n:.2f} ms/exec, "
                    f"passed {passed}/{args.n}",
                    flush=True,
                )
        if args.wide:  # nodes declaring more slots than cores: the batches a wide node gets
            _, wall, cpu, _, stats = one("ray", args.n, cluster.address, jobs=args.wide)
            print(
                f"ray, {args.wide} slots per node: {wall:.2f} s, driver CPU "
                f"{1000 * cpu / args.n:.2f} ms/exec, {stats.get('calls', 0)} calls"
            )
    finally:
        cluster.shutdown()
    medians = {k: statistics.median(r[1] for r in v) for k, v in results.items()}
    print(
        f"\nmedian wall: local {medians['local']:.2f} s, ray {medians['ray']:.2f} s; "
        f"ray/local = {medians['ray'] / medians['local']:.2f}x"
    )
    per_exec = 2 * medians["local"] / args.n  # two slots busy for the whole run
    driver = statistics.median(r[2] for r in results["ray"]) / args.n
    startup = statistics.median(r[0] for r in results["ray"])
    ray_stats: dict[str, Any] = results["ray"][-1][4]
    print(
        f"slot-seconds per execution (local): {1000 * per_exec:.2f} ms; "
        f"driver CPU per execution (ray): {1000 * driver:.2f} ms; "
        f"ray start-up (connect, actors): {startup:.2f} s; last ray run: {ray_stats}"
    )
    if not args.no_builds:
        builds = fresh_node_builds()
        print("environment on a fresh node (uv cache warm): " + ", ".join(
            f"{pin} {s:.2f} s" for pin, s in builds.items()
        ))  # fmt: skip


if __name__ == "__main__":
    main()
