"""Version-conditioned generation (the GitChameleon tasks): complete the starter code for the
pinned version; scored by executing the tests."""

from __future__ import annotations

from dataclasses import dataclass

from pinbench.models.base import Request, Sampling
from pinbench.tasks.base import BaseScenario
from pinbench.tasks.generation.extract import extract_program
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.templates import Feedback, Style, build_request


@dataclass(frozen=True)
class GenerationScenario(BaseScenario):
    style: Style = Style.INSTRUCT
    docs: bool = False
    cot: bool = False
    name: str = "generation"

    def request(
        self,
        problem: Problem,
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request:
        return build_request(
            problem,
            style=self.style,
            sampling=sampling,
            sample=sample,
            round=round,
            docs=self.docs,
            cot=self.cot,
            feedback=feedback,
        )

    def program(self, problem: Problem, text: str) -> str:
        return extract_program(text, problem, self.style)

    def string_scores(self, problem: Problem, text: str) -> dict[str, float]:
        return {}

    def reference_answer(self, problem: Problem) -> str:
        # Fenced like a model's answer, so the same extraction path is exercised.
        return f"```python\n{problem.solution}\n```"

    def executable(self, problem: Problem) -> bool:
        return True
