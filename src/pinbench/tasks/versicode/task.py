"""The VersiCode tasks: version-specific code completion (fill `<token_mask>`, `<line_mask>` or
`<block_mask>`) and version-aware code editing (rewrite code of one version for another).

Answers are read between `<start>` and `<end>` as VersiCode's scripts read them and scored by
its string metrics; when the target meta-instance carries a test (all of pinbench's own do),
the completed or edited program also runs in the target version's environment, so the report
can show how often string metrics and execution disagree.

A target given by a constraint rather than a pin ('<0.25', '==1.*') is prompted as published
(`numpy<0.25`). When its program must run, the newest release inside the constraint on the
package index is chosen for the environment, and the item says so: its version is that
release and its text names it (or, when the index cannot tell, the reason; the environment
then pins the specifier itself and uv resolves it). String metrics never need the index."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pinbench.core.env import Environment, EnvSpec
from pinbench.core.item import Item
from pinbench.core.records import ItemMeta
from pinbench.core.tests import runner_modules
from pinbench.envs.python.spec import pinned_spec, requirement_pins
from pinbench.models.base import Message, Request, Sampling
from pinbench.tasks.answers import compiles_as
from pinbench.tasks.base import BaseTask, Feedback
from pinbench.tasks.generation.problem import NODE_LIBRARY, Language, node_env_spec
from pinbench.tasks.versicode import metrics, versions
from pinbench.tasks.versicode.model import (
    CompletionTask,
    EditTask,
    Granularity,
    MetaInstance,
    Source,
)

Task = CompletionTask | EditTask

SYSTEM = (
    "You are an expert {language} programmer who knows exactly which APIs exist in each version "
    "of a library. Put your answer between <start> and <end>, with nothing else between them."
)
COMPLETION = (
    "This code is written for {requirement}{python}.{description}\n"
    "The part marked {mask} is hidden. Write the {what} that replaces {mask}, as it must be for "
    "{requirement}.\n\n```{fence}\n{code}\n```\n\nAnswer: <start>the {what}<end>"
)
GENERATION = (  # VersiCode's block level: description and requirement, no code
    "Write {language} code for {requirement}{python}.{description}\n"
    "Use the API as it is in {requirement}.\n\n"
    "Answer with the complete code: <start>code<end>"
)
EDITING = (
    "This code works with {source}.{description}\n"
    "Rewrite it so that it works with {target}, keeping what it does.\n\n"
    "```{fence}\n{code}\n```\n\nAnswer with the complete new code: <start>code<end>"
)
_WHAT = {"token": "identifier", "line": "line of code", "block": "block of code"}


def items_of(
    tasks: list[Task], choose_release: Callable[[str, str], str] = versions.newest_release
) -> list[Item[Any]]:
    """The tasks as items of their target version. A target given by a constraint runs on a
    release chosen inside it (asked once per library and constraint)."""
    chosen: dict[tuple[str, str], str | LookupError] = {}

    def choice(task: Task) -> str | LookupError | None:
        meta = target(task)
        if meta.constraint is None or meta.version is not None or meta.test is None:
            return None
        key = (meta.library, meta.constraint)
        if key not in chosen:
            try:
                chosen[key] = choose_release(*key)
            except LookupError as exc:
                chosen[key] = exc
        return chosen[key]

    return [item_of(task, choice(task)) for task in tasks]


def item_of(task: Task, chosen: str | LookupError | None = None) -> Item[Any]:
    """The task as an item of the target version: its code is the reference program, its test
    (when it has one) the hidden test; its breakdowns VersiCode's.

    A target given by a constraint runs on `chosen` (a release inside it); the item's version is
    that release, or the constraint itself while none is chosen, and its text says which."""
    meta = target(task)
    breakdowns = {"source": meta.source.value, "lifespan": meta.lifespan.value}
    if isinstance(task, CompletionTask):
        breakdowns["granularity"] = task.granularity.value
    else:
        breakdowns |= {"transition": task.transition.value, "direction": task.direction.value}
    version = meta.version
    note = ""
    if meta.constraint is not None:
        if version is None and isinstance(chosen, str):
            version = chosen
        if version is not None and meta.version is None:
            note = f" (runs on {meta.library}=={version}: newest release {meta.constraint})"
        elif isinstance(chosen, LookupError):
            note = f" (no release chosen {meta.constraint}: {chosen})"
    shown = version or str(meta.constraint)
    info = ItemMeta(
        id=task.id,
        library=meta.library,
        version=shown,
        toolchain_version=_toolchain_version(meta),
        release_date=meta.release_date,
        problem=(meta.description or meta.requirement) + note,
        hidden_test=meta.test.code if meta.test else "",
        breakdowns=breakdowns,
    )
    if meta.test is None:
        return Item(payload=task, meta=info, reference=meta.code)
    if meta.language != "python":
        return Item(
            payload=task,
            meta=info,
            env=_node_spec(meta, shown),
            hidden_test=meta.test,
            reference=meta.code,
        )
    pins = requirement_pins(meta.library, shown, meta.extra_pins)
    if version is None:  # no release chosen: the environment pins the specifier, uv resolves it
        pins = (meta.requirement, *pins[1:])
    env = pinned_spec(pins, meta.python_version, (meta.test,))
    return Item(
        payload=task,
        meta=info,
        env=env,
        hidden_test=meta.test,
        reference=meta.code,
        preload=runner_modules((meta.test,)),
    )


@dataclass(frozen=True)
class VersiCodeTask(BaseTask):
    """Completion or editing items, scored by VersiCode's string metrics (and by execution
    where the target carries a test)."""

    variant: metrics.Variant = metrics.Variant.VERSICODE
    name: str = "versicode"

    def request(
        self,
        item: Item[Task],
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request:
        task = item.payload
        text = _completion_prompt(task) if isinstance(task, CompletionTask) else _edit_prompt(task)
        system = SYSTEM.format(language=Language(target(task).language).display_name)
        return Request(
            problem_id=item.id,
            sample=sample,
            round=round,
            messages=(Message(role="system", content=system), Message(role="user", content=text)),
            sampling=sampling,
        )

    def program(self, item: Item[Task], text: str) -> str:
        task = item.payload
        answer = metrics.extract_answer(text, self.variant)
        return task.program(answer) if isinstance(task, CompletionTask) else answer

    def score(self, item: Item[Task], text: str, env: Environment | None) -> dict[str, float]:
        task = item.payload
        answer = metrics.extract_answer(text, self.variant)
        # As VersiCode's scripts gate them: ISM/PM need the core API name in the answer, and a
        # block or an edit must compile. Its other-language script (JavaScript and others) has
        # the name gate only; there, `grammar` is whether the program the answer makes parses
        # in its language.
        core: str | None
        if isinstance(task, CompletionTask):
            reference, core = task.reference, task.api
            compile_gate = task.granularity is Granularity.BLOCK
        else:
            reference, core, compile_gate = task.to_meta.code, _core_name(task.to_meta), True
        language = target(task).language
        if language != "python":
            compile_gate = False
        scores = metrics.score_answer(
            answer, reference, self.variant, core_token=core, verify_grammar=compile_gate
        )
        grammar = scores.grammar
        if language != "python":
            grammar = self.compiles(item, self.program(item, text))
        return {"em": scores.em, "ism": scores.ism, "pm": scores.pm, "grammar": grammar}

    def compiles(self, item: Item[Task], program: str) -> bool:
        return compiles_as(program, target(item.payload).language)

    def reference_answer(self, item: Item[Task]) -> str:
        task = item.payload
        answer = task.reference if isinstance(task, CompletionTask) else task.to_meta.code
        return f"<start>{answer}<end>"


def target(task: Task) -> MetaInstance:
    """The meta-instance whose version the answer must work with."""
    return task.meta if isinstance(task, CompletionTask) else task.to_meta


def _core_name(meta: MetaInstance) -> str | None:
    """VersiCode's `answer` for an edit: the core API's name as the target code writes it.
    VersiCode's own items keep theirs as published (its script's gate is `answer in code`). A
    label of pinbench's own problems that the code does not hold verbatim, dotted or in prose
    ('sklearn.metrics.root_mean_squared_error', 'dayjs#toArray'), names its last identifier; a
    name the code lacks gates nothing."""
    if meta.api is None or meta.source is not Source.BUILTIN or meta.api in meta.code:
        return meta.api
    names = re.findall(r"[A-Za-z_$][\w$]*", meta.api)
    if not names or not re.search(rf"(?<![\w$]){re.escape(names[-1])}(?![\w$])", meta.code):
        return None
    return str(names[-1])


def _python(meta: MetaInstance) -> str:
    """The interpreter part of a requirement: ' and Python 3.9', ' on Node 18.20.4'."""
    if meta.language != "python":
        node = meta.node_version if meta.library != NODE_LIBRARY else None
        return f" on Node {node}" if node else ""
    return f" and Python {meta.python_version}" if meta.python_version else ""


def _toolchain_version(meta: MetaInstance) -> str | None:
    if meta.language == "python":
        return meta.python_version
    return meta.version if meta.library == NODE_LIBRARY else meta.node_version


def _node_spec(meta: MetaInstance, version: str) -> EnvSpec:
    packages = meta.extra_pins
    if meta.library != NODE_LIBRARY:
        packages = (f"{meta.library}@{version}", *packages)
    return node_env_spec(packages, _toolchain_version(meta), Language(meta.language))


def _fence(meta: MetaInstance) -> str:
    return Language(meta.language).fence


def _description(meta: MetaInstance) -> str:
    return f" It should: {meta.description.strip()}" if meta.description.strip() else ""


def _completion_prompt(task: CompletionTask) -> str:
    meta = task.meta
    if task.whole_program:
        return GENERATION.format(
            language=Language(meta.language).display_name,
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
        fence=_fence(meta),
    )


def _edit_prompt(task: EditTask) -> str:
    start, end = task.from_meta, task.to_meta
    return EDITING.format(
        source=f"{start.requirement}{_python(start)}",
        target=f"{end.requirement}{_python(end)}",
        description=_description(start),
        code=start.code.rstrip(),
        fence=_fence(start),
    )
