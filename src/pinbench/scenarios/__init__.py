"""Task kinds: how a problem becomes a request, how an answer becomes a program, and which
string metrics (if any) score the answer beside execution. The runner holds none of this."""

from __future__ import annotations

from typing import Protocol

from pinbench.models.base import Request, Sampling
from pinbench.problems.model import Problem
from pinbench.prompts.templates import Feedback


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
