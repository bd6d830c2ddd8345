"""The IDE scenarios (the Copilot Evaluation Harness tasks) on repository snapshots, one class
each:

- doc: write a function's docstring; syntax and format correctness, checked statically.
- fix: fix a pylint/pyright diagnostic; syntax, the diagnostic gone, fewer problems in total.
- generate: write a documented function's body; the tests that called it still pass (executed).
- test: write a test for a function, appended to its file; it parses, passes and calls the
  function (executed, with call tracing).
- workspace: rank code snippets for a question (MRR), then answer from the top three
  (keyword detection): two model steps.

`IdeTask` serves a run of any mix of them, handing each item to its scenario's class. Metric
names carry the scenario (`doc.format`), so one run of every scenario reports each."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import pinbench.envs as envs
from pinbench.core import snapshots
from pinbench.core.env import Environment
from pinbench.core.item import Item
from pinbench.core.records import ItemMeta
from pinbench.core.tests import TestKind, TestSpec, runner_modules
from pinbench.models.base import Message, Request, Sampling
from pinbench.tasks.answers import code_answer, compiles
from pinbench.tasks.base import STEP_BREAK, BaseTask, Feedback
from pinbench.tasks.ide import docstrings, lint
from pinbench.tasks.ide.cases import (
    Case,
    DocCase,
    FixCase,
    GenerateCase,
    Kind,
    TestCase,
    WorkspaceCase,
)
from pinbench.tasks.ide.edits import Region, body_region, find, function_body, splice, text_of

SYSTEM = (
    "You are an expert Python developer working as a coding assistant inside an IDE, on the "
    "repository the user has open."
)
_CONTEXT_LINES = 80  # of the file shown around the place a case is about
_TOP_SNIPPETS = 3
_NUMBER = re.compile(r"\d+")

C = TypeVar("C", DocCase, FixCase, GenerateCase, TestCase, WorkspaceCase)


class Scenario(Generic[C]):
    """One IDE scenario: its prompt, the program an answer makes, its scores and verdict."""

    def prompt(self, case: C) -> str:
        raise NotImplementedError

    def program(self, case: C, text: str) -> str:
        raise NotImplementedError

    def score(self, case: C, text: str, env: Environment | None) -> dict[str, float]:
        program = self.program(case, text)
        return {f"{case.scenario.value}.syntax": float(compiles(program))}

    def verdict(self, case: C, scores: dict[str, float]) -> bool | None:
        return None  # executed: the repository's tests decide

    def reference_answer(self, case: C) -> str:
        raise NotImplementedError

    def solution(self, case: C, source: str) -> str:
        """The reference program: the file as a perfect answer leaves it."""
        return source

    def hidden_test(self, case: C) -> TestSpec | None:
        return None  # scored statically

    def follow_up(self, case: C, request: Request, text: str) -> Request | None:
        return None

    def title(self, case: C) -> str:
        qualname = getattr(case, "qualname", "")
        return f"{case.scenario.value} {case.path}::{qualname}"


class DocScenario(Scenario[DocCase]):
    def prompt(self, case: DocCase) -> str:
        stripped = docstrings.strip_docstring(_source(case), case.qualname)
        located = find(stripped, case.qualname)
        line = located.node.lineno if located else 1
        return (
            f"File `{case.path}`:\n\n```python\n{_window(stripped, line, line)}\n```\n\n"
            f"Write the docstring of `{case.qualname}` (line {line}): say what it does, "
            "document every argument, the return value and the exceptions it raises. Answer "
            'with the docstring only, as a """triple-quoted""" string.'
        )

    def program(self, case: DocCase, text: str) -> str:
        doc = docstrings.answer_docstring(text, case.qualname)
        stripped = docstrings.strip_docstring(_source(case), case.qualname)
        return stripped if doc is None else _with_docstring(stripped, case.qualname, doc)

    def score(self, case: DocCase, text: str, env: Environment | None) -> dict[str, float]:
        program = self.program(case, text)
        return {
            "doc.syntax": float(compiles(program)),
            "doc.format": _format_score(case, program, text),
        }

    def verdict(self, case: DocCase, scores: dict[str, float]) -> bool | None:
        return bool(scores["doc.syntax"] and scores["doc.format"])

    def reference_answer(self, case: DocCase) -> str:
        return f'"""{case.reference}"""'

    def solution(self, case: DocCase, source: str) -> str:
        return _with_docstring(source, case.qualname, case.reference)


class FixScenario(Scenario[FixCase]):
    def prompt(self, case: FixCase) -> str:
        source = _source(case)
        region = _fix_region(source, case)
        return (
            f"File `{case.path}`:\n\n```python\n{_window(source, region.start, region.end)}\n"
            f"```\n\n{case.diagnostic.tool} reports: `{case.diagnostic.describe()}`\n\n"
            f"Fix this problem without introducing any other. Rewrite lines {region.start}-"
            f"{region.end}:\n\n```python\n{text_of(source, region)}\n```\n\nAnswer with the "
            "corrected version of exactly those lines in one ```python block (an empty block "
            "deletes them)."
        )

    def program(self, case: FixCase, text: str) -> str:
        source = _source(case)
        return splice(source, _fix_region(source, case), code_answer(text))

    def score(self, case: FixCase, text: str, env: Environment | None) -> dict[str, float]:
        """The diagnostic gone and fewer problems in the file: the linters read the program
        against the repository's environment (the one the executor prepared, when it has it
        here; on a cluster it lives on a node, and is built here once)."""
        program = self.program(case, text)
        if not compiles(program):
            return {"fix.syntax": 0.0, "fix.resolved": 0.0, "fix.fewer": 0.0}
        root = (env or envs.ensure(case.env)).path
        after = lint.diagnose(
            snapshots.load(case.snapshot),
            root,
            [case.path],
            case.python_version,
            replace={case.path: program},
        )
        same = sum(d.signature == case.diagnostic.signature for d in after)
        return {
            "fix.syntax": 1.0,
            "fix.resolved": float(same < case.targeted),
            "fix.fewer": float(len(after) < case.before),
        }

    def verdict(self, case: FixCase, scores: dict[str, float]) -> bool | None:
        return bool(scores["fix.syntax"] and scores["fix.resolved"] and scores["fix.fewer"])

    def reference_answer(self, case: FixCase) -> str:
        source = _source(case)  # no known fix: the unchanged lines (which fail)
        return f"```python\n{text_of(source, _fix_region(source, case))}\n```"

    def title(self, case: FixCase) -> str:
        return f"fix {case.diagnostic.describe()}"


class GenerateScenario(Scenario[GenerateCase]):
    def prompt(self, case: GenerateCase) -> str:
        source = _source(case)
        region = _generate_region(source, case)
        prefix = "\n".join(source.splitlines()[: region.start - 1])
        return (
            f"File `{case.path}`, up to the function you must write:\n\n```python\n{prefix}\n"
            f"{region.indent}# Your code here\n```\n\nWrite the body of `{case.qualname}` as "
            "its signature and docstring describe it. Answer with the complete function in one "
            "```python block."
        )

    def program(self, case: GenerateCase, text: str) -> str:
        source = _source(case)
        name = case.qualname.rsplit(".", 1)[-1]
        code = code_answer(text, name)
        body = function_body(code, name)
        return splice(source, _generate_region(source, case), code if body is None else body)

    def reference_answer(self, case: GenerateCase) -> str:
        source = _source(case)
        located = find(source, case.qualname)
        assert located is not None
        return f"```python\n{ast.get_source_segment(source, located.node)}\n```"

    def hidden_test(self, case: GenerateCase) -> TestSpec | None:
        return TestSpec(
            kind=TestKind.REPO, code="", repo=case.snapshot, path=case.path, select=case.tests
        )


class TestScenario(Scenario[TestCase]):
    __test__ = False  # not a pytest class

    def prompt(self, case: TestCase) -> str:
        source = _source(case)
        located = find(source, case.qualname)
        assert located is not None
        function = ast.get_source_segment(source, located.node) or ""
        return (
            f"This is `{case.qualname}` from `{case.path}`:\n\n```python\n{function}\n```\n\n"
            f"Write a pytest test function (named `test_...`) for `{case.qualname}`. It will be "
            f"appended to the end of `{case.path}`, so everything defined in that file is in "
            "scope without an import. Answer with the test in one ```python block."
        )

    def program(self, case: TestCase, text: str) -> str:
        return _appended(_source(case), code_answer(text))

    def reference_answer(self, case: TestCase) -> str:
        return f"```python\n{case.reference}\n```"

    def solution(self, case: TestCase, source: str) -> str:
        return _appended(source, case.reference)

    def hidden_test(self, case: TestCase) -> TestSpec | None:
        return TestSpec(
            kind=TestKind.REPO,
            code="",
            repo=case.snapshot,
            path=case.path,
            select=(case.path,),
            focal=case.focal,
        )


class WorkspaceScenario(Scenario[WorkspaceCase]):
    def prompt(self, case: WorkspaceCase) -> str:
        shown = "\n\n".join(
            f"[{i + 1}] `{s.path}`\n```python\n{s.text}\n```" for i, s in enumerate(case.candidates)
        )
        return (
            f"Question about the repository: {case.query}\n\nCode snippets from the repository:"
            f"\n\n{shown}\n\nRank the snippets from most to least useful for answering the "
            "question. Answer with the snippet numbers only, most useful first, e.g. `3, 1, 7`."
        )

    def follow_up(self, case: WorkspaceCase, request: Request, text: str) -> Request | None:
        """After the ranking, answer the question from the top snippets."""
        if len(request.messages) > 2:
            return None
        return request.model_copy(
            update={
                "messages": (
                    *request.messages,
                    Message(role="assistant", content=text),
                    Message(role="user", content=_answer_prompt(case, text)),
                )
            }
        )

    def program(self, case: WorkspaceCase, text: str) -> str:
        return text

    def score(self, case: WorkspaceCase, text: str, env: Environment | None) -> dict[str, float]:
        ranking_text, _, answer = text.partition(STEP_BREAK)
        ranking = _ranking(ranking_text, len(case.candidates))
        mrr = 0.0
        for rank, index in enumerate(ranking, start=1):
            if case.candidates[index - 1].id in case.relevant:
                mrr = 1.0 / rank
                break
        found = [k for k in case.keywords if _mentions(answer or ranking_text, k)]
        return {
            "workspace.mrr": mrr,
            "workspace.keywords": len(found) / len(case.keywords) if case.keywords else 0.0,
        }

    def verdict(self, case: WorkspaceCase, scores: dict[str, float]) -> bool | None:
        return scores["workspace.keywords"] == 1.0

    def reference_answer(self, case: WorkspaceCase) -> str:
        ranks = [i + 1 for i, s in enumerate(case.candidates) if s.id in case.relevant]
        return ", ".join(map(str, ranks)) + "\n\n" + ", ".join(case.keywords)

    def solution(self, case: WorkspaceCase, source: str) -> str:
        return source

    def title(self, case: WorkspaceCase) -> str:
        return case.query


SCENARIOS: dict[Kind, Scenario[Any]] = {
    Kind.DOC: DocScenario(),
    Kind.FIX: FixScenario(),
    Kind.GENERATE: GenerateScenario(),
    Kind.TEST: TestScenario(),
    Kind.WORKSPACE: WorkspaceScenario(),
}


def scenario_of(case: Case) -> Scenario[Any]:
    return SCENARIOS[case.scenario]


def item_of(case: Case) -> Item[Case]:
    """The case as an item: its environment is the repository's (built for the executed
    scenarios, and for fix, whose linters read it), its hidden test (generate, test) the
    repository's tests with the program in place."""
    scenario = scenario_of(case)
    hidden = scenario.hidden_test(case)
    source = _source(case)
    meta = ItemMeta(
        id=case.id,
        library=case.repo,
        version=case.snapshot[:12],
        toolchain_version=case.python_version,
        problem=scenario.title(case),
        breakdowns={"scenario": case.scenario.value, "repo": case.repo},
    )
    return Item(
        payload=case,
        meta=meta,
        env=case.env if hidden is not None or isinstance(case, FixCase) else None,
        hidden_test=hidden,
        reference=scenario.solution(case, source),
        preload=runner_modules((hidden,)),
    )


