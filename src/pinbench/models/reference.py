"""The `reference` model answers every request with the task's reference answer (for
generation, the problem's reference solution): the upper bound of a run, and a check that
prompting, extraction and scoring lose nothing."""

from __future__ import annotations

import hashlib
import json

from pinbench.models.base import Generation, Request


class ReferenceModel:
    def __init__(self, answers: dict[str, str]) -> None:
        self._answers = answers
        # Named after its answers: generations are cached by model name and prompt, and a
        # dataset's references can change while its prompts do not.
        digest = hashlib.sha256(json.dumps(answers, sort_keys=True).encode()).hexdigest()
        self.name = f"reference@{digest[:12]}"

    async def generate(self, request: Request) -> Generation:
        answer = self._answers.get(request.problem_id)
        if answer is None:
            return Generation(error=f"no reference answer for {request.problem_id!r}")
        return Generation(text=answer, finish_reason="stop")

    async def aclose(self) -> None:
        return None
