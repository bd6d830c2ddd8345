"""The builtin benchmark: `validate --discriminative` on the full split (figure and wall time),
and the default split's environments built cold (wall time and disk).

Usage: uv run python bench/builtin.py [--skip-validate] [--skip-cold]
The cold build uses an empty pinbench home and an empty uv cache (downloads every wheel).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PINBENCH = [sys.executable, "-m", "pinbench"]


def du(*paths: Path) -> int:
    """Bytes on disk under `paths` together: a file hardlinked into several counts once."""
    done = subprocess.run(["du", "-scb", *map(str, paths)], capture_output=True, text=True)
    return int(done.stdout.split()[-2])


def validate_full(tmp: Path) -> None:
    out = tmp / "full.json"
    started = time.perf_counter()
    args = ["validate", "builtin", "--split", "full", "--discriminative", "--no-cache"]
    done = subprocess.run(
        [*PINBENCH, *args, "--json", str(out)],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    summary = json.loads(out.read_text())["summary"]
    share = 100 * summary["sound"] / max(1, summary["problems"])
    print(
        f"validate builtin --split full --discriminative: {summary} ({share:.1f} % sound and "
        f"discriminative) in {elapsed:.0f} s (environments already built; exit {done.returncode})"
    )


def cold_default(tmp: Path) -> None:
    home, cache = tmp / "home", tmp / "uv-cache"
    env = {**os.environ, "PINBENCH_HOME": str(home), "UV_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    built = subprocess.run(
        [*PINBENCH, "envs", "build", "builtin", "--split", "default"],
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    count = built.stdout.count("built ")
    print(
        f"default split, cold: {count} environments in {elapsed:.0f} s (exit {built.returncode}); "
        f"disk: {du(home, cache) / 2**20:.0f} MB in all (uv cache alone "
        f"{du(cache) / 2**20:.0f} MB; environments hardlink into it)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-validate", action="store_true")
    parser.add_argument("--skip-cold", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_validate:
            validate_full(Path(tmp))
        if not args.skip_cold:
            cold_default(Path(tmp))


if __name__ == "__main__":
    main()
