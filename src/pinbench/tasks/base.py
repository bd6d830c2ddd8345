"""Task kinds: how a problem becomes a request, how an answer becomes a program, and which
string metrics (if any) score the answer beside execution. The runner holds none of this."""

from __future__ import annotations

from typing import Protocol

from pinbench.core.env import EnvSpec
from pinbench.models.base import Request, Sampling
from pinbench.tasks.generation.problem import Problem, env_spec_for
from pinbench.tasks.generation.templates import Feedback

# Joins the answers of a multi-step task (workspace: ranking, then answer) into the one text
# that `program` and `string_scores` read; single-step tasks never see it.
STEP_BREAK = "\n\n<<<pinbench: next step>>>\n\n"


class Scenario(Protocol):
    name: str

    def request(
        self,
        problem: Problem,
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request: ...

    def program(self, problem: Problem, text: str) -> str:
        """The program to execute, from the model's raw answer."""
        ...

    def string_scores(self, problem: Problem, text: str) -> dict[str, float]:
        """String metrics of the answer against the reference ({} when the task has none)."""
        ...

    def reference_answer(self, problem: Problem) -> str:
        """What a perfect model would answer (the `reference` model's reply)."""
        ...

    def executable(self, problem: Problem) -> bool:
        """Whether the problem carries a test to execute the program against."""
        ...

    def env_spec(self, problem: Problem) -> EnvSpec:
        """The environment the problem's program runs in."""
        ...

    def follow_up(self, problem: Problem, request: Request, text: str) -> Request | None:
        """The next step's request of a multi-step task, given this step's answer; None: done."""
        ...

    def verdict(self, problem: Problem, scores: dict[str, float]) -> bool | None:
        """For a problem scored without execution: passed or not from its scores (None: no
        verdict, only the scores)."""
        ...


class BaseScenario:
    """Defaults for single-step scenarios whose problems pin `library==version`."""

    def env_spec(self, problem: Problem) -> EnvSpec:
        return env_spec_for(problem)

    def follow_up(self, problem: Problem, request: Request, text: str) -> Request | None:
        return None

    def verdict(self, problem: Problem, scores: dict[str, float]) -> bool | None:
        return None
