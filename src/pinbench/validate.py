"""`pinbench validate`: prove every problem of a dataset sound in its pinned environment.

For each problem: the starter code compiles, the pinned dependencies import, and the reference
solution passes the visible and hidden tests. Environments build in parallel with executions
of those already built; an environment failure is reported as such, never as an unsound problem.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, Field

from pinbench.envs.builder import EnvError, Environment, ensure
from pinbench.envs.imports import import_names
from pinbench.executions import ExecutionService
from pinbench.problems.model import EnvSpec, Problem, TestKind, TestSpec, env_spec_for
from pinbench.sandbox.outcome import Execution, Limits, Status
from pinbench.sandbox.timeouts import Calibration


class Verdict(StrEnum):
    SOUND = "sound"
    UNSOUND = "unsound"  # a check failed: the problem itself is broken
    UNVERIFIED = "unverified"  # infrastructure prevented the checks (environment, harness)


class Check(BaseModel):
    status: Status
    detail: str = ""
    seconds: float = 0.0

    @classmethod
    def of(cls, execution: Execution) -> Check:
        detail = execution.message
        if execution.exc_type and execution.exc_type not in detail:
            detail = f"{execution.exc_type}: {detail}"
        return cls(status=execution.status, detail=detail[:500], seconds=execution.seconds)


class ProblemReport(BaseModel):
    id: str
    library: str
    version: str
    verdict: Verdict
    checks: dict[str, Check] = Field(default_factory=dict)
    env_key: str | None = None
    python: str | None = None
    interpreter: str | None = None
    substitution: str | None = None
    isolation: str = ""
    path: str = ""
    calibration: Calibration | None = None

    @property
    def failing(self) -> list[str]:
        return [name for name, c in self.checks.items() if c.status is not Status.PASSED]


def starter_compiles(starter: str) -> Check:
    """Starter code usually ends in an open `def ...:`; it compiles once given a body."""
    if not starter.strip():
        return Check(status=Status.PASSED, detail="no starter code")
    for candidate in (starter, _with_placeholder_body(starter)):
        try:
            ast.parse(candidate)
            return Check(status=Status.PASSED)
        except SyntaxError:
            continue
    try:
        ast.parse(_with_placeholder_body(starter))
    except SyntaxError as exc:
        return Check(status=Status.SYNTAX_ERROR, detail=f"line {exc.lineno}: {exc.msg}")
    return Check(status=Status.SYNTAX_ERROR)


def _with_placeholder_body(starter: str) -> str:
    lines = starter.rstrip().splitlines() or [""]
    last = lines[-1]
    indent = last[: len(last) - len(last.lstrip())]
    return starter.rstrip() + "\n" + indent + "    pass\n"


def preload_for(env: Environment, problem: Problem) -> tuple[str, ...]:
    """What a warm server for this problem should import: its pins' modules, and pytest when a
    test is a pytest module."""
    modules: list[str] = []
    for pin in problem.pins:
        modules += import_names(env.path, pin)
    tests = [problem.visible_test, problem.hidden_test, *problem.extra_tests.values()]
    if any(t is not None and t.kind is TestKind.PYTEST for t in tests):
        modules.append("pytest")
    return tuple(dict.fromkeys(modules))


def _import_check(
    service: ExecutionService, env: Environment, problem: Problem, limits: Limits
) -> Check:
    modules = [m for m in preload_for(env, problem) if m != "pytest"]
    if not modules:
        return Check(status=Status.ENVIRONMENT_ERROR, detail="no importable module found for pins")
    program = "\n".join(f"import {m}" for m in modules)
    test = TestSpec(kind=TestKind.SCRIPT, code="")
    result = service.run(env, program, test, limits, preload_for(env, problem))
    check = Check.of(result)
    if result.status is Status.FAILED:  # a pinned library that does not import is the env's fault
        check.status = Status.ENVIRONMENT_ERROR
    return check.model_copy(update={"detail": check.detail or ", ".join(modules)})


def check_problem(
    service: ExecutionService, env: Environment, problem: Problem, cap: Limits
) -> ProblemReport:
    """Hidden test first, with the cap as deadline: its runtime calibrates the other checks'."""
    report = _base_report(problem, env)
    report.checks["starter_compiles"] = starter_compiles(problem.starter_code)
    preload = preload_for(env, problem)
    report.checks["imports"] = _import_check(service, env, problem, cap)
    hidden = service.run(env, problem.solution, problem.hidden_test, cap, preload)
    calibration = Calibration(reference_seconds=hidden.seconds, cap_seconds=cap.wall_seconds)
    report.calibration = calibration
    report.isolation, report.path = hidden.isolation, hidden.path
    calibrated = cap.model_copy(update={"wall_seconds": calibration.deadline})
    others = {"visible_test": problem.visible_test, **problem.extra_tests}
    for name, test in others.items():
        if test is not None:
            report.checks[name] = Check.of(
                service.run(env, problem.solution, test, calibrated, preload)
            )
    report.checks["hidden_test"] = Check.of(hidden)
    report.verdict = _verdict(report.checks)
    return report


