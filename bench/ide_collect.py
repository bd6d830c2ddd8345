"""Time `pinbench ide collect` on a real repository: the first collection (snapshot,
dependency resolution, environment, sandboxed traced baseline, linters, trivial-test checks)
and a warm one (everything remembered: environment, baseline, outcome cache; linters re-run).

    uv run python bench/ide_collect.py --repo click==8.1.7
    uv run python bench/ide_collect.py --path jsoup-1.15.3   # any local checkout

`--repo`: the sdist of a PyPI project (it ships its tests); `--path`: a repository on disk, e.g.
a Debian source package (`apt-get source jsoup`, with deb-src enabled).
"""

from __future__ import annotations

import argparse
import statistics
import tarfile
import tempfile
import time
from pathlib import Path

import httpx

from pinbench.core import snapshots
from pinbench.envs.python.index import index_url
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.cases import Kind
from pinbench.tasks.ide.collect import collect_repositories


def fetch(requirement: str, into: Path) -> Path:
    """The project's sdist from the package index (PEP 691 JSON), unpacked."""
    name, version = requirement.split("==")
    accept = {"Accept": "application/vnd.pypi.simple.v1+json"}
    page = httpx.get(f"{index_url()}/{name}/", headers=accept, timeout=60, follow_redirects=True)
    wanted = f"{name}-{version}.tar.gz"
    url = next(f["url"] for f in page.json()["files"] if f["filename"].lower() == wanted)
    archive = into / wanted
    archive.write_bytes(httpx.get(url, timeout=120, follow_redirects=True).content)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return next(p for p in into.iterdir() if p.is_dir())


SOURCE_SUFFIXES = (
    ".py",
    ".java",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".c",
    ".cc",
    ".cpp",
    ".h",
    ".hpp",
    ".cs",
)


def lines_of_code(root: Path) -> dict[str, int]:
    """Lines per source suffix (tests included)."""
    found: dict[str, int] = {}
    for path in root.rglob("*"):
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            lines = len(path.read_text(errors="replace").splitlines())
            found[path.suffix] = found.get(path.suffix, 0) + lines
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", default="click==8.1.7")
    parser.add_argument("--path", type=Path, help="a repository on disk instead of --repo")
    parser.add_argument("--warm-runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.path.resolve() if args.path else fetch(args.repo, Path(tmp))
        print(f"{root.name}: lines {lines_of_code(root)}")
        memo = snapshots.snapshots_dir() / f"{snapshots.take(root).digest}.build.json"
        memo.unlink(missing_ok=True)  # re-run the baseline: the first collection
        service = ExecutionService(jobs=2)
        try:
            started = time.monotonic()
            [first] = collect_repositories([root], list(Kind), service)
            first_s = time.monotonic() - started
            warm = []
            for _ in range(args.warm_runs):
                started = time.monotonic()
                collect_repositories([root], list(Kind), service)
                warm.append(time.monotonic() - started)
        finally:
            service.close()
    assert first.build is not None, first.rejected
    kinds: dict[str, int] = {}
    for case in first.cases:
        kinds[case.scenario.value] = kinds.get(case.scenario.value, 0) + 1
    base = first.build.baseline
    print(f"baseline: {len(base.passing)}/{len(base.outcomes)} tests pass, {base.seconds:.1f} s")
    print(f"cases: {kinds}")
    print(f"first collection (env reused if built): {first_s:.1f} s")
    print(f"warm collection: median {statistics.median(warm):.1f} s over {len(warm)} runs")


if __name__ == "__main__":
    main()