@dataclass(frozen=True)
class IdeTask(BaseTask):
    """Serves IDE items of any scenario, each through its scenario's class."""

    name: str = "ide"
    needs_env_to_score: bool = True  # fix: the linters read the repository's environment

    def request(
        self,
        item: Item[Case],
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request:
        return Request(
            problem_id=item.id,
            sample=sample,
            round=round,
            messages=(
                Message(role="system", content=SYSTEM),
                Message(role="user", content=prompt(item.payload)),
            ),
            sampling=sampling,
        )

    def follow_up(self, item: Item[Case], request: Request, text: str) -> Request | None:
        return scenario_of(item.payload).follow_up(item.payload, request, text)

    def program(self, item: Item[Case], text: str) -> str:
        return scenario_of(item.payload).program(item.payload, text)

    def score(self, item: Item[Case], text: str, env: Environment | None) -> dict[str, float]:
        return scenario_of(item.payload).score(item.payload, text, env)

    def verdict(self, item: Item[Case], scores: dict[str, float]) -> bool | None:
        return scenario_of(item.payload).verdict(item.payload, scores)

    def reference_answer(self, item: Item[Case]) -> str:
        return scenario_of(item.payload).reference_answer(item.payload)


def prompt(case: Case) -> str:
    return scenario_of(case).prompt(case)


def _source(case: Case) -> str:
    return snapshots.load(case.snapshot).read(case.path)


def _appended(source: str, test: str) -> str:
    return source.rstrip("\n") + "\n\n\n" + test.strip("\n") + "\n"


def _with_docstring(source: str, qualname: str, doc: str) -> str:
    try:
        return docstrings.insert_docstring(source, qualname, doc)
    except (KeyError, SyntaxError, ValueError):
        return source


def _answer_prompt(case: WorkspaceCase, ranking: str) -> str:
    top = _ranking(ranking, len(case.candidates))[:_TOP_SNIPPETS] or [1, 2, 3]
    shown = "\n\n".join(
        f"`{case.candidates[i - 1].path}`\n```python\n{case.candidates[i - 1].text}\n```"
        for i in top
        if i <= len(case.candidates)
    )
    return (
        f"Using these snippets:\n\n{shown}\n\nanswer the question: {case.query}\n"
        "Name the functions, classes and terms involved."
    )


def _window(source: str, start: int, end: int) -> str:
    lines = source.splitlines()
    first = max(0, start - 1 - _CONTEXT_LINES)
    last = min(len(lines), end + _CONTEXT_LINES // 2)
    shown = lines[first:last]
    if first:
        shown.insert(0, f"# ... ({first} lines above)")
    if last < len(lines):
        shown.append(f"# ... ({len(lines) - last} lines below)")
    return "\n".join(shown)


def _fix_region(source: str, case: FixCase) -> Region:
    start, end = case.region
    line = source.splitlines()[start - 1]
    return Region(start, end, line[: len(line) - len(line.lstrip())])


def _generate_region(source: str, case: GenerateCase) -> Region:
    located = find(source, case.qualname)
    if located is None:
        raise KeyError(f"{case.path} has no {case.qualname}")
    return body_region(source, located.node)


def _format_score(case: DocCase, program: str, text: str) -> float:
    doc = docstrings.answer_docstring(text, case.qualname)
    if doc is None or not docstrings.syntax_ok(program, case.qualname, doc):
        return 0.0
    located = find(program, case.qualname)
    assert located is not None
    return float(docstrings.check_format(doc, docstrings.facts(located.node)).ok)


def _ranking(text: str, size: int) -> list[int]:
    """Snippet numbers in the order the model gave them (each once, in range)."""
    seen: list[int] = []
    for match in _NUMBER.finditer(text):
        value = int(match.group())
        if 1 <= value <= size and value not in seen:
            seen.append(value)
    return seen


def _mentions(text: str, keyword: str) -> bool:
    pattern = r"(?<![A-Za-z0-9_])" + re.escape(keyword.lower()) + r"(?![A-Za-z0-9_])"
    return re.search(pattern, text.lower()) is not None
