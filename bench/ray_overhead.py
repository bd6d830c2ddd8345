"""The Ray executor's overhead over the local one, side by side on the same executions, and the
costs a capacity estimate needs (docs/ray.md).

  local   LocalExecutor, --jobs 2 (this machine's two cores)
  ray     RayExecutor on a local cluster started here: a head and a worker node, one CPU
          each (so two executions at once, as local), separate raylets and object stores

Both run the same N distinct tiny programs (half numpy 1.21.6, half pandas 1.3.5, interleaved:
two environments, so locality and replicas matter), all submitted at once as a run does, with
the outcome cache off. Runs alternate local/ray so machine noise hits both alike.

Also measured: the driver's CPU per execution under Ray (what bounds one driver), the same with
wider nodes (more slots per node: bigger batches), a whole `pinbench run` of N samples through
each executor (the runner's own bookkeeping and SQLite commits included: the sample dataset's
three packaging problems, each sample a distinct program), and the cost of an environment on a
node that has never built it (a fresh pinbench home, uv's download cache warm): what a new node
pays before its first execution of that environment.

Usage: uv run python bench/ray_overhead.py [--n 2000] [--runs 3] [--no-builds]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Limits, Status
from pinbench.core.paths import uv_cache_dir
from pinbench.core.tests import TestKind, TestSpec
from pinbench.evaluation.config import RunConfig
from pinbench.evaluation.runner import Runner
from pinbench.execution.base import Executor
from pinbench.execution.local import ExecutionService, LocalExecutor
from pinbench.execution.ray.executor import RayExecutor
from pinbench.models.base import Generation, Request
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.task import GenerationTask, item_of

SUITES = (
    (
        EnvSpec(version="3.9", pins=("numpy==1.21.6",)),
        "import numpy as np\ndef f(x):\n    return int(np.square(np.int64(x))) + {i}\n",
        "assert f(3) == 9 + {i}",
    ),
    (
        EnvSpec(version="3.9", pins=("pandas==1.3.5",)),
        "import pandas as pd\ndef f(x):\n    return int(pd.Series([x, x]).sum()) + {i}\n",
        "assert f(3) == 6 + {i}",
    ),
)
NODE = {"num_cpus": 1, "object_store_memory": 100 * 1024**2}
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "problems.jsonl"
# (start-up s, wall s, driver CPU s, passed, executor stats) of one executor's run
Result = tuple[float, float, float, int, dict[str, int]]


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


def make(kind: str, address: str, jobs: int | None = None) -> Executor:
    """Either executor, two executions at once (unless `jobs` widens the nodes), no cache."""
    if kind == "local":
        return LocalExecutor(2, service=ExecutionService(jobs=2, cache=False))
    return RayExecutor(address, jobs=jobs, cache=False)


def one(kind: str, n: int, address: str, jobs: int | None = None) -> Result:
    started = time.perf_counter()
    executor = make(kind, address, jobs)
    startup = time.perf_counter() - started
    try:
        wall, cpu, passed = asyncio.run(execute_all(executor, n))
        stats = executor.stats()
    finally:
        executor.close()
    return startup, wall, cpu, passed, stats


class Variants:
    """The reference solution, a distinct program per sample (no two samples are one execution)."""

    name = "variants"

    def __init__(self, problems: list[Problem]) -> None:
        self._solutions = {p.id: p.solution for p in problems}

    async def generate(self, request: Request) -> Generation:
        program = f"{self._solutions[request.problem_id]}\n# sample {request.sample}\n"
        return Generation(text=f"```python\n{program}```", finish_reason="stop")

    async def aclose(self) -> None:
        return None


def end_to_end(kind: str, n: int, address: str) -> tuple[float, float]:
    """(wall s, driver CPU s) of a whole run of about n samples, fresh store, no caches."""
    problems = [p for p in load_dataset(SAMPLE).problems if p.library == "packaging"]
    config = RunConfig(model="variants", n=n // len(problems), temperature=0.8)
    executor = make(kind, address)
    with tempfile.TemporaryDirectory() as results:
        store = RunStore(Path(results) / "pinbench.sqlite")
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            items = [item_of(p) for p in problems]
            runner = Runner(
                config, items, Variants(problems), store, executor, task=GenerationTask()
            )
            summary = asyncio.run(runner.run())
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            executor.close()
            store.close()
    assert summary.scores.statuses == {"passed": config.n * len(problems)}, summary.scores
    return wall, cpu


def fresh_node_builds() -> dict[str, float]:
    """Seconds to make each environment ready in a pinbench home that has none (a new node),
    uv's download cache warm: venv, install by hardlinks, bytecode compiled once."""
    seconds = {}
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PINBENCH_HOME": home, "UV_CACHE_DIR": str(uv_cache_dir())}
        for spec, _, _ in SUITES:
            code = (
                "import time; from pinbench.envs.python.builder import ensure; "
                "from pinbench.core.env import EnvSpec; t = time.perf_counter(); "
                f"ensure(EnvSpec.model_validate_json({spec.model_dump_json()!r})); "
                "print(time.perf_counter() - t)"
            )
            done = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            )
            seconds[spec.pins[0]] = float(done.stdout.strip().splitlines()[-1])
    return seconds


