"""The `reference` model answers every request with the problem's reference solution: the
upper bound of a run, and a check that prompting, extraction and scoring lose nothing."""

from __future__ import annotations

from pinbench.models.base import Generation, Request
from pinbench.problems.model import Problem


class ReferenceModel:
    name = "reference"

    def __init__(self, problems: list[Problem]) -> None:
        self._solutions = {p.id: p.solution for p in problems}

    async def generate(self, request: Request) -> Generation:
        solution = self._solutions.get(request.problem_id)
        if solution is None:
            return Generation(error=f"no reference solution for {request.problem_id!r}")
        # Fenced like a model's answer, so the same extraction path is exercised.
        return Generation(text=f"```python\n{solution}\n```", finish_reason="stop")

    async def aclose(self) -> None:
        return None
