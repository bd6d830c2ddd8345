"""Environment build time with a warm uv cache, and the disk a second environment of the same
wheels adds.

Usage: uv run python bench/envs.py [--runs 5]
"first build": a fresh PINBENCH_HOME over a warm uv cache (bytecode compiled for the first time);
"warm": the environments removed (`envs gc`) and rebuilt: uv cache and bytecode store warm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from pinbench.core.env import EnvSpec
from pinbench.core.paths import uv_cache_dir
from pinbench.envs.python.builder import build, gc, resolve

SPECS = [
    EnvSpec(version="3.9", pins=("numpy==1.21.6",)),
    EnvSpec(version="3.9", pins=("pandas==1.3.5",)),
    EnvSpec(version="3.10", pins=("networkx==2.8.8",)),
    EnvSpec(version="3.11", pins=("scikit-learn==1.3.2",)),
]


def private_bytes(path: Path) -> int:
    """Bytes of files in `path` that no other directory shares (link count 1)."""
    total = 0
    for entry in path.rglob("*"):
        st = entry.lstat()
        if entry.is_file() and not entry.is_symlink() and st.st_nlink == 1:
            total += st.st_blocks * 512
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("UV_CACHE_DIR", str(uv_cache_dir()))
    resolutions = [resolve(spec) for spec in SPECS]
    with tempfile.TemporaryDirectory() as warm_home:
        os.environ["PINBENCH_HOME"] = warm_home
        for r in resolutions:  # warm the shared uv cache
            build(r)
    first: dict[str, list[float]] = {" ".join(r.spec.pins): [] for r in resolutions}
    warm: dict[str, list[float]] = {" ".join(r.spec.pins): [] for r in resolutions}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as home:
            os.environ["PINBENCH_HOME"] = home
            for r in resolutions:
                started = time.perf_counter()
                assert not build(r).reused
                first[" ".join(r.spec.pins)].append(time.perf_counter() - started)
            gc()
            for r in resolutions:
                started = time.perf_counter()
                assert not build(r).reused
                warm[" ".join(r.spec.pins)].append(time.perf_counter() - started)
    print(f"environment build, warm uv cache, median of {args.runs}:")
    print(f"  {'pins':24} {'first build':>12} {'warm':>8}")
    for name in first:
        print(
            f"  {name:24} {statistics.median(first[name]):>10.2f} s "
            f"{statistics.median(warm[name]):>6.2f} s"
        )
    with tempfile.TemporaryDirectory() as home:
        os.environ["PINBENCH_HOME"] = home
        for r in resolutions:
            build(r)
            assert r.as_of is not None
            twin = r.spec.model_copy(update={"as_of": r.as_of + timedelta(days=1)})
            second = build(resolve(twin))  # another key, the same wheels
            assert not second.reused
            print(
                f"  second env of {' '.join(r.spec.pins):24} adds "
                f"{private_bytes(second.path) / 2**20:.2f} MB"
            )


if __name__ == "__main__":
    main()
