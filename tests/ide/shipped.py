"""What the language suites share about pinbench's shipped IDE repositories: each built once
per module (snapshot, environment, baseline, cases), an answer scored statically or executed
against the repository, the PLANTED.md tables, and the reference model's check."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from pinbench.core import snapshots
from pinbench.core.env import Environment
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import Case, Kind, TestCase
from pinbench.tasks.ide.collect import builtin_repositories, collect
from pinbench.tasks.ide.repo import RepoBuild
from pinbench.tasks.ide.selection import Context, Quotas
from pinbench.tasks.ide.task import IdeTask, item_of

T = TypeVar("T")


@dataclass(frozen=True)
class Built:
    build: RepoBuild
    env: Environment
    cases: list[Case]

    def case(self, kind: Kind, **where: object) -> Case:
        for case in self.cases:
            if case.scenario is kind and all(getattr(case, k) == v for k, v in where.items()):
                return case
        raise LookupError(f"no {kind} case with {where}")


def built_repos(service: ExecutionService, names: Iterable[str]) -> dict[str, Built]:
    """The named shipped repositories, built and their cases collected."""
    wanted, found = set(names), {}
    for path in builtin_repositories():
        if path.name in wanted:
            build, env = build_repo(path, service)
            context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
            found[path.name] = Built(build, env, collect(context, list(Kind)).cases)
    assert set(found) == wanted
    return found


def planted(repo: str, rule: Callable[[str], str] = str) -> set[tuple[str, int, str]]:
    """(file, line, rule or category) of every row of the repository's PLANTED.md table."""
    text = (next(p for p in builtin_repositories() if p.name == repo) / "PLANTED.md").read_text()
    rows = set()
    for line in text.splitlines():
        cells = [c.strip().strip("`").strip("[]") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[1].isdigit():
            rows.add((cells[0], int(cells[1]), rule(cells[3])))
    return rows


def execute(
    service: ExecutionService, built: Built, case: Case, answer: str, seconds: float = 300
) -> Execution:
    """The answer run against the repository's tests, as a run would."""
    item = item_of(case)
    program = IdeTask().program(item, answer)
    assert item.hidden_test is not None and item.hidden_test.kind.is_repository, case.id
    return service.run(built.env, program, item.hidden_test, Limits(wall_seconds=seconds), ())


def static(case: Case, answer: str) -> tuple[dict[str, float], bool | None]:
    """The answer's static scores and verdict (None: the verdict is the execution's)."""
    task, item = IdeTask(), item_of(case)
    scores = task.score(item, answer, None)
    return scores, task.verdict(item, scores)


def spread(items: list[T], most: int) -> list[T]:
    """At most `most` of the items, evenly spread from the first to the last."""
    if len(items) <= most:
        return items
    return [items[round(i * (len(items) - 1) / (most - 1))] for i in range(most)]


def check_references(
    service: ExecutionService, repos: dict[str, Built], executed: int | None = None
) -> int:
    """The reference model on every case: doc and workspace answers pass their checks, fix
    answers (the unchanged lines) resolve nothing, generate and test answers (test: where a
    reference test file exists) score fully and pass when executed. `executed`: how many of
    each repository's generate and of its test cases run (spread over them; all when None):
    each builds the repository in the sandbox, and `pinbench run --task ide -m reference`
    runs them all. The number of reference tests run."""
    task = IdeTask()
    references = 0
    for built in repos.values():
        runs: dict[Kind, list[tuple[Case, str]]] = {Kind.GENERATE: [], Kind.TEST: []}
        for case in built.cases:
            item = item_of(case)
            answer = task.reference_answer(item)
            scores = task.score(item, answer, built.env)
            verdict = task.verdict(item, scores)
            if case.scenario is Kind.FIX:
                assert verdict is False and scores["fix.resolved"] == 0.0, case.id
            elif isinstance(case, TestCase) and not case.reference:
                continue  # no suite file to offer: not part of the target
            elif item.hidden_test is not None:
                assert all(scores.values()), (case.id, scores)
                runs[case.scenario].append((case, answer))
            else:
                assert verdict is True, (case.id, scores)
        for scenario, answers in runs.items():
            for case, answer in answers if executed is None else spread(answers, executed):
                done = execute(service, built, case, answer)
                assert done.status is Status.PASSED, (case.id, done.message)
                references += scenario is Kind.TEST
    return references
