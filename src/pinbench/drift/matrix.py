"""The compatibility matrix (`pinbench drift RUN --matrix`): every scored sample of a run at its
last round executed on each release of its library between two versions (every minor release's
latest patch, or the versions asked for), through the same sandbox, environments, warm pools
and outcome cache as a run. Each sample gets the range of versions it works on; the model a
range profile (exact, too old, too new, never, portable: rates over samples); each library a
matrix of pinned version × tested version pass rates (the report draws it as a heatmap)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, Field

from pinbench.core.outcome import NOT_SCORED, Limits, Status
from pinbench.core.records import SampleRecord
from pinbench.drift.confusion import (
    FAILURES,
    DriftSummary,
    direction_of,
    graded_as_run,
    summarise,
    version_key,
)
from pinbench.envs import Environments
from pinbench.envs.node import registry
from pinbench.envs.python.index import IndexUnavailable, project_files
from pinbench.execution.local import ExecutionService
from pinbench.metrics.scores import at_round, chains_of
from pinbench.tasks.generation.problem import Language, Problem, env_spec_for
from pinbench.validation import preload_for

MAX_SAMPLES = 5000  # sample ranges kept in the stored summary (the profile counts them all)
KINDS = ("exact", "too_old", "too_new", "both", "never")


class SampleRange(BaseModel):
    problem_id: str
    library: str
    pinned: str
    seed: int
    sample: int
    works_on: list[str]
    breaks_on: list[str]
    unknown: list[str] = Field(default_factory=list, description="could not run there")
    range: str = Field(description="'works on 1.21–1.24; breaks on 1.25'")
    kind: str = Field(description="exact, too_old, too_new, both or never")


class RangeProfile(BaseModel):
    """Of a model's scored samples: passes on its pin (exact), fails there but passes only on
    older (too_old) or only on newer releases (too_new) or on both sides, passes nowhere
    (never); `portable`: passes on every version tried."""

    samples: int
    exact: int
    too_old: int
    too_new: int
    both: int
    never: int
    portable: int

    def rate(self, kind: str) -> float | None:
        return getattr(self, kind) / self.samples if self.samples else None


class LibraryMatrix(BaseModel):
    library: str
    versions: list[str] = Field(description="the columns: every version tried, in order")
    cells: dict[str, dict[str, list[int]]] = Field(
        description="pinned version -> tried version -> [passed, ran]"
    )


class Compatibility(BaseModel):
    run_id: str
    model_name: str
    versions: dict[str, list[str]] = Field(description="library -> versions tried")
    profile: RangeProfile
    libraries: list[LibraryMatrix]
    samples: list[SampleRange]
    executions: int
    infrastructure: int = Field(description="executions that could not run")
    seconds: float


def minor_releases(problem: Problem, low: str, high: str) -> list[str]:
    """The latest patch of every minor release of the problem's library from `low` to `high`
    (inclusive, final releases only), as PyPI or the npm registry lists them."""
    name = problem.library
    try:
        if problem.language is Language.PYTHON:
            found = {str(f.version) for f in project_files(name)}
        else:
            found = set((registry.document(name).get("versions") or {}).keys())
    except (IndexUnavailable, OSError, ValueError) as exc:
        raise ValueError(f"cannot list the releases of {name}: {exc}") from None
    lo, hi = version_key(low), version_key(high)
    latest: dict[tuple[int, int], Version] = {}
    for text in found:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if version.is_prerelease or version.is_devrelease or not lo <= version <= hi:
            continue
        minor = (version.major, version.minor)
        if minor not in latest or version > latest[minor]:
            latest[minor] = version
    return [str(v) for _, v in sorted(latest.items())]


def compatibility(
    run_id: str,
    model_name: str,
    records: list[SampleRecord],
    problems: list[Problem],
    service: ExecutionService,
    versions: dict[str, list[str]],
    *,
    last_round: int = 0,
    limits: Limits | None = None,
    jobs: int = 2,
    in_process: frozenset[str] = frozenset(),
    shares_state: frozenset[str] = frozenset(),
    on_execution: Callable[[], None] | None = None,
) -> tuple[DriftSummary, Compatibility]:
    """`versions`: library -> the versions to try (a sample's own pin is its run's outcome).
    Also the version confusion of its failures, as `drift` finds it, from the same runs."""
    started = time.monotonic()
    limits = limits or Limits()
    by_id = {p.id: p for p in problems}
    finals = [
        record
        for chain in chains_of(records).values()
        if (record := at_round(chain, last_round)) is not None
        and record.status not in NOT_SCORED
        and record.problem_id in by_id
    ]
    envs = Environments()
    tasks = sorted(
        {
            (record.problem_id, record.program, version)
            for record in finals
            for version in versions.get(by_id[record.problem_id].library, [])
            if version != by_id[record.problem_id].version
        }
    )

    def execute(task: tuple[str, str, str]) -> Status:
        problem_id, program, version = task
        problem = by_id[problem_id]
        target = problem.model_copy(update={"version": version})
        env = envs.get(env_spec_for(target))
        if isinstance(env, Exception):
            status = Status.ENVIRONMENT_ERROR
        else:
            test = graded_as_run(problem.hidden_test, problem_id, in_process, shares_state)
            status = service.run(env, program, test, limits, preload_for(env, target)).status
        if on_execution is not None:
            on_execution()
        return status

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        outcomes = dict(zip(tasks, pool.map(execute, tasks), strict=True))
    ranges = [_range(r, by_id[r.problem_id], versions, outcomes) for r in finals]
    failed = [
        (record, span.works_on, len(span.unknown))
        for record, span in zip(finals, ranges, strict=True)
        if record.status in FAILURES
    ]
    confusion = summarise(run_id, model_name, failed, by_id, versions)
    return confusion, Compatibility(
        run_id=run_id,
        model_name=model_name,
        versions={lib: _sorted(vs) for lib, vs in versions.items()},
        profile=_profile(ranges),
        libraries=_matrices(ranges),
        samples=ranges[:MAX_SAMPLES],
        executions=len(tasks),
        infrastructure=sum(s.is_infrastructure for s in outcomes.values()),
        seconds=round(time.monotonic() - started, 3),
    )


def _range(
    record: SampleRecord,
    problem: Problem,
    versions: dict[str, list[str]],
    outcomes: dict[tuple[str, str, str], Status],
) -> SampleRange:
    tried = _sorted({*versions.get(problem.library, []), problem.version})
    results: dict[str, bool | None] = {}
    for version in tried:
        if version == problem.version:
            results[version] = record.passed
        else:
            status = outcomes[(record.problem_id, record.program, version)]
            results[version] = None if status.is_infrastructure else status is Status.PASSED
    works = [v for v in tried if results[v] is True]
    breaks = [v for v in tried if results[v] is False]
    if record.passed:
        kind = "exact"
    else:
        kind = {None: "never", "too_new": "too_new", "too_old": "too_old", "both": "both"}[
            direction_of(problem.version, works)
        ]
    return SampleRange(
        problem_id=record.problem_id,
        library=problem.library,
        pinned=problem.version,
        seed=record.seed,
        sample=record.sample,
        works_on=works,
        breaks_on=breaks,
        unknown=[v for v in tried if results[v] is None],
        range=describe(tried, results),
        kind=kind,
    )


def describe(tried: list[str], results: dict[str, bool | None]) -> str:
    """Runs of consecutive versions: 'works on 1.21–1.24; breaks on 1.25; unknown on 1.26'."""
    spans: list[tuple[bool | None, list[str]]] = []
    for version in tried:
        if spans and spans[-1][0] == results[version]:
            spans[-1][1].append(version)
        else:
            spans.append((results[version], [version]))
    words = {True: "works on", False: "breaks on", None: "could not run on"}
    return "; ".join(
        f"{words[ok]} {span[0]}" + (f"–{span[-1]}" if len(span) > 1 else "") for ok, span in spans
    )


def _profile(ranges: list[SampleRange]) -> RangeProfile:
    counts = {kind: sum(r.kind == kind for r in ranges) for kind in KINDS}
    portable = sum(not r.breaks_on and not r.unknown and bool(r.works_on) for r in ranges)
    return RangeProfile(samples=len(ranges), portable=portable, **counts)


def _matrices(ranges: list[SampleRange]) -> list[LibraryMatrix]:
    cells: dict[str, dict[str, dict[str, list[int]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(lambda: [0, 0]))
    )
    columns: dict[str, set[str]] = defaultdict(set)
    for r in ranges:
        for version, passed in (*((v, 1) for v in r.works_on), *((v, 0) for v in r.breaks_on)):
            cell = cells[r.library][r.pinned][version]
            cell[0] += passed
            cell[1] += 1
            columns[r.library].add(version)
    return [
        LibraryMatrix(
            library=library,
            versions=_sorted(columns[library]),
            cells={
                pinned: {v: list(c) for v, c in row.items()}
                for pinned, row in sorted(rows.items(), key=lambda kv: version_key(kv[0]))
            },
        )
        for library, rows in sorted(cells.items())
    ]


def _sorted(versions: Iterable[str]) -> list[str]:
    return sorted(set(versions), key=version_key)
