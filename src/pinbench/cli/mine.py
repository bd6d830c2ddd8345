"""`pinbench mine LIBRARY`."""

from __future__ import annotations

import csv
import json
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pinbench.cli.common import console, err, fail, progress_bar, warn
from pinbench.execution.local import ExecutionService, default_jobs
from pinbench.mining import npm
from pinbench.mining.document import MinedVersion, MineRun
from pinbench.mining.lifespans import Mined, Snapshot, candidates, mine, released_versions

KINDS = ("added", "removed", "deprecated", "renamed", "argument_added", "argument_removed",
         "argument_renamed", "default_changed", "became_keyword_only")  # fmt: skip
FILES = ("lifespans.json", "lifespans.csv", "lifespans.html", "candidates.jsonl")


def mine_cmd(
    library: Annotated[
        str, typer.Argument(help="Distribution name, e.g. numpy; npm:NAME for an npm package.")
    ],
    versions: Annotated[
        str | None, typer.Option("--versions", help="Versions to compare: 1.20.3,1.21.6,…")
    ] = None,
    version_range: Annotated[
        str | None,
        typer.Option("--range", help="All final releases in LOW..HIGH, from the package index."),
    ] = None,
    python: Annotated[str | None, typer.Option("--python", help="Interpreter X.Y.")] = None,
    node: Annotated[
        str | None, typer.Option("--node", help="npm: the Node release (default: the machine's).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path("mined"),
    jobs: Annotated[int, typer.Option("--jobs", "-j")] = default_jobs(),
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Write versions, changes and counts (docs/mine-json.md)."),
    ] = None,
) -> None:
    """Introspect LIBRARY's public API in an environment per version (sandboxed, a deadline per
    module), diff consecutive versions, and write the lifespan of every API (JSON, CSV, HTML),
    the changes, and candidate problem skeletons for `validate --discriminative` to prove.

    Examples: `pinbench mine packaging --versions 21.3,22.0` ·
    `pinbench mine numpy --range 1.20..1.25 --python 3.9 --json mined/numpy.json` ·
    `pinbench mine npm:lodash --versions 3.10.1,4.17.21 --node 16`
    """
    started = time.monotonic()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    is_npm = library.startswith("npm:")
    library = library.removeprefix("npm:")
    chosen = _versions(library, versions, version_range, is_npm)
    with ExecutionService(jobs=jobs) as service, progress_bar() as progress:
        task = progress.add_task("versions", total=len(chosen))

        def done(shot: Snapshot) -> None:
            progress.advance(task)
            if shot.error:
                warn(shot.error, f"{library} {shot.version}:")

        if is_npm:
            mined = mine(library, chosen, service, python=node, jobs=jobs, on_version=done,
                         shoot=npm.snapshot, language="javascript")  # fmt: skip
        else:
            mined = mine(library, chosen, service, python=python, jobs=jobs, on_version=done)
    skeletons = _write(mined, out)
    _print(mined)
    if json_out is not None:
        document = MineRun(
            library=library,
            python=python,
            started_at=started_at,
            seconds=round(time.monotonic() - started, 3),
            out=str(out),
            files=[str(out / name) for name in FILES],
            versions=[
                MinedVersion(
                    version=s.version,
                    apis=len(s.api),
                    failed_modules=s.failed_modules,
                    error=s.error,
                )
                for s in mined.snapshots
            ],
            summary={v: dict(c) for v, c in _counts(mined).items()},
            lifespans=len(mined.lifespans),
            candidates=skeletons,
            changes=mined.changes,
        )
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(document.model_dump_json(indent=1))
        err.print(f"wrote {json_out}", soft_wrap=True)


def _versions(
    library: str, versions: str | None, version_range: str | None, is_npm: bool = False
) -> list[str]:
    if bool(versions) == bool(version_range):
        fail("give exactly one of --versions and --range")
    if versions:
        chosen = [v.strip() for v in versions.split(",") if v.strip()]
    else:
        low, sep, high = (version_range or "").partition("..")
        if not sep:
            fail("--range takes LOW..HIGH, e.g. 1.20..1.26")
        try:
            listing = npm.released_versions if is_npm else released_versions
            chosen = listing(library, low.strip(), high.strip())
        except Exception as exc:
            fail(f"could not list {library}'s releases: {exc}")
    if len(chosen) < 2:
        fail(f"need at least two versions, got {chosen}")
    return chosen


def _write(mined: Mined, out: Path) -> int:
    """Write FILES into `out`; the number of candidate skeletons."""
    from pinbench.report.html import render  # matplotlib: only when there is a page to draw

    out.mkdir(parents=True, exist_ok=True)
    (out / "lifespans.json").write_text(mined.model_dump_json(indent=1))
    with (out / "lifespans.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["name", "kind", "added", "deprecated",
                                                     "removed", "tag"])  # fmt: skip
        writer.writeheader()
        for row in mined.lifespans:
            writer.writerow(row.model_dump())
    skeletons = candidates(mined)
    (out / "candidates.jsonl").write_text("".join(json.dumps(c) + "\n" for c in skeletons))
    (out / "lifespans.html").write_text(render("mine.html.j2", m=mined, summary=_counts(mined)))
    err.print(f"wrote {out}/{', '.join(FILES)}", soft_wrap=True)
    return len(skeletons)


def _counts(mined: Mined) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {}
    for change in mined.changes:
        counts.setdefault(change.version, Counter())[change.kind] += 1
    return counts


def _print(mined: Mined) -> None:
    table = Table(title=f"{mined.library}: API changes between consecutive versions")
    kinds = KINDS
    table.add_column("version")
    table.add_column("APIs", justify="right")
    for kind in kinds:
        table.add_column(kind.replace("_", " "), justify="right")
    counts = _counts(mined)
    for shot in mined.snapshots:
        row = counts.get(shot.version, Counter())
        size = "error" if shot.error else str(len(shot.api))
        table.add_row(shot.version, size, *(str(row.get(k, "")) for k in kinds))
    console.print(table)