@contextlib.contextmanager
def local_cluster() -> Iterator[str]:
    """A head and a worker node on this machine; yields the address."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    try:
        cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()


def compare(address: str, n: int, runs: int) -> dict[str, list[Result]]:
    """Local and ray, alternating, `runs` times each."""
    results: dict[str, list[Result]] = {"local": [], "ray": []}
    for run in range(runs):
        for kind in ("local", "ray"):
            results[kind].append(one(kind, n, address))
            startup, wall, cpu, passed, _ = results[kind][-1]
            print(
                f"run {run + 1} {kind:5}: {wall:6.2f} s for {n} ({n / wall:5.0f}/s), "
                f"start-up {startup:4.2f} s, driver CPU {1000 * cpu / n:.2f} ms/exec, "
                f"passed {passed}/{n}",
                flush=True,
            )
    return results


def summarise(results: dict[str, list[Result]], n: int) -> None:
    medians = {k: statistics.median(r[1] for r in v) for k, v in results.items()}
    print(
        f"\nmedian wall: local {medians['local']:.2f} s, ray {medians['ray']:.2f} s; "
        f"ray/local = {medians['ray'] / medians['local']:.2f}x"
    )
    per_exec = 2 * medians["local"] / n  # two slots busy for the whole run
    driver = statistics.median(r[2] for r in results["ray"]) / n
    startup = statistics.median(r[0] for r in results["ray"])
    print(
        f"slot-seconds per execution (local): {1000 * per_exec:.2f} ms; "
        f"driver CPU per execution (ray): {1000 * driver:.2f} ms; "
        f"ray start-up (connect, actors): {startup:.2f} s; last ray run: {results['ray'][-1][4]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-builds", action="store_true")
    parser.add_argument(
        "--wide", type=int, default=8, help="also: driver CPU with this many slots per node"
    )
    args = parser.parse_args()
    with local_cluster() as address:
        results = compare(address, args.n, args.runs)
        for kind in ("local", "ray"):
            wall, cpu = end_to_end(kind, args.n, address)
            print(
                f"pinbench run, {args.n} samples, {kind:5}: {wall:6.2f} s, "
                f"driver CPU {1000 * cpu / args.n:.2f} ms/sample",
                flush=True,
            )
        if args.wide:  # nodes declaring more slots than cores: the batches a wide node gets
            _, wall, cpu, _, stats = one("ray", args.n, address, jobs=args.wide)
            print(
                f"ray, {args.wide} slots per node: {wall:.2f} s, driver CPU "
                f"{1000 * cpu / args.n:.2f} ms/exec, {stats.get('calls', 0)} calls"
            )
    summarise(results, args.n)
    if not args.no_builds:
        builds = fresh_node_builds()
        print("environment on a fresh node (uv cache warm): " + ", ".join(
            f"{pin} {s:.2f} s" for pin, s in builds.items()
        ))  # fmt: skip


if __name__ == "__main__":
    main()
