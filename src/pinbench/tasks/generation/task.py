"""Version-conditioned generation (the GitChameleon tasks): complete the starter code for the
pinned version; scored by executing the tests."""

from __future__ import annotations

from dataclasses import dataclass

from pinbench.core.item import Item
from pinbench.core.records import ItemMeta
from pinbench.core.tests import runner_modules
from pinbench.models.base import Request, Sampling
from pinbench.tasks.answers import compiles_as
from pinbench.tasks.base import BaseTask, Feedback
from pinbench.tasks.generation.extract import extract_program
from pinbench.tasks.generation.problem import Problem, env_spec_for
from pinbench.tasks.generation.templates import Style, build_request


def item_of(problem: Problem) -> Item[Problem]:
    """A problem as the run schedules it: its pinned environment, its tests, its reference."""
    tests = (problem.visible_test, problem.hidden_test, *problem.extra_tests.values())
    return Item(
        payload=problem,
        meta=meta_of(problem),
        env=env_spec_for(problem),
        hidden_test=problem.hidden_test,
        visible_test=problem.visible_test,
        reference=problem.solution,
        preload=runner_modules(tests),
    )


def meta_of(problem: Problem) -> ItemMeta:
    return ItemMeta(
        id=problem.id,
        library=problem.library,
        version=problem.version,
        toolchain_version=problem.toolchain_version,
        release_date=problem.release_date,
        change=problem.change.category.value,
        problem=problem.problem,
        visible_test=problem.visible_test.code if problem.visible_test else "",
        hidden_test=problem.hidden_test.code,
        tags=problem.tags,
        breakdowns={"language": problem.language.value},
    )


@dataclass(frozen=True)
class GenerationTask(BaseTask):
    style: Style = Style.INSTRUCT
    docs: bool = False
    cot: bool = False
    name: str = "generation"

    def request(
        self,
        item: Item[Problem],
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request:
        return build_request(
            item.payload,
            style=self.style,
            sampling=sampling,
            sample=sample,
            round=round,
            docs=self.docs,
            cot=self.cot,
            feedback=feedback,
        )

    def program(self, item: Item[Problem], text: str) -> str:
        return extract_program(text, item.payload, self.style)

    def compiles(self, item: Item[Problem], program: str) -> bool:
        """Python: it compiles; JavaScript: Node's parser accepts it (`node --check`, which
        runs nothing); TypeScript: the TypeScript parser accepts it (its types are checked in
        the sandbox). Without a parser here, it does not count as compiling."""
        return compiles_as(program, item.payload.language.value)

    def reference_answer(self, item: Item[Problem]) -> str:
        # Fenced like a model's answer, so the same extraction path is exercised.
        return f"```{item.payload.language.fence}\n{item.payload.solution}\n```"
