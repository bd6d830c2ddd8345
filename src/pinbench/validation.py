"""`pinbench validate`: prove every problem of a dataset sound in its pinned environment.

For each problem: the starter code compiles, the pinned dependencies import, and the reference
solution passes the visible and hidden tests. Environments build in parallel with executions
of those already built; an environment failure is reported as such, never as an unsound problem.
"""

from __future__ import annotations

import ast
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, Field

from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.outcome import Execution, Grading, Limits, Status
from pinbench.core.tests import Fallback, TestKind, TestSpec
from pinbench.core.version import VERSION
from pinbench.envs import ensure
from pinbench.envs.node.builder import NodeEnvironment, split_pin
from pinbench.envs.node.syntax import ParserUnavailable, syntax_error
from pinbench.envs.python.builder import Environment as PythonEnvironment
from pinbench.envs.python.imports import pinned_modules, primary_modules
from pinbench.execution.local import ExecutionService
from pinbench.execution.timeouts import Calibration, retry_at_cap
from pinbench.sandbox.grade import TRUSTED, current_grading
from pinbench.sandbox.isolation import Isolation
from pinbench.store.flakes import FlakeRegistry, flake_key
from pinbench.tasks.generation.problem import Language, Problem, env_spec_for
from pinbench.tasks.generation.task import item_of


class Verdict(StrEnum):
    SOUND = "sound"
    UNSOUND = "unsound"  # a check failed: the problem itself is broken
    UNVERIFIED = "unverified"  # infrastructure prevented the checks (environment, harness)
    NOT_DISCRIMINATIVE = "not_discriminative"  # sound, but not proven to depend on its version
    FLAKY = "flaky"  # repeated, the reference's hidden test passed only sometimes


# Outcomes that count as "the program failed" where a check expects a failure.
_FAILURES = {Status.FAILED, Status.SYNTAX_ERROR, Status.TIMEOUT, Status.RESOURCE_LIMIT}


class Check(BaseModel):
    status: Status
    detail: str = ""
    seconds: float = 0.0
    expect: str = Field(default="pass", description="'pass', or 'fail' for a contrast check")

    @property
    def ok(self) -> bool:
        return self.status is Status.PASSED if self.expect == "pass" else self.status in _FAILURES

    @classmethod
    def of(cls, execution: Execution, expect: str = "pass") -> Check:
        detail = execution.message
        if execution.exc_type and execution.exc_type not in detail:
            detail = f"{execution.exc_type}: {detail}"
        return cls(
            status=execution.status, detail=detail[:500], seconds=execution.seconds, expect=expect
        )


class Repeats(BaseModel):
    """The reference's hidden test run again and again: half one after another, half all at
    once (parallel load), never from the outcome cache."""

    runs: int = Field(description="scored runs (infrastructure outcomes left out)")
    passed: int
    outcomes: dict[str, int] = Field(description="status -> runs")
    seconds: list[float] = Field(default_factory=list, description="each run's time")

    @property
    def flaky(self) -> bool:
        return 0 < self.passed < self.runs


class ProblemReport(BaseModel):
    id: str
    library: str
    version: str
    verdict: Verdict
    language: str = "python"
    checks: dict[str, Check] = Field(default_factory=dict)
    env_key: str | None = None
    python: str | None = None
    node: str | None = Field(default=None, description="JavaScript/TypeScript: the Node release")
    interpreter: str | None = None
    substitution: str | None = None
    isolation: str = ""
    path: str = ""
    calibration: Calibration | None = None
    in_process: bool = Field(
        default=False,
        description="graded in the program's own process (forgeable): under trusted grading "
        "the reference fails its hidden test out of process and passes in one",
    )
    shares_state: bool = Field(
        default=False,
        description="graded out of the program's process with state shared (its pyplot, the "
        "process-state module, as the test's; the test's own app objects as the program's): "
        "under trusted grading the reference fails its tests without that and passes with it",
    )
    out_of_process: dict[str, Check] | None = Field(
        default=None,
        description="in-process and state-sharing problems: the reference's failing checks "
        "out of process (why it needed the program's own process or state)",
    )

    repeats: Repeats | None = Field(
        default=None, description="`--repeat N`: the hidden test's outcomes over N+1 runs"
    )

    @property
    def failing(self) -> list[str]:
        return [name for name, c in self.checks.items() if not c.ok]