def _verdict(checks: dict[str, Check]) -> Verdict:
    statuses = [c.status for c in checks.values()]
    if all(s is Status.PASSED for s in statuses):
        return Verdict.SOUND
    if any(s.is_infrastructure for s in statuses):
        return Verdict.UNVERIFIED
    return Verdict.UNSOUND


def _base_report(problem: Problem, env: Environment | None) -> ProblemReport:
    report = ProblemReport(
        id=problem.id, library=problem.library, version=problem.version, verdict=Verdict.UNVERIFIED
    )
    if env is not None:
        interp = env.resolution.interpreter
        report.env_key = env.key
        report.python = ".".join(map(str, interp.version))
        report.interpreter = str(interp.path)
        report.substitution = env.resolution.substitution
    return report


def _env_failure(problem: Problem, error: Exception) -> ProblemReport:
    report = _base_report(problem, None)
    detail = str(error)
    if isinstance(error, EnvError) and error.log:
        detail += f" (log: {error.log})"
    report.checks["environment"] = Check(status=Status.ENVIRONMENT_ERROR, detail=detail)
    report.checks["starter_compiles"] = starter_compiles(problem.starter_code)
    return report


def validate(
    problems: list[Problem],
    *,
    jobs: int = 2,
    limits: Limits | None = None,
    service: ExecutionService | None = None,
    on_progress: Callable[[str, ProblemReport | None], None] | None = None,
) -> list[ProblemReport]:
    """Validate all problems; results come back in dataset order.

    Builds run on one pool and executions on another, so executions of built environments
    overlap with builds still running. `on_progress` hears ("built", None) per environment and
    ("checked", report) per problem.
    """
    limits = limits or Limits()
    owned = service is None
    service = service or ExecutionService(jobs=jobs)
    notify = on_progress or (lambda _event, _report: None)
    groups: dict[EnvSpec, list[int]] = {}
    for i, problem in enumerate(problems):
        groups.setdefault(env_spec_for(problem), []).append(i)
    reports: list[ProblemReport | None] = [None] * len(problems)
    lock = threading.Lock()
    with (
        ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="build") as builders,
        ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="exec") as runners,
    ):
        pending: list[Future[None]] = []

        def finish(index: int, report: ProblemReport) -> None:
            with lock:
                reports[index] = report
            notify("checked", report)

        def run_one(index: int, env: Environment) -> None:
            try:
                report = check_problem(service, env, problems[index], limits)
            except Exception as exc:  # a harness fault on one problem must not stop the run
                report = _base_report(problems[index], env)
                report.checks["harness"] = Check(status=Status.HARNESS_ERROR, detail=repr(exc))
            finish(index, report)

        def on_built(future: Future[Environment], members: list[int]) -> None:
            notify("built", None)
            try:
                env = future.result()
            except Exception as exc:
                for index in members:
                    finish(index, _env_failure(problems[index], exc))
                return
            with lock:
                pending.extend(runners.submit(run_one, index, env) for index in members)

        for spec, members in groups.items():
            build = builders.submit(ensure, spec)
            build.add_done_callback(lambda f, m=members: on_built(f, m))  # type: ignore[misc]
        builders.shutdown(wait=True)
        while True:
            with lock:
                waiting = [f for f in pending if not f.done()]
            if not waiting:
                break
            for future in waiting:
                future.result()
    if owned:
        service.close()
    return [r for r in reports if r is not None]


def environment_count(problems: list[Problem]) -> int:
    return len({env_spec_for(p) for p in problems})


def write_json(path: Path, payload: BaseModel) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(payload.model_dump_json(indent=2))
