"""`pinbench validate` wall time on the sample dataset: cold, warm uv cache, and warm.

Usage: uv run python bench/validate.py [DATASET] [--jobs 2]
cold      : empty pinbench home and empty uv cache (downloads every wheel)
warm-cache: empty pinbench home, warm uv cache (builds every environment)
warm      : environments already built (only executions)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(dataset: str, jobs: int, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pinbench", "validate", dataset, "--jobs", str(jobs)],
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    print(f"    -> exit {done.returncode}: {last}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", nargs="?", default=str(REPO / "data/sample/problems.jsonl"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PINBENCH_HOME": home, "UV_CACHE_DIR": cache}
        cold = timed(args.dataset, args.jobs, env)
        print(f"cold (no envs, empty uv cache): {cold:.1f} s")
        with tempfile.TemporaryDirectory() as home2:
            warm_cache = timed(args.dataset, args.jobs, {**env, "PINBENCH_HOME": home2})
        print(f"warm uv cache (no envs):        {warm_cache:.1f} s")
        warm = timed(args.dataset, args.jobs, env)
        print(f"warm (envs built):              {warm:.1f} s")


if __name__ == "__main__":
    main()