def starter_compiles(starter: str, reference: str = "") -> Check:
    """The starter is shown to the model as the beginning of its program, so it must begin a
    valid one: it compiles once given a body (`def ...:` open at the end), or, as in
    GitChameleon, where starters end mid-statement by design, it is a prefix of the
    reference program, which compiles."""
    if not starter.strip():
        return Check(status=Status.PASSED, detail="no starter code")
    try:
        ast.parse(starter)
        return Check(status=Status.PASSED)
    except SyntaxError:
        pass
    try:
        ast.parse(_with_placeholder_body(starter))
        return Check(status=Status.PASSED)
    except SyntaxError as exc:
        error = exc
    if reference.startswith(starter.rstrip()) and _parses(reference):
        return Check(status=Status.PASSED, detail="a prefix of the reference program")
    return Check(status=Status.SYNTAX_ERROR, detail=f"line {error.lineno}: {error.msg}")


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def _starter_check(problem: Problem) -> Check:
    """Python starters must compile (or prefix the reference); a JavaScript or TypeScript
    starter must parse in its language (Node's parser, TypeScript's), or be a prefix of the
    reference, which parses. Nothing is run."""
    if problem.language is Language.PYTHON:
        return starter_compiles(problem.starter_code, problem.solution)
    if not problem.starter_code.strip():
        return Check(status=Status.PASSED, detail="no starter code")
    typescript = problem.language is Language.TYPESCRIPT
    try:
        error = syntax_error(problem.starter_code, typescript)
        if error is None:
            return Check(status=Status.PASSED)
        prefix = problem.solution.startswith(problem.starter_code.rstrip())
        if prefix and syntax_error(problem.solution, typescript) is None:
            return Check(status=Status.PASSED, detail="a prefix of the reference program")
    except ParserUnavailable as exc:
        return Check(status=Status.ENVIRONMENT_ERROR, detail=str(exc))
    return Check(status=Status.SYNTAX_ERROR, detail=error[:300])


def _with_placeholder_body(starter: str) -> str:
    lines = starter.rstrip().splitlines() or [""]
    last = lines[-1]
    indent = last[: len(last) - len(last.lstrip())]
    return starter.rstrip() + "\n" + indent + "    pass\n"


def preload_for(env: Environment, problem: Problem) -> tuple[str, ...]:
    """What a warm server for this problem should import: its environment's own modules and
    what its tests' runner needs (pytest for pytest modules and repositories' suites)."""
    return tuple(dict.fromkeys((*env.preload(), *item_of(problem).preload)))


def _import_check(
    service: ExecutionService, env: Environment, problem: Problem, limits: Limits
) -> Check:
    """Every pinned distribution imports: its primary module must, its other top-level modules
    (a wheel's extras such as torch's caffe2) are tried and may fail. Every pinned npm package
    loads (`require`, else `import()` for an ES-module-only one)."""
    if isinstance(env, NodeEnvironment):
        return _require_check(service, env, limits)
    assert isinstance(env, PythonEnvironment)
    pins = env.resolution.spec.pins
    primary = [m for pin in pins for m in primary_modules(env.path, pin)]
    if not primary:
        return Check(status=Status.ENVIRONMENT_ERROR, detail="no importable module found for pins")
    others = [m for m in pinned_modules(env.path, pins) if m not in primary]
    lines = [f"import {m}" for m in primary]
    lines += [f"try:\n    import {m}\nexcept Exception:\n    pass" for m in others]
    test = TestSpec(kind=TestKind.SCRIPT, code="")
    result = service.run(env, "\n".join(lines), test, limits, preload_for(env, problem))
    check = Check.of(result)
    if result.status is Status.FAILED:  # a pinned library that does not import is the env's fault
        check.status = Status.ENVIRONMENT_ERROR
    return check.model_copy(update={"detail": check.detail or ", ".join(primary)})


