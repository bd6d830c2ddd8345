"""The `reference` model answers every request with the task's reference answer (for
generation, the problem's reference solution): the upper bound of a run, and a check that
prompting, extraction and scoring lose nothing."""

from __future__ import annotations

from pinbench.models.base import Generation, Request


class ReferenceModel:
    name = "reference"

    def __init__(self, answers: dict[str, str]) -> None:
        self._answers = answers

    async def generate(self, request: Request) -> Generation:
        answer = self._answers.get(request.problem_id)
        if answer is None:
            return Generation(error=f"no reference answer for {request.problem_id!r}")
        return Generation(text=answer, finish_reason="stop")

    async def aclose(self) -> None:
        return None
