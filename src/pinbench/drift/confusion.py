"""`pinbench drift RUN`: which version was a failed program written for?

Every failed sample of a run is executed again against its problem's contrasting version (and
any `--versions` of the same library); a program that fails on the pin but passes elsewhere was
written for the wrong version — "too new" when it works on a later release (it uses an API
from after the pin), "too old" when it works on an earlier one (it uses an API the pin
removed). Executions go through the same sandbox and outcome cache as a run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, Field

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Limits, Status
from pinbench.core.records import SampleRecord
from pinbench.core.tests import TestSpec
from pinbench.envs import Environments
from pinbench.execution.local import ExecutionService
from pinbench.metrics.scores import at_round, chains_of
from pinbench.tasks.generation.problem import Problem, env_spec_for
from pinbench.validation import contrast_spec_for, preload_for

FAILURES = frozenset({"failed", "syntax_error", "timeout", "resource_limit"})
_EXAMPLE_CHARS = 1500


class Drifted(BaseModel):
    """One failed sample and the other versions its program passes on."""

    problem_id: str
    library: str
    pinned: str
    seed: int
    sample: int
    round: int
    works_on: list[str]
    direction: str | None = Field(description="too_new, too_old, both, or None (no other)")
    program: str = ""


class DriftSummary(BaseModel):
    run_id: str
    model_name: str
    failures: int = Field(description="failed samples at the run's last round")
    checked: int = Field(description="failures with at least one other version to try")
    confused: int = Field(description="failures that pass on another version")
    too_new: int
    too_old: int
    infrastructure: int = Field(description="other-version checks that could not run")
    matrix: dict[str, dict[str, dict[str, int]]] = Field(
        description="library -> pinned version -> version the program works on ('none') -> count"
    )
    examples: list[Drifted]

    @property
    def rate(self) -> float | None:
        return self.confused / self.checked if self.checked else None


def graded_as_run(
    test: TestSpec, item: str, in_process: frozenset[str], shares_state: frozenset[str]
) -> TestSpec:
    """The test graded as the run graded its item (its reference decided that)."""
    if item in in_process:
        return test.graded_in_process()
    return test.sharing_state() if item in shares_state else test


def other_versions(problem: Problem, versions: list[str]) -> list[tuple[str, EnvSpec]]:
    """The contrasting version (its own python and pins) and every requested version."""
    others: dict[str, EnvSpec] = {}
    contrast = contrast_spec_for(problem)
    if contrast is not None and problem.contrast is not None:
        others[problem.contrast.version] = contrast
    for version in versions:
        if version != problem.version and version not in others:
            others[version] = env_spec_for(problem.model_copy(update={"version": version}))
    return sorted(others.items(), key=lambda item: version_key(item[0]))


def drift(
    run_id: str,
    model_name: str,
    records: list[SampleRecord],
    problems: list[Problem],
    service: ExecutionService,
    *,
    versions: dict[str, list[str]] | None = None,
    last_round: int = 0,
    limits: Limits | None = None,
    jobs: int = 2,
    on_check: Callable[[], None] | None = None,
    in_process: frozenset[str] = frozenset(),
    shares_state: frozenset[str] = frozenset(),
) -> DriftSummary:
    """`versions`: library -> extra versions to try (beyond each problem's contrast);
    `in_process`, `shares_state`: the problems the run graded in the program's own process,
    or with its pyplot (as it did)."""
    limits = limits or Limits()
    by_id = {p.id: p for p in problems}
    failed = [
        record
        for chain in chains_of(records).values()
        if (record := at_round(chain, last_round)) is not None
        and record.status in FAILURES
        and record.problem_id in by_id
    ]
    envs = Environments()
    results: list[tuple[SampleRecord, list[str], int]] = []

    def check(record: SampleRecord) -> tuple[SampleRecord, list[str], int]:
        problem = by_id[record.problem_id]
        works_on, infra = [], 0
        for version, spec in other_versions(problem, (versions or {}).get(problem.library, [])):
            env = envs.get(spec)
            if isinstance(env, Exception):
                infra += 1
                continue
            target = problem.model_copy(update={"version": version})
            test = graded_as_run(problem.hidden_test, problem.id, in_process, shares_state)
            outcome = service.run(env, record.program, test, limits, preload_for(env, target))
            if outcome.status.is_infrastructure:
                infra += 1
            elif outcome.status is Status.PASSED:
                works_on.append(version)
        if on_check is not None:
            on_check()
        return record, works_on, infra

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(check, failed))
    return summarise(run_id, model_name, results, by_id, versions or {})


def summarise(
    run_id: str,
    model_name: str,
    results: list[tuple[SampleRecord, list[str], int]],
    by_id: dict[str, Problem],
    versions: dict[str, list[str]],
) -> DriftSummary:
    matrix: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    examples: list[Drifted] = []
    checked = too_new = too_old = infra = 0
    for record, works_on, failed_checks in results:
        problem = by_id[record.problem_id]
        infra += failed_checks
        if other_versions(problem, versions.get(problem.library, [])):
            checked += 1
        direction = direction_of(problem.version, works_on)
        too_new += direction in ("too_new", "both")
        too_old += direction in ("too_old", "both")
        cells = matrix[problem.library][problem.version]
        for version in works_on or ["none"]:
            cells[version] = cells.get(version, 0) + 1
        if works_on:
            examples.append(
                Drifted(
                    problem_id=problem.id,
                    library=problem.library,
                    pinned=problem.version,
                    seed=record.seed,
                    sample=record.sample,
                    round=record.round,
                    works_on=works_on,
                    direction=direction,
                    program=record.program[:_EXAMPLE_CHARS],
                )
            )
    return DriftSummary(
        run_id=run_id,
        model_name=model_name,
        failures=len(results),
        checked=checked,
        confused=len(examples),
        too_new=too_new,
        too_old=too_old,
        infrastructure=infra,
        matrix={lib: dict(rows) for lib, rows in matrix.items()},
        examples=examples,
    )


def direction_of(pinned: str, works_on: list[str]) -> str | None:
    if not works_on:
        return None
    newer = any(version_key(v) > version_key(pinned) for v in works_on)
    older = any(version_key(v) < version_key(pinned) for v in works_on)
    return "both" if newer and older else "too_new" if newer else "too_old"


def version_key(version: str) -> Version:
    """A version's sort key (an unparseable one sorts first)."""
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")