def _declarations_only(env: NodeEnvironment, name: str) -> bool:
    """A package that ships type declarations and no code (`@types/*`, or a package.json with
    `types` and no entry point or index file): there is nothing to load."""
    if name.startswith("@types/"):
        return True
    root = env.path / "node_modules" / name
    try:
        meta = json.loads((root / "package.json").read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(meta, dict) or not (meta.get("types") or meta.get("typings")):
        return False
    entries = ("main", "module", "exports", "browser")
    index = ("index.js", "index.cjs", "index.mjs")
    return not any(meta.get(key) for key in entries) and not any((root / f).exists() for f in index)


def _require_check(service: ExecutionService, env: NodeEnvironment, limits: Limits) -> Check:
    pinned = [split_pin(pin)[0] for pin in env.spec.pins]
    names = [name for name in pinned if not _declarations_only(env, name)]
    if not names:
        if pinned:
            return Check(status=Status.PASSED, detail="type declarations only: nothing to load")
        return Check(status=Status.PASSED, detail="no packages: Node's standard library")
    code = (
        "const load = async (name) => {\n"
        "  try { require(name); } catch (err) {\n"
        "    if (!['ERR_REQUIRE_ESM', 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'MODULE_NOT_FOUND']"
        ".includes(err.code)) throw err;\n"
        "    await import(name);\n"
        "  }\n"
        "};\n"
        f"test('the pinned packages load', async () => {{\n"
        f"  for (const name of {names!r}) await load(name);\n"
        "});\n"
    )
    test = TestSpec(kind=TestKind.JEST, code=code, module="solution")
    result = service.run(env, "", test, limits, ())
    check = Check.of(result)
    if result.status is Status.FAILED:  # a pinned package that does not load is the env's fault
        check.status = Status.ENVIRONMENT_ERROR
    if check.status is Status.ENVIRONMENT_ERROR:
        skipped = env.install_scripts_not_run
        if skipped:  # the likeliest why: name it first
            check.detail = (
                f"packages whose install scripts pinbench does not run (a native build or a "
                f"download): {', '.join(skipped[:5])}; {check.detail}"
            )
    return check.model_copy(update={"detail": check.detail or ", ".join(names)})


CONTRAST_CHECKS = (
    "contrast_reference_fails",
    "contrast_solution_passes",
    "contrast_solution_fails_on_pin",
)


def contrast_spec_for(problem: Problem) -> EnvSpec | None:
    """The environment of the problem's contrasting version, if it has one."""
    contrast = problem.contrast
    if contrast is None:
        return None
    return env_spec_for(_on_contrast(problem))


def _on_contrast(problem: Problem) -> Problem:
    contrast = problem.contrast
    assert contrast is not None
    return problem.model_copy(
        update={
            "version": contrast.version,
            "python_version": contrast.python_version or problem.python_version,
            "node_version": contrast.node_version or problem.node_version,
            "extra_pins": contrast.extra_pins or problem.extra_pins,
            "solution": contrast.solution or "",
        }
    )


def check_contrast(
    service: ExecutionService,
    pinned: Environment,
    contrast: Environment | Exception | None,
    problem: Problem,
    cap: Limits,
) -> dict[str, Check]:
    """The reference must fail on the contrasting version; the contrast's own solution (when
    given) must pass there and fail on the pinned version."""
    if problem.contrast is None or contrast is None:
        return {"contrast_version": Check(status=Status.FAILED, detail="no contrasting version")}
    if isinstance(contrast, Exception):
        return {"contrast_environment": _env_error_check(contrast)}
    other = _on_contrast(problem)
    test = problem.hidden_test
    checks = {
        "contrast_reference_fails": Check.of(
            service.run(contrast, problem.solution, test, cap, preload_for(contrast, other)), "fail"
        )
    }
    if problem.contrast.solution:
        solution = problem.contrast.solution
        passes = service.run(contrast, solution, test, cap, preload_for(contrast, other))
        if not passes.passed and current_grading().mode == TRUSTED:
            # the contrasting version's own reference decides its grading, as the pin's does
            for fallback in test.fallbacks():
                graded = test.graded(fallback)
                again = service.run(contrast, solution, graded, cap, preload_for(contrast, other))
                if again.passed:
                    passes, test = again, graded
                    break
        checks["contrast_solution_passes"] = Check.of(passes)
        checks["contrast_solution_fails_on_pin"] = Check.of(
            service.run(pinned, solution, test, cap, preload_for(pinned, problem)), "fail"
        )
    return checks


def check_problem(
    service: ExecutionService,
    env: Environment,
    problem: Problem,
    cap: Limits,
    contrast: Environment | Exception | None = None,
    discriminative: bool = False,
    repeat: int = 0,
    flakes: FlakeRegistry | None = None,
) -> ProblemReport:
    """Hidden test first, with the cap as deadline: its runtime calibrates the other checks'.
    Under trusted grading, a reference that fails one of its tests out of process and passes
    them all in one makes the problem graded in-process (as `run` decides it too)."""
    report = _base_report(problem, env)
    original = problem
    report.checks["starter_compiles"] = _starter_check(problem)
    preload = preload_for(env, problem)
    report.checks["imports"] = _import_check(service, env, problem, cap)
    hidden, checks = _reference_tests(service, env, problem, cap, preload)
    if current_grading().mode == TRUSTED and not all(c.ok for c in checks.values()):
        for fallback in problem.hidden_test.fallbacks():
            graded = _graded(problem, fallback)
            again, checks_again = _reference_tests(service, env, graded, cap, preload)
            if all(c.ok for c in checks_again.values()):  # they need the program's state
                report.out_of_process = {k: c for k, c in checks.items() if not c.ok}
                problem, hidden, checks = graded, again, checks_again
                setattr(report, fallback, True)
                break
    report.calibration = Calibration(reference_seconds=hidden.seconds, cap_seconds=cap.wall_seconds)
    report.isolation, report.path = hidden.isolation, hidden.path
    report.checks.update(checks)
    if discriminative:
        report.checks.update(check_contrast(service, env, contrast, problem, cap))
    report.verdict = _verdict(report.checks)
    if repeat > 0 and not hidden.status.is_infrastructure:
        report.repeats = repeat_hidden(service, env, problem, cap, preload, hidden, repeat)
        if flakes is not None:
            key = flake_key(env_spec_for(original), original.hidden_test, original.solution)
            flakes.record(key, problem.id, report.repeats.runs, report.repeats.passed)
        if report.repeats.flaky:
            report.verdict = Verdict.FLAKY
    return report


def repeat_hidden(
    service: ExecutionService,
    env: Environment,
    problem: Problem,
    cap: Limits,
    preload: tuple[str, ...],
    first: Execution,
    repeat: int,
) -> Repeats:
    """`first` and `repeat` more runs of the reference's hidden test: the first half one after
    another, the rest all at once."""

    def once() -> Execution:
        return service.run(env, problem.solution, problem.hidden_test, cap, preload, fresh=True)

    alone = (repeat + 1) // 2
    results = [first, *(once() for _ in range(alone))]
    if repeat > alone:
        with ThreadPoolExecutor(max_workers=repeat - alone) as burst:
            results += list(burst.map(lambda _: once(), range(repeat - alone)))
    scored = [r for r in results if not r.status.is_infrastructure]
    outcomes: dict[str, int] = {}
    for result in scored:
        outcomes[result.status.value] = outcomes.get(result.status.value, 0) + 1
    return Repeats(
        runs=len(scored),
        passed=sum(r.passed for r in scored),
        outcomes=outcomes,
        seconds=[round(r.seconds, 3) for r in results],
    )


def _reference_tests(
    service: ExecutionService,
    env: Environment,
    problem: Problem,
    cap: Limits,
    preload: tuple[str, ...],
) -> tuple[Execution, dict[str, Check]]:
    """The reference against its hidden test (deadline: the cap), then its visible and extra
    tests with the deadline the hidden test's runtime calibrates."""
    hidden = service.run(env, problem.solution, problem.hidden_test, cap, preload)
    calibration = Calibration(reference_seconds=hidden.seconds, cap_seconds=cap.wall_seconds)
    calibrated = cap.model_copy(update={"wall_seconds": calibration.deadline})
    checks: dict[str, Check] = {}
    others = {"visible_test": problem.visible_test, **problem.extra_tests}
    for name, test in others.items():
        if test is not None:
            result = service.run(env, problem.solution, test, calibrated, preload)
            timed_out = result.status is Status.TIMEOUT
            if retry_at_cap(timed_out, calibrated.wall_seconds, cap.wall_seconds):
                result = service.run(env, problem.solution, test, cap, preload)
            checks[name] = Check.of(result)
    checks["hidden_test"] = Check.of(hidden)
    return hidden, checks


def _graded(problem: Problem, fallback: Fallback) -> Problem:
    """The problem with every test graded as `fallback` says."""
    extra = {name: test.graded(fallback) for name, test in problem.extra_tests.items()}
    visible = problem.visible_test.graded(fallback) if problem.visible_test else None
    update = {
        "hidden_test": problem.hidden_test.graded(fallback),
        "visible_test": visible,
        "extra_tests": extra,
    }
    return problem.model_copy(update=update)


def _verdict(checks: dict[str, Check]) -> Verdict:
    if all(c.ok for c in checks.values()):
        return Verdict.SOUND
    if any(c.status.is_infrastructure for c in checks.values()):
        return Verdict.UNVERIFIED
    if all(c.ok for name, c in checks.items() if not name.startswith("contrast")):
        return Verdict.NOT_DISCRIMINATIVE
    return Verdict.UNSOUND


def _base_report(problem: Problem, env: Environment | None) -> ProblemReport:
    report = ProblemReport(
        id=problem.id,
        library=problem.library,
        version=problem.version,
        verdict=Verdict.UNVERIFIED,
        language=problem.language.value,
    )
    if isinstance(env, NodeEnvironment):
        report.env_key, report.node = env.key, env.resolution.node
        report.interpreter = str(env.node)
    elif isinstance(env, PythonEnvironment):
        interp = env.resolution.interpreter
        report.env_key = env.key
        report.python = ".".join(map(str, interp.version))
        report.interpreter = str(interp.path)
        report.substitution = env.resolution.substitution
    return report


def _env_error_check(error: Exception) -> Check:
    detail = str(error)
    if isinstance(error, EnvError) and error.log:
        detail += f" (log: {error.log})"
    return Check(status=Status.ENVIRONMENT_ERROR, detail=detail)


def _env_failure(problem: Problem, error: Exception) -> ProblemReport:
    report = _base_report(problem, None)
    report.checks["environment"] = _env_error_check(error)
    report.checks["starter_compiles"] = _starter_check(problem)
    return report


def validate(
    problems: list[Problem],
    *,
    jobs: int = 2,
    limits: Limits | None = None,
    service: ExecutionService | None = None,
    discriminative: bool = False,
    on_progress: Callable[[str, ProblemReport | None], None] | None = None,
    repeat: int = 0,
) -> list[ProblemReport]:
    """Validate all problems; results come back in dataset order.

    Builds run on one pool and executions on another, so executions of built environments
    overlap with builds still running; a problem is checked once all its environments (its
    pin's, and its contrast's under `discriminative`) are ready. `on_progress` hears
    ("built", None) per environment and ("checked", report) per problem.
    """
    if service is None:
        with ExecutionService(jobs=jobs) as own:
            return validate(
                problems,
                jobs=jobs,
                limits=limits,
                service=own,
                discriminative=discriminative,
                on_progress=on_progress,
                repeat=repeat,
            )
    limits = limits or Limits()
    flakes = FlakeRegistry() if repeat > 0 else None
    notify = on_progress or (lambda _event, _report: None)
    needs = [specs_for(p, discriminative) for p in problems]
    waiting_on = [len(specs) for specs in needs]
    users: dict[EnvSpec, list[int]] = {}
    for index, specs in enumerate(needs):
        for spec in specs:
            users.setdefault(spec, []).append(index)
    built: dict[EnvSpec, Environment | Exception] = {}
    reports: list[ProblemReport | None] = [None] * len(problems)
    lock = threading.Lock()
    with (
        ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="build") as builders,
        ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="exec") as runners,
    ):
        pending: list[Future[None]] = []

        def run_one(index: int) -> None:
            problem = problems[index]
            pinned = built[needs[index][0]]
            contrast = built[needs[index][1]] if len(needs[index]) > 1 else None
            if isinstance(pinned, Exception):
                report = _env_failure(problem, pinned)
            else:
                try:
                    report = check_problem(
                        service, pinned, problem, limits, contrast, discriminative,
                        repeat, flakes,
                    )  # fmt: skip
                except Exception as exc:  # a harness fault on one problem must not stop the run
                    report = _base_report(problem, pinned)
                    report.checks["harness"] = Check(status=Status.HARNESS_ERROR, detail=repr(exc))
            with lock:
                reports[index] = report
            notify("checked", report)

        def on_built(spec: EnvSpec, future: Future[Environment]) -> None:
            try:
                result: Environment | Exception = future.result()
            except Exception as exc:
                result = exc
            notify("built", None)
            with lock:
                built[spec] = result
                for index in users[spec]:
                    waiting_on[index] -= 1
                    if waiting_on[index] == 0:
                        pending.append(runners.submit(run_one, index))

        for spec in users:
            build = builders.submit(ensure, spec)
            build.add_done_callback(lambda f, s=spec: on_built(s, f))  # type: ignore[misc]
        builders.shutdown(wait=True)
        while True:
            with lock:
                unfinished = [f for f in pending if not f.done()]
            if not unfinished:
                break
            for future in unfinished:
                future.result()
    return [r for r in reports if r is not None]


