"""The VersiCode tasks: version-specific code completion (fill `<token_mask>`, `<line_mask>` or
`<block_mask>`) and version-aware code editing (rewrite code of one version for another).

Answers are read between `<start>` and `<end>` as VersiCode's scripts read them and scored by
its string metrics; when the target meta-instance carries a test (all of pinbench's own do),
the completed or edited program also runs in the target version's environment, so the report
can show how often string metrics and execution disagree.

A target given by a constraint rather than a pin ('<0.25', '==1.*') is prompted as published
(`numpy<0.25`). When its program must run, the newest release inside the constraint on the
package index is chosen for the environment, and the problem says so: its version is that
release, its tags `versicode/constraint:<0.25` and `versicode/chosen_version:0.24.2` (or
`versicode/chosen_version:none` with the reason in the problem text when the index cannot
tell; the environment then pins the specifier itself and uv resolves it). String metrics never
need the index."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestKind, TestSpec
from pinbench.models.base import Message, Request, Sampling
from pinbench.tasks.base import BaseScenario
from pinbench.tasks.generation.problem import Problem, env_spec_for
from pinbench.tasks.generation.templates import Feedback
from pinbench.tasks.versicode import metrics, versions
from pinbench.tasks.versicode.model import CompletionTask, EditTask, Granularity, MetaInstance

Task = CompletionTask | EditTask

SYSTEM = (
    "You are an expert Python programmer who knows exactly which APIs exist in each version of "
    "a library. Put your answer between <start> and <end>, with nothing else between them."
)
COMPLETION = (
    "This code is written for {requirement}{python}.{description}\n"
    "The part marked {mask} is hidden. Write the {what} that replaces {mask}, as it must be for "
    "{requirement}.\n\n```python\n{code}\n```\n\nAnswer: <start>the {what}<end>"
)
GENERATION = (  # VersiCode's block level: description and requirement, no code
    "Write Python code for {requirement}{python}.{description}\n"
    "Use the API as it is in {requirement}.\n\n"
    "Answer with the complete code: <start>code<end>"
)
EDITING = (
    "This code works with {source}.{description}\n"
    "Rewrite it so that it works with {target}, keeping what it does.\n\n"
    "```python\n{code}\n```\n\nAnswer with the complete new code: <start>code<end>"
)
TAG_PREFIX = "versicode/"  # report breakdowns read `versicode/NAME:VALUE` tags
_WHAT = {"token": "identifier", "line": "line of code", "block": "block of code"}


@dataclass
class VersiCodeScenario(BaseScenario):
    """Serves a list of tasks; `problems()` are what the runner schedules and executes."""

    tasks: list[Task]
    variant: metrics.Variant = metrics.Variant.VERSICODE
    name: str = "versicode"
    # (library, constraint) -> the release to run it on; the index's newest by default
    choose_release: Callable[[str, str], str] = versions.newest_release
    _by_id: dict[str, Task] = field(init=False, repr=False)
    _chosen: dict[tuple[str, str], str | LookupError] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {task.id: task for task in self.tasks}
        self._chosen = {}

    def problems(self) -> list[Problem]:
        return [as_problem(task, self._choice(task)) for task in self.tasks]

    def _choice(self, task: Task) -> str | LookupError | None:
        """For a task that runs on a constraint: the release chosen inside it (asked once per
        library and constraint), or why none could be. None: nothing to choose."""
        meta = target(task)
        if meta.constraint is None or meta.version is not None or meta.test is None:
            return None
        key = (meta.library, meta.constraint)
        if key not in self._chosen:
            try:
                self._chosen[key] = self.choose_release(*key)
            except LookupError as exc:
                self._chosen[key] = exc
        return self._chosen[key]

    def env_spec(self, problem: Problem) -> EnvSpec:
        spec = env_spec_for(problem)
        meta = target(self.task(problem))
        if meta.constraint is None or problem.version != meta.constraint:
            return spec
        # No release could be chosen: the environment pins the specifier, uv resolves it.
        return spec.model_copy(update={"pins": (meta.requirement, *spec.pins[1:])})

    def task(self, problem: Problem) -> Task:
        return self._by_id[problem.id]

    def request(
        self,
        problem: Problem,
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request:
        task = self.task(problem)
        text = _completion_prompt(task) if isinstance(task, CompletionTask) else _edit_prompt(task)
        return Request(
            problem_id=problem.id,
            sample=sample,
            round=round,
            messages=(Message(role="system", content=SYSTEM), Message(role="user", content=text)),
            sampling=sampling,
        )

    def program(self, problem: Problem, text: str) -> str:
        task = self.task(problem)
        answer = metrics.extract_answer(text, self.variant)
        return task.program(answer) if isinstance(task, CompletionTask) else answer

    def string_scores(self, problem: Problem, text: str) -> dict[str, float]:
        task = self.task(problem)
        answer = metrics.extract_answer(text, self.variant)
        # As VersiCode's scripts gate them: ISM/PM need the core API name in the answer, and a
        # block or an edit must compile.
        core: str | None
        if isinstance(task, CompletionTask):
            reference, core = task.reference, task.api
            compile_gate = task.granularity is Granularity.BLOCK
        else:
            reference, core, compile_gate = task.to_meta.code, task.to_meta.api, True
        scores = metrics.score_answer(
            answer, reference, self.variant, core_token=core, verify_grammar=compile_gate
        )
        return {"em": scores.em, "ism": scores.ism, "pm": scores.pm, "grammar": scores.grammar}

    def reference_answer(self, problem: Problem) -> str:
        task = self.task(problem)
        answer = task.reference if isinstance(task, CompletionTask) else task.to_meta.code
        return f"<start>{answer}<end>"

    def executable(self, problem: Problem) -> bool:
        return target(self.task(problem)).test is not None


def target(task: Task) -> MetaInstance:
    """The meta-instance whose version the answer must work with."""
    return task.meta if isinstance(task, CompletionTask) else task.to_meta


def as_problem(task: Task, chosen: str | LookupError | None = None) -> Problem:
    """The task as a problem of the target version: its code is the reference program, its
    test (when it has one) the hidden test; tags carry VersiCode's breakdowns.

    A target given by a constraint runs on `chosen` (a release inside it); the problem's
    version is that release, or the constraint itself while none is chosen, and its tags name
    both."""
    meta = target(task)
    values = {"source": meta.source.value, "lifespan": meta.lifespan.value}
    if isinstance(task, CompletionTask):
        values["granularity"] = task.granularity.value
    else:
        values |= {"transition": task.transition.value, "direction": task.direction.value}
    version = meta.version
    note = ""
    if meta.constraint is not None:
        values["constraint"] = meta.constraint
        if version is None and isinstance(chosen, str):
            version = chosen
        values["chosen_version"] = version or "none"
        if version is not None and meta.version is None:
            note = f" (runs on {meta.library}=={version}: newest release {meta.constraint})"
        elif isinstance(chosen, LookupError):
            note = f" (no release chosen {meta.constraint}: {chosen})"
    tags = [f"{TAG_PREFIX}{name}:{value}" for name, value in values.items()]
    return Problem(
        id=task.id,
        library=meta.library,
        version=version or str(meta.constraint),
        python_version=meta.python_version,
        extra_pins=meta.extra_pins,
        problem=(meta.description or meta.requirement) + note,
        solution=meta.code,
        hidden_test=meta.test or TestSpec(kind=TestKind.SCRIPT, code=""),
        release_date=meta.release_date,
        tags=tuple(tags),
        origin=meta.origin,
    )


def _python(meta: MetaInstance) -> str:
    return f" and Python {meta.python_version}" if meta.python_version else ""


def _description(meta: MetaInstance) -> str:
    return f" It should: {meta.description.strip()}" if meta.description.strip() else ""


def _completion_prompt(task: CompletionTask) -> str:
    meta = task.meta
    if task.whole_program:
        return GENERATION.format(
            requirement=meta.requirement,
            python=_python(meta),
            description=_description(meta),
        )
    return COMPLETION.format(
        requirement=meta.requirement,
        python=_python(meta),
        description=_description(meta),
        mask=task.mask,
        what=_WHAT[task.granularity.value],
        code=task.masked_code.rstrip(),
    )


def _edit_prompt(task: EditTask) -> str:
    start, end = task.from_meta, task.to_meta
    return EDITING.format(
        source=f"{start.requirement}{_python(start)}",
        target=f"{end.requirement}{_python(end)}",
        description=_description(start),
        code=start.code.rstrip(),
    )
