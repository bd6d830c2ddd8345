"""The Node toolchain: environment build time with a warm store, the disk a second environment of
the same packages adds, and executions per second of a tiny Jest-style test beside the usual
ways (`npx jest` per sample, a fresh `node` per sample), side by side in one run.

Usage: uv run python bench/node.py [--runs 5] [--executions 40]
"warm store": the environment removed and rebuilt; npm's cache and the package store are warm.
"pinbench": `execute` with full isolation (own uid, namespaces, seccomp, limits) per sample,
trusted (the test in a grader process, the program in its own) and in-process (one process);
cold (a fresh sandbox per sample) and warm (the warm servers `run` and `validate` use: with the
Node zygotes, which fork both processes, with Node's code on huge pages and without,
PINBENCH_NODE_LARGE_PAGES=0, and without zygotes, PINBENCH_NODE_ZYGOTE=0), warm rates
alternating rounds on the same servers, one sample at a time and two at once, each round with
the CPU an execution cost (warm servers and zygotes with every process they reaped, and this
host process) and how busy the machine's CPUs were.
"npx jest": `npx jest` on a directory with the program and its test, per sample (no sandbox).
"fresh node": the harness's runner in a fresh `node`, per sample (no sandbox).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _cpu  # beside this file

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.node.builder import NodeEnvironment, build, resolve
from pinbench.envs.node.syntax import TYPESCRIPT
from pinbench.sandbox import zygote
from pinbench.sandbox.execute import execute
from pinbench.sandbox.jobs import INSIDE
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

PACKAGES = ("lodash@4.17.21", "dayjs@1.11.10", "semver@7.5.4")
HARNESS = ("expect@26.6.2",)
PROGRAM = "const _ = require('lodash');\nmodule.exports = { total: (xs) => _.sum(xs) };\n"
TEST = """const { total } = require('./solution');
test('sums', () => { expect(total([1, 2, 3])).toBe(6); });
test('empty', () => { expect(total([])).toBe(0); });
"""


def _unique_bytes(path: Path) -> int:
    """Bytes only this environment holds: files not hard-linked from the store."""
    total = 0
    for entry in path.rglob("*"):
        if entry.is_symlink():
            continue
        info = entry.stat()
        if entry.is_dir() or info.st_nlink == 1:
            total += info.st_blocks * 512
    return total


def envs(runs: int) -> NodeEnvironment:
    spec = EnvSpec(toolchain="node", version=None, pins=PACKAGES, extras=HARNESS)
    resolution = resolve(spec)
    first = build(resolution)
    times = []
    for _ in range(runs):
        shutil.rmtree(first.path)
        started = time.perf_counter()
        env = build(resolution)
        times.append(time.perf_counter() - started)
    other = build(resolve(spec.model_copy(update={"version": "18.20.4"})))
    print(f"environment, warm store: median {statistics.median(times):.2f} s over {runs} builds")
    print(f"second environment of the same packages: {_unique_bytes(other.path) / 1e6:.2f} MB")
    return env


def pinbench_rate(
    env: NodeEnvironment, n: int, in_process: bool, warm: WarmPools | None = None, at_once: int = 1
) -> float:
    spec = TestSpec(kind=TestKind.JEST, code=TEST, module="solution", in_process=in_process)

    def one(_: int) -> None:
        result = execute(env.interpreter, PROGRAM, spec, Limits(wall_seconds=30), warm=warm)
        assert result.status is Status.PASSED, result

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        list(pool.map(one, range(n)))
    return n / (time.perf_counter() - started)


def warm_rates(env: NodeEnvironment, n: int, rounds: int) -> dict[str, list[float]]:
    """Trusted, warm: with the zygotes (Node's code on huge pages, and not) and without,
    alternating rounds on the same servers."""
    pools = {}
    variants = (
        ("fresh processes", "0", "1"),
        ("zygotes, small pages", "1", "0"),
        ("zygotes", "1", "1"),
    )
    for name, flag, large in variants:
        os.environ["PINBENCH_NODE_ZYGOTE"] = flag  # read as each pool's servers start
        os.environ["PINBENCH_NODE_LARGE_PAGES"] = large
        zygote.zygote_dir.cache_clear()
        pools[name] = WarmPools(detect(), per_env=2)
        pinbench_rate(env, 4, in_process=False, warm=pools[name], at_once=2)  # start both
    os.environ.pop("PINBENCH_NODE_ZYGOTE")
    os.environ.pop("PINBENCH_NODE_LARGE_PAGES")
    rates: dict[str, list[float]] = {}
    for round_ in range(rounds):
        for name, warm in pools.items():
            for at_once in (1, 2):
                busy, spent = _cpu.busy(), _cpu.seconds()
                rate = pinbench_rate(env, n, False, warm=warm, at_once=at_once)
                busy_after, spent_after = _cpu.busy(), _cpu.seconds()
                rates.setdefault(f"{name}, {at_once} at once", []).append(rate)
                # what caps the rate once both cores are busy: the CPU each execution costs
                sandbox, host = ((spent_after[i] - spent[i]) * 1000 / n for i in (0, 1))
                load = 100 * (busy_after[0] - busy[0]) / max(1, busy_after[1] - busy[1])
                print(
                    f"round {round_ + 1}, {name}, {at_once} at once: {rate:.1f} per s, CPU per"
                    f" execution {sandbox + host:.1f} ms (host {host:.1f}), CPUs {load:.0f}% busy"
                )
        # the usual way on both cores, in the same rounds: the machine's noise drifts
        rates.setdefault("fresh node, 2 at once", []).append(fresh_node_parallel(env, n // 2))
    for warm in pools.values():
        warm.close()
    return rates


def fresh_node_parallel(env: NodeEnvironment, n: int) -> float:
    """Two fresh `node` processes at a time: the usual way on both cores."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        started = time.perf_counter()
        list(pool.map(lambda _: fresh_node_rate(env, n // 2), range(2)))
        return n / (time.perf_counter() - started)


TS_PROGRAM = (
    "import _ from 'lodash';\n"
    "export function total(xs: number[]): number {\n  return _.sum(xs);\n}\n"
)


def typescript_rate(n: int) -> float:
    """The same test against a TypeScript program (type-checked, then run), trusted: what a
    TypeScript execution costs on top (the check on the harness's Node)."""
    spec = EnvSpec(
        toolchain="node",
        version=None,
        pins=(*PACKAGES, "@types/lodash@4.17.0"),
        extras=(*HARNESS, TYPESCRIPT),
    )
    env = build(resolve(spec))
    test = TestSpec(kind=TestKind.JEST, code=TEST, module="solution", program_suffix=".ts")
    execute(env.interpreter, TS_PROGRAM, test, Limits(wall_seconds=60))  # warm the page cache
    started = time.perf_counter()
    for _ in range(n):
        result = execute(env.interpreter, TS_PROGRAM, test, Limits(wall_seconds=60))
        assert result.status is Status.PASSED, result
    return n / (time.perf_counter() - started)


def fresh_node_rate(env: NodeEnvironment, n: int) -> float:
    with tempfile.TemporaryDirectory() as work:
        Path(work, "solution.js").write_text(PROGRAM)
        Path(work, "test_solution.js").write_text(TEST)
        os.symlink(env.path / "node_modules", Path(work, "node_modules"))
        runner = INSIDE / "_pinbench_jest.js"
        argv = [str(env.node), str(runner), "local", f"{work}/solution.js"]
        argv += [f"{work}/test_solution.js", "1"]
        started = time.perf_counter()
        for _ in range(n):
            out = subprocess.run(argv, capture_output=True, text=True, check=True)
            assert '"passed":2' in out.stdout, out.stdout
        return n / (time.perf_counter() - started)


def npx_jest_rate(n: int) -> float:
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "jest@29.7.0", "lodash@4.17.21"],
            cwd=work, capture_output=True, check=True,
        )  # fmt: skip
        Path(work, "solution.js").write_text(PROGRAM)
        Path(work, "solution.test.js").write_text(TEST)
        started = time.perf_counter()
        for _ in range(n):
            subprocess.run(["npx", "jest", "--ci"], cwd=work, capture_output=True, check=True)
        return n / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--executions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3, help="alternating warm rounds")
    args = parser.parse_args()
    env = envs(args.runs)
    n = args.executions
    warm = warm_rates(env, n, args.rounds)
    ours = pinbench_rate(env, n, in_process=False)
    one = pinbench_rate(env, n, in_process=True)
    fresh = fresh_node_rate(env, n)
    jest = npx_jest_rate(max(5, n // 8))
    typescript = typescript_rate(max(5, n // 4))
    for name, rates in warm.items():
        shown = " / ".join(f"{rate:.1f}" for rate in rates)
        print(f"pinbench warm, {name}: {shown} per s (median {statistics.median(rates):.1f})")
    best = statistics.median(warm["zygotes, 1 at once"])
    both = statistics.median(warm["zygotes, 2 at once"])
    fresh2 = statistics.median(warm["fresh node, 2 at once"])
    print(
        f"warm zygotes: {best / jest:.1f}x npx jest, {best / fresh:.2f}x fresh node (one at a"
        f" time); {both / fresh2:.2f}x fresh node two at once"
    )
    print(f"pinbench cold (full isolation): {ours:6.2f} executions/s (trusted: grader + program)")
    print(f"pinbench, TypeScript     : {typescript:6.2f} executions/s (trusted, type-checked)")
    print(f"pinbench, one process    : {one:6.2f} executions/s (in-process grading)")
    print(f"fresh node per sample     : {fresh:6.2f} executions/s (no sandbox)")
    print(f"npx jest per sample       : {jest:6.2f} executions/s (no sandbox)")
    print(f"ratios: pinbench/npx jest {ours / jest:.1f}x, pinbench/fresh node {ours / fresh:.2f}x")


if __name__ == "__main__":
    main()