class ValidationRun(BaseModel):
    """The `--json` document of `pinbench validate` (schema: docs/validate-json.md)."""

    schema_version: int = 1
    pinbench_version: str = VERSION
    dataset: str
    format: str
    isolation: str
    grading: Grading = Field(default_factory=Grading, description="how verdicts were reached")
    started_at: str
    seconds: float
    summary: dict[str, int]
    load_issues: list[str]
    executions: dict[str, int]
    problems: list[ProblemReport]


def validate_dataset(
    problems: list[Problem],
    *,
    dataset: str,
    fmt: str,
    load_issues: list[str],
    isolation: Isolation | None = None,
    jobs: int = 2,
    timeout: float = 60.0,
    warm: bool = True,
    cache: bool = True,
    discriminative: bool = False,
    on_progress: Callable[[str, ProblemReport | None], None] | None = None,
    repeat: int = 0,
) -> ValidationRun:
    """`pinbench validate`: every problem checked with its own execution service (warm pools
    and outcome cache as asked), and the document its `--json` writes."""
    started = time.monotonic()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    limits = Limits(wall_seconds=timeout, cpu_seconds=max(1, int(timeout)))
    with ExecutionService(jobs=jobs, warm=warm, cache=cache, isolation=isolation) as service:
        reports = validate(
            problems,
            jobs=jobs,
            limits=limits,
            service=service,
            discriminative=discriminative,
            on_progress=on_progress,
            repeat=repeat,
        )
        stats = service.stats()
    summary = {v.value: sum(r.verdict is v for r in reports) for v in Verdict}
    summary["problems"] = len(reports)
    return ValidationRun(
        dataset=dataset,
        format=fmt,
        isolation=service.isolation.level,
        grading=current_grading().model_copy(
            update={
                "in_process": tuple(r.id for r in reports if r.in_process),
                "shares_state": tuple(r.id for r in reports if r.shares_state),
            }
        ),
        started_at=started_at,
        seconds=round(time.monotonic() - started, 3),
        summary=summary,
        load_issues=load_issues,
        executions=stats,
        problems=reports,
    )


def specs_for(problem: Problem, discriminative: bool) -> tuple[EnvSpec, ...]:
    contrast = contrast_spec_for(problem) if discriminative else None
    return (env_spec_for(problem),) if contrast is None else (env_spec_for(problem), contrast)


def environment_count(problems: list[Problem], discriminative: bool = False) -> int:
    return len({spec for p in problems for spec in specs_for(p, discriminative)})


def write_json(path: Path, payload: BaseModel) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(payload.model_dump_json(indent=2))
