"""The compatibility matrix of a 120-problem run over >= 5 versions per library (target: under
10 minutes on 2 cores with environments built).

    uv run python bench/compat_matrix.py [--versions 5] [--jobs 2]

1. `pinbench run -m reference` on the builtin dataset's Python problems (120), into a results
   directory of its own under $PINBENCH_HOME;
2. per library, `--versions` versions: its pinned ones (thinned evenly when there are more),
   then minor releases (PyPI) inside and next to their span; each problem keeps its own Python,
   so a library's versions × its problems' interpreters are the environments;
3. a first matrix builds every environment (timed apart: it is a one-time cost);
4. the measured matrix: every sample on every version, outcome cache off (each execution runs),
   warm pools on, as `pinbench drift --matrix` does.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.outcome import Limits
from pinbench.core.paths import cache_root
from pinbench.drift import compatibility, minor_releases, version_key
from pinbench.envs import Environments
from pinbench.execution.local import ExecutionService
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Language, Problem, env_spec_for


def choose(problems: list[Problem], wanted: int) -> dict[str, list[str]]:
    """Per library: `wanted` versions — its pinned versions (evenly thinned when there are
    more), then the minor releases (PyPI) nearest their span."""
    chosen: dict[str, list[str]] = {}
    for library in sorted({p.library for p in problems}):
        mine = [p for p in problems if p.library == library]
        pinned = sorted({p.version for p in mine}, key=version_key)
        if len(pinned) > wanted:
            step = (len(pinned) - 1) / (wanted - 1)
            pinned = [pinned[round(i * step)] for i in range(wanted)]
        low, high = version_key(pinned[0]), version_key(pinned[-1])
        every = minor_releases(mine[0], "0", "99999")
        inside = [v for v in every if low < version_key(v) < high and v not in pinned]
        below = [v for v in every if version_key(v) < low][::-1]
        above = [v for v in every if version_key(v) > high]
        picked = set(pinned)
        while len(picked) < wanted and (inside or below or above):
            for side in (inside, below, above):
                if side and len(picked) < wanted:
                    picked.add(side.pop(len(side) // 2 if side is inside else 0))
        chosen[library] = sorted(picked, key=version_key)
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--libraries", nargs="*", help="only these libraries")
    args = parser.parse_args()
    problems = [p for p in load_dataset(Path("builtin")).problems if p.language is Language.PYTHON]
    if args.libraries:
        problems = [p for p in problems if p.library in set(args.libraries)]
    results = cache_root() / "bench-compat"
    out = results / "run.json"
    started = time.monotonic()
    only = [arg for p in problems for arg in ("--only", p.id)]
    ran = CliRunner().invoke(
        app, ["run", "-m", "reference", *only, "--results", str(results), "--json", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    run_seconds = time.monotonic() - started
    run_id = json.loads(out.read_text())["summary"]["run_id"]
    versions = choose(problems, args.versions)
    specs = {
        env_spec_for(p.model_copy(update={"version": v}))
        for p in problems
        for v in versions[p.library]
    }
    started = time.monotonic()
    envs = Environments()
    failed = [spec for spec in specs if isinstance(envs.get(spec), Exception)]
    build_seconds = time.monotonic() - started
    with RunStore.at(results) as store:
        records = store.samples(run_id)
        row = store.run(run_id)
        assert row is not None
    limits = Limits(wall_seconds=60, cpu_seconds=60)
    with ExecutionService(jobs=args.jobs, cache=False) as service:
        started = time.monotonic()
        _, compat = compatibility(
            run_id, row.model_name, records, problems, service, versions, limits=limits,
            jobs=args.jobs,
        )  # fmt: skip
        seconds = time.monotonic() - started
        stats = service.stats()
    profile = compat.profile
    print(f"problems {len(problems)}, libraries {len(versions)}, environments {len(specs)} "
          f"({len(failed)} could not be built)")  # fmt: skip
    for library, listed in versions.items():
        print(f"  {library}: {', '.join(listed)}")
    print(f"reference run {run_seconds:.1f}s; environments ready in {build_seconds:.1f}s")
    print(
        f"matrix: {compat.executions} executions in {seconds:.1f}s "
        f"({compat.executions / seconds:.2f}/s; {compat.infrastructure} could not run; "
        f"{stats['warm_servers_started']} warm servers, {stats['warm_fallbacks']} cold fallbacks)"
    )
    print(
        f"profile of the references: exact {profile.exact}, portable {profile.portable} "
        f"of {profile.samples}"
    )


if __name__ == "__main__":
    main()
