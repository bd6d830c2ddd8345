"""Executions per second, side by side on the same programs:

  warm      pinbench, warm servers (library preloaded, one forked sandboxed child per run)
  cold      pinbench, a fresh sandboxed interpreter per run
  fresh     `python program.py` per run, no sandbox (the usual way, minus pytest)
  pytest    the GitChameleon-style baseline: `python -m venv` + `pip install` per environment,
            then `python -m pytest` per sample in a thread pool of 0.75 x cores

Usage: uv run python bench/throughput.py [--n 300] [--n-slow 40] [--jobs J]
       uv run python bench/throughput.py --sweep 2,3 [--n 1500] [--rounds 3]
       uv run python bench/throughput.py --grading [--n 600] [--rounds 3]
Slow paths run the first --n-slow programs of the same list. Tiny numpy tests, then pandas.
pinbench runs --jobs executions at once (default: its own default, cores + 1). --sweep runs
only the warm path on numpy, alternating the given --jobs values round by round, and prints
each round's rate and how busy the machine's CPUs were. --grading runs the warm path on both
suites, alternating trusted and in-process grading (PINBENCH_GRADING) round by round on the same
servers, and prints the medians, their ratio and the CPU each execution costs (the sandboxed
processes', counted through the warm servers that reap them, and the host's).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _cpu  # beside this file

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import Environment, ensure
from pinbench.execution.local import default_jobs
from pinbench.sandbox.execute import execute
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

CORES = os.cpu_count() or 2
BASELINE_THREADS = max(1, math.ceil(0.75 * CORES))

SUITES = {
    "numpy": (
        EnvSpec(version="3.9", pins=("numpy==1.21.6",)),
        "import numpy as np\ndef f(x):\n    return int(np.square(np.int64(x))) + {i}\n",
        "assert f(3) == 9 + {i}",
    ),
    "pandas": (
        EnvSpec(version="3.9", pins=("pandas==1.3.5",)),
        "import pandas as pd\ndef f(x):\n    return int(pd.Series([x, x]).sum()) + {i}\n",
        "assert f(3) == 6 + {i}",
    ),
}


def rate(n: int, run: Callable[[int], bool], jobs: int) -> tuple[float, int]:
    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        ok = sum(pool.map(run, range(n)))
    return n / (time.perf_counter() - started), ok


def pinbench_path(env: Environment, program: str, test: str, pools: WarmPools | None, preload: str):
    iso = detect()

    def run(i: int) -> bool:
        result = execute(
            env.python,
            program.format(i=i),
            TestSpec(kind=TestKind.SCRIPT, code=test.format(i=i)),
            isolation=iso,
            warm=pools,
            preload=(preload,),
        )
        return result.status is Status.PASSED

    return run


def fresh_path(python: Path, program: str, test: str, workdir: Path):
    def run(i: int) -> bool:
        path = workdir / f"fresh_{i}.py"
        path.write_text(program.format(i=i) + "\n" + test.format(i=i) + "\n")
        return subprocess.run([str(python), str(path)], capture_output=True).returncode == 0

    return run


def pytest_path(python: Path, program: str, test: str, workdir: Path):
    def run(i: int) -> bool:
        sample = workdir / f"s{i}"
        sample.mkdir(exist_ok=True)
        (sample / f"sample_{i}.py").write_text(program.format(i=i))
        (sample / f"test_sample_{i}.py").write_text(
            f"from sample_{i} import f\n\ndef test_f():\n    {test.format(i=i)}\n"
        )
        done = subprocess.run(
            [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(sample)],
            capture_output=True,
            cwd=sample,
        )
        return done.returncode == 0

    return run


def baseline_env(interpreter: Path, env: Environment, target: Path) -> float:
    """The usual way, given the versions pinbench resolved (plain `pip install pandas==1.3.5`
    today drags in a numpy 2 that pandas 1.3 cannot import)."""
    freeze = subprocess.run(
        [str(env.python), "-m", "pip", "freeze"], capture_output=True, text=True, check=False
    ).stdout.split()
    if not freeze:  # uv venvs have no pip: ask uv
        from pinbench.envs.python.interpreters import uv_binary

        freeze = subprocess.run(
            [uv_binary(), "pip", "freeze", "--python", str(env.python)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    started = time.perf_counter()
    subprocess.run([str(interpreter), "-m", "venv", str(target)], check=True)
    subprocess.run(
        [str(target / "bin" / "pip"), "install", "-q", "pytest", *freeze],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def sweep(values: list[int], n: int, rounds: int) -> None:
    spec, program, test = SUITES["numpy"]
    env = ensure(spec)
    pools = {j: WarmPools(detect(), per_env=j) for j in values}
    runs = {j: pinbench_path(env, program, test, pools[j], "numpy") for j in values}
    for j in values:
        rate(4 * j, runs[j], j)
    rates: dict[int, list[float]] = {j: [] for j in values}
    for round_ in range(rounds):
        for j in values:
            busy0, total0 = _cpu.busy()
            r, _ = rate(n, runs[j], j)
            busy1, total1 = _cpu.busy()
            rates[j].append(r)
            load = 100 * (busy1 - busy0) / max(1, total1 - total0)
            print(f"round {round_ + 1} --jobs {j}: {r:6.1f} exec/s, CPUs {load:.0f}% busy")
    for j in values:
        print(f"--jobs {j}: median {statistics.median(rates[j]):.1f} exec/s")
        pools[j].close()


def grading(n: int, rounds: int, jobs: int) -> None:
    from pinbench.sandbox.grade import IN_PROCESS, MODE_VARIABLE, TRUSTED

    print(f"{CORES} cores; --jobs {jobs}; isolation {detect().level}; {n} executions a round")
    for name, (spec, program, test) in SUITES.items():
        env = ensure(spec)
        pools = WarmPools(detect(), per_env=jobs)
        run = pinbench_path(env, program, test, pools, name)
        rates: dict[str, list[float]] = {TRUSTED: [], IN_PROCESS: []}
        cpu: dict[str, list[tuple[float, float]]] = {TRUSTED: [], IN_PROCESS: []}
        for round_ in range(rounds + 1):
            for mode in (TRUSTED, IN_PROCESS):
                os.environ[MODE_VARIABLE] = mode
                before = _cpu.seconds()
                r, ok = rate(n if round_ else 4 * jobs, run, jobs)
                after = _cpu.seconds()
                if round_:  # the first round warms the servers up
                    rates[mode].append(r)
                    spent = ((after[0] - before[0]) * 1000 / n, (after[1] - before[1]) * 1000 / n)
                    cpu[mode].append(spent)
                    print(f"{name} round {round_} {mode:10}: {r:6.1f} exec/s ({ok}/{n} passed)")
        pools.close()
        trusted, in_process = (statistics.median(rates[m]) for m in (TRUSTED, IN_PROCESS))
        print(
            f"{name}: trusted median {trusted:.1f} exec/s, in-process {in_process:.1f} exec/s, "
            f"ratio {trusted / in_process:.2f}"
        )
        for mode in (TRUSTED, IN_PROCESS):  # what caps the rate once the cores are busy
            sandboxed, host = (statistics.median(c[i] for c in cpu[mode]) for i in (0, 1))
            print(
                f"{name} {mode:10}: CPU per execution {sandboxed + host:.2f} ms "
                f"(sandboxed processes {sandboxed:.2f}, host {host:.2f})"
            )
    os.environ.pop(MODE_VARIABLE, None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--n-slow", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--sweep", help="comma-separated --jobs values: warm numpy only")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--grading", action="store_true", help="trusted vs in-process, warm")
    args = parser.parse_args()
    if args.grading:
        grading(args.n, args.rounds, args.jobs)
        return
    if args.sweep:
        sweep([int(v) for v in args.sweep.split(",")], args.n, args.rounds)
        return
    jobs = args.jobs
    print(f"{CORES} cores; pinbench --jobs {jobs}; baseline threads {BASELINE_THREADS}")
    print(f"isolation: {detect().level}")
    for name, (spec, program, test) in SUITES.items():
        env = ensure(spec)
        module = "numpy" if name == "numpy" else "pandas"
        pools = WarmPools(detect(), per_env=jobs)
        warm_run = pinbench_path(env, program, test, pools, module)
        # Start-up is not throughput: servers start once per environment, one per job, so the
        # warm-up runs as many at once as the measurement does.
        rate(4 * jobs, warm_run, jobs)
        results: dict[str, tuple[float, int, int]] = {}
        r, ok = rate(args.n, warm_run, jobs)
        results["pinbench warm"] = (r, ok, args.n)
        pools.rss_bytes()
        peak = pools.peak_rss_bytes
        pools.close()
        r, ok = rate(args.n_slow, pinbench_path(env, program, test, None, module), jobs)
        results["pinbench cold"] = (r, ok, args.n_slow)
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            interpreter = env.resolution.interpreter.path
            venv_seconds = baseline_env(interpreter, env, work / "venv")
            python = work / "venv" / "bin" / "python"
            r, ok = rate(args.n_slow, fresh_path(python, program, test, work), BASELINE_THREADS)
            results["fresh interpreter"] = (r, ok, args.n_slow)
            r, ok = rate(args.n_slow, pytest_path(python, program, test, work), BASELINE_THREADS)
            results["pytest per sample"] = (r, ok, args.n_slow)
            shutil.rmtree(work / "venv", ignore_errors=True)
        warm = results["pinbench warm"][0]
        print(f"\n{name} ({' '.join(spec.pins)}, Python {env.resolution.interpreter.minor})")
        print(f"  baseline venv + pip install: {venv_seconds:.1f} s per environment")
        for label, (r, ok, n) in results.items():
            print(f"  {label:18} {r:7.1f} exec/s  ({ok}/{n} passed)   warm is {warm / r:5.1f}x")
        print(f"  warm servers' peak RSS: {peak / 2**20:.0f} MB ({jobs} servers)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
