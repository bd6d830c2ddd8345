"""pinbench validate beside the usual way, on the same problems, from empty caches, one run.

The usual way is what GitChameleon's own harness does: per problem `python -m venv`, `pip
install library==version <additional dependencies> pytest`, then pytest on a directory
holding `sample_<id>.py` and the hidden test, and the visible script appended to the program
run with `python`. Both sides get the same programs (pinbench's loader) and the same worker
count. Prints each side's wall time, references passing, and the problems where they differ.

Usage: uv run python bench/usual_way.py DATASET [--sample 30 | --only ID ...] [--jobs 3]
The usual way runs dataset code unconfined (but for `unshare -n` when it works): use a machine
you do not mind it touching.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.interpreters import discover
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Problem

TIMEOUT = 240  # GitChameleon's TIMEOUT_SEC


def _interpreter(problem: Problem) -> str | None:
    wanted = problem.python_version or "3.10"
    found = [i for i in discover() if i.minor == ".".join(wanted.split(".")[:2])]
    return str(found[0].path) if found else None


def _no_net() -> list[str]:
    ok = shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"]).returncode == 0
    return ["unshare", "-n"] if ok else []


def _run_test(python: Path, program: str, test: TestSpec, work: Path) -> bool:
    if test.kind is TestKind.PYTEST:
        (work / f"{test.module}.py").write_text(program)
        (work / "test_sample.py").write_text(test.code)
        cmd = [str(python), "-m", "pytest", "--disable-warnings", "-q", str(work)]
    else:
        name = f"test_{test.module}.py" if test.module else "visible.py"
        if test.module:
            (work / f"{test.module}.py").write_text(program)
        (work / name).write_text(test.code if test.module else f"{program}\n{test.code}")
        cmd = [str(python), str(work / name)]
    try:
        done = subprocess.run(
            [*_no_net(), *cmd], cwd=work, capture_output=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def usual(problem: Problem, root: Path, pip_cache: Path) -> dict[str, object]:
    """One problem the usual way: its own venv, pip, then each test in a fresh process."""
    row: dict[str, object] = {"id": problem.id, "env": False, "hidden": False, "visible": None}
    interp = _interpreter(problem)
    if interp is None:
        return row
    venv = root / problem.id
    env = {**os.environ, "PIP_CACHE_DIR": str(pip_cache), "PIP_CONFIG_FILE": os.devnull}
    env.pop("VIRTUAL_ENV", None)
    python = venv / "bin" / "python"
    steps = [
        [interp, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"],
        [str(python), "-m", "pip", "install", "-q", *problem.pins, "pytest"],
    ]
    for cmd in steps:
        if subprocess.run(cmd, env=env, capture_output=True, check=False).returncode != 0:
            return row
    row["env"] = True
    with tempfile.TemporaryDirectory() as work:
        row["hidden"] = _run_test(python, problem.solution, problem.hidden_test, Path(work))
    if problem.visible_test is not None:
        with tempfile.TemporaryDirectory() as work:
            row["visible"] = _run_test(python, problem.solution, problem.visible_test, Path(work))
    return row


def usual_then_discard(problem: Problem, root: Path, pip_cache: Path) -> dict[str, object]:
    """`usual`, then its venv is deleted (a whole dataset of venvs does not fit on one disk).

    The deletion time is printed apart and taken off the usual side's wall time.
    """
    try:
        return usual(problem, root, pip_cache)
    finally:
        started = time.perf_counter()
        shutil.rmtree(root / problem.id, ignore_errors=True)
        with _DISCARD_LOCK:
            _DISCARDED[0] += time.perf_counter() - started


_DISCARD_LOCK = threading.Lock()
_DISCARDED = [0.0]


def run_usual(problems: list[Problem], jobs: int) -> tuple[float, list[dict[str, object]]]:
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            rows = list(
                pool.map(lambda p: usual_then_discard(p, Path(root), Path(cache)), problems)
            )
        # the deletions ran on `jobs` workers side by side: their share of the wall time
        return time.perf_counter() - started - _DISCARDED[0] / jobs, rows


def run_pinbench(
    dataset: str, ids: list[str], jobs: int, keep_home: Path | None
) -> tuple[float, dict[str, object]]:
    with tempfile.TemporaryDirectory() as scratch:
        home = str(keep_home) if keep_home else scratch
        if keep_home and keep_home.exists() and any(keep_home.iterdir()):
            raise SystemExit(f"--keep-home {keep_home} is not empty: the caches must start empty")
        out = Path(scratch) / "v.json"
        cmd = [sys.executable, "-m", "pinbench", "validate", dataset, "--jobs", str(jobs)]
        cmd += ["--json", str(out), *(arg for i in ids for arg in ("--only", i))]
        started = time.perf_counter()
        subprocess.run(cmd, env={**os.environ, "PINBENCH_HOME": home}, capture_output=True)
        elapsed = time.perf_counter() - started
        doc: dict[str, object] = json.loads(out.read_text())
        return elapsed, doc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset")
    parser.add_argument("--sample", type=int, default=30, help="problems drawn (seed 0)")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--keep-home", type=Path, default=None, help="empty PINBENCH_HOME kept after the run"
    )
    args = parser.parse_args()
    problems = load_dataset(Path(args.dataset)).problems
    if args.only:
        problems = [p for p in problems if p.id in set(args.only)]
    elif args.sample < len(problems):
        problems = sorted(random.Random(0).sample(problems, args.sample), key=lambda p: p.id)
    ids = [p.id for p in problems]
    print(f"{len(problems)} problems, {args.jobs} workers each side", flush=True)
    usual_s, usual_rows = run_usual(problems, args.jobs)
    pin_s, doc = run_pinbench(args.dataset, ids, args.jobs, args.keep_home)
    verdicts = {str(p["id"]): p for p in doc["problems"]}  # type: ignore[attr-defined]
    usual_pass = {str(r["id"]) for r in usual_rows if r["hidden"] and r["visible"] is not False}
    usual_hidden = {str(r["id"]) for r in usual_rows if r["hidden"]}
    sound = {i for i, p in verdicts.items() if p["verdict"] == "sound"}
    print(f"usual way : venvs deleted in {_DISCARDED[0]:.1f} s (not counted)")
    print(
        f"usual way : {usual_s:7.1f} s, hidden passes {len(usual_hidden)}, both {len(usual_pass)}"
    )
    print(f"pinbench  : {pin_s:7.1f} s, sound {len(sound)}")
    print(f"ratio pinbench/usual: {pin_s / usual_s:.2f}")
    for problem_id in sorted(usual_pass - sound):
        checks = verdicts.get(problem_id, {}).get("checks", {})
        failing = {k: v for k, v in checks.items() if v.get("status") != "passed"}
        print(f"  usual passes, pinbench not: {problem_id} {json.dumps(failing)[:300]}")
    for problem_id in sorted(sound - usual_pass):
        print(f"  pinbench sound, usual fails: {problem_id}")
    if args.json:
        args.json.write_text(json.dumps({"usual": usual_rows, "pinbench": doc}, indent=1))


if __name__ == "__main__":
    main()
