"""What a task is to the core: how an item becomes a request, how an answer becomes a program,
which string metrics score the answer beside execution, and how a dataset becomes items. The
runner, store and reports hold none of this; each task family is one folder under `tasks/`,
registered by name in `tasks.registry`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pinbench.core.env import Environment
from pinbench.core.item import Item
from pinbench.models.base import Request, Sampling
from pinbench.tasks.answers import compiles

# Joins the answers of a multi-step task (workspace: ranking, then answer) into the one text
# that `program` and `score` read; single-step tasks never see it.
STEP_BREAK = "\n\n<<<pinbench: next step>>>\n\n"


# The longest error output (characters) a repair prompt shows; the tail is kept because a
# Python traceback ends with the exception and the failing line.
ERROR_TAIL_CHARS = 2000
TRIM_MARKER = "[... earlier output trimmed ...]\n"


def trim_error(text: str, limit: int = ERROR_TAIL_CHARS) -> str:
    """The last `limit` characters at most of `text` (marker included), starting on a line.

    The result is never longer than `limit`, so trimming is idempotent: a `Feedback` that is
    dumped and validated again keeps the same text (and the same cache key)."""
    if limit <= len(TRIM_MARKER):
        raise ValueError(f"limit {limit} leaves no room for output after the trim marker")
    text = text.replace("\r\n", "\n")
    if len(text) <= limit:
        return text
    tail = text[len(text) - (limit - len(TRIM_MARKER)) :]
    newline = tail.find("\n")
    if 0 <= newline < len(tail) // 2:  # start on a whole line unless that loses half the tail
        tail = tail[newline + 1 :]
    return TRIM_MARKER + tail


class Feedback(BaseModel):
    """What a repair round shows the model about its previous attempt.

    Contract: `error` is the output of the *visible* test only. The hidden test decides the
    score, so neither its code nor its output may ever reach a prompt; the prompt builders only
    render what this object holds, so the caller that builds it is the one place to keep that
    promise. `error` is trimmed on construction (tail kept, see `trim_error`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    program: str = Field(description="the previous, failed program")
    error: str = Field(description="the visible test's output, trimmed to its tail")
    round: int = Field(ge=0, description="the round whose program failed")

    @field_validator("error")
    @classmethod
    def _trim(cls, value: str) -> str:
        return trim_error(value)


class Task(Protocol):
    """One task of a run. Its methods get the run's items; each reads its own payload."""

    @property
    def name(self) -> str: ...

    @property
    def needs_env_to_score(self) -> bool:
        """Whether its string metrics read the item's built environment (IDE fix: the
        linters do)."""
        ...

    def request(
        self,
        item: Item[Any],
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request: ...

    def program(self, item: Item[Any], text: str) -> str:
        """The program to execute, from the model's raw answer."""
        ...

    def score(self, item: Item[Any], text: str, env: Environment | None) -> dict[str, float]:
        """String metrics of the answer against the reference ({} when the task has none);
        `env` is the item's environment when the task needs it and the executor has it here."""
        ...

    def reference_answer(self, item: Item[Any]) -> str:
        """What a perfect model would answer (the `reference` model's reply)."""
        ...

    def compiles(self, item: Item[Any], program: str) -> bool:
        """Whether the program compiles (the compile rate of reports), never running it."""
        ...

    def follow_up(self, item: Item[Any], request: Request, text: str) -> Request | None:
        """The next step's request of a multi-step task, given this step's answer; None: done."""
        ...

    def verdict(self, item: Item[Any], scores: dict[str, float]) -> bool | None:
        """For an item scored without execution: passed or not from its scores (None: no
        verdict, only the scores)."""
        ...


class BaseTask:
    """Defaults for single-step Python tasks without string metrics."""

    needs_env_to_score = False

    def compiles(self, item: Item[Any], program: str) -> bool:
        return compiles(program)

    def score(self, item: Item[Any], text: str, env: Environment | None) -> dict[str, float]:
        return {}

    def follow_up(self, item: Item[Any], request: Request, text: str) -> Request | None:
        return None

    def verdict(self, item: Item[Any], scores: dict[str, float]) -> bool | None:
        return None


@dataclass(frozen=True)
class Settings:
    """How to read a dataset into a task's items: what `pinbench run` was told. Each family reads
    the fields that concern it."""

    dataset: Path
    format: str | None = None
    split: str = "default"
    language: str | None = None  # generation, completion, editing, ide: one language's items
    jobs: int = 2
    style: str = "instruct"  # generation: instruct (chat) or completion
    docs: bool = False  # generation: doc-prompting
    cot: bool = False  # generation: zero-shot chain of thought
    granularity: tuple[str, ...] = ()  # completion: token, line, block (empty: all)
    metric_variant: str = "versicode"  # completion, editing: the string metrics' definition
    allow_direct_references: bool = False  # pins naming a file, URL or repository


@dataclass
class Loaded:
    """A dataset read for a task: the task, its items, the format read, and one line per row
    that was skipped (the run goes on without them)."""

    task: Task
    items: list[Item[Any]]
    format: str
    skipped: list[str] = field(default_factory=list)


class Family(Protocol):
    """A task family: reads a dataset into a task and its items. Raises DatasetError (one
    clear line) when the dataset cannot be read for this task at all."""

    items: str  # what its items are called: "problems", "IDE cases"

    def load(self, name: str, settings: Settings) -> Loaded: ...

    def claims(self, dataset: Path) -> bool:
        """Whether the dataset can only be this family's (so another task refuses it)."""
        ...
