"""`pinbench ide collect`: build repositories and collect IDE cases from them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from pinbench.cli.common import console, error, fail
from pinbench.execution.local import ExecutionService, default_jobs
from pinbench.tasks.ide import dataset
from pinbench.tasks.ide.cases import Kind
from pinbench.tasks.ide.collect import RepoResult, builtin_repositories, collect_repositories
from pinbench.tasks.ide.selection import Quotas

ide_app = typer.Typer(help="IDE scenarios on repositories: doc, fix, generate, test, workspace.")


@ide_app.command("collect")
def collect_cmd(
    repos: Annotated[
        list[str],
        typer.Argument(help="Repository directories or archives (.tar.gz, .zip), or `builtin`."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Cases file to write.")] = Path(
        "ide-cases.jsonl"
    ),
    scenario: Annotated[
        list[Kind] | None, typer.Option("--scenario", "-s", help="Only these scenarios.")
    ] = None,
    per_scenario: Annotated[
        int, typer.Option("--per-scenario", help="Most cases of one scenario per repository.")
    ] = 50,
    per_file: Annotated[int, typer.Option("--per-file", help="Most cases per file.")] = 5,
    jobs: Annotated[int, typer.Option("--jobs", "-j")] = default_jobs(),
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Rebuild and re-run baselines even if remembered.")
    ] = False,
) -> None:
    """Build each repository's pinned environment, run its tests in the sandbox (the
    baseline), and collect cases for each scenario into a dataset `pinbench run --task ide
    -d FILE` runs.

    Examples: `pinbench ide collect ./myrepo -o cases.jsonl` ·
    `pinbench ide collect builtin -s fix -s doc`"""
    sources = [p for r in repos for p in _sources(r)]
    quotas = Quotas(per_scenario=per_scenario, per_file=per_file)
    with ExecutionService(jobs=jobs) as service:
        results = collect_repositories(sources, scenario or list(Kind), service, quotas, refresh)
    _print(results)
    cases = [c for r in results for c in r.cases]
    if not cases:
        fail("no case collected", code=1)
    dataset.write(cases, out)
    for result in results:  # the resolution and baseline each case's repository came from
        if result.build is not None:
            record = dataset.repos_dir(out) / f"{result.build.snapshot}.build.json"
            record.write_text(result.build.model_dump_json(indent=1))
    console.print(
        f"wrote {len(cases)} cases to {out} (snapshots, resolutions and baselines in "
        f"{dataset.repos_dir(out)})"
    )


def _sources(text: str) -> list[Path]:
    if text == "builtin":
        return builtin_repositories()
    path = Path(text)
    if not path.exists():
        fail(f"{path}: no such repository")
    return [path]


def _print(results: list[RepoResult]) -> None:
    table = Table(title="repositories")
    for column in ("repository", "toolchain", "pins", "tests", "suite s", "cases", "total s"):
        table.add_column(column)
    for r in results:
        if r.build is None:
            rejected = Text("rejected", "red")
            table.add_row(r.source.name, "", "", "", "", rejected, f"{r.seconds:.1f}")
            continue
        base = r.build.baseline
        kinds: dict[str, int] = {}
        for case in r.cases:
            kinds[case.scenario.value] = kinds.get(case.scenario.value, 0) + 1
        table.add_row(
            r.build.name,
            r.build.toolchain_version,
            str(len(r.build.env.pins)),
            f"{len(base.passing)}/{len(base.outcomes)} pass",
            f"{base.seconds:.1f}",
            " ".join(f"{k} {v}" for k, v in kinds.items()) or "none",
            f"{r.seconds:.1f}",
        )
    console.print(table)
    for r in results:
        if r.rejected:
            error(f"{r.source}: {r.rejected}", label="rejected:")
        for reason, count in sorted(r.dropped.items()):
            console.print(f"  {r.source.name}: dropped {count}: {reason}")
        for note in r.build.notes if r.build else []:
            console.print(f"  {r.source.name}: note: {note}")
