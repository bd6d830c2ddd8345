"""The IDE scenarios (the Copilot Evaluation Harness tasks) on repository snapshots, one class
each:

- doc: write a function's docstring (JSDoc); syntax and format correctness, checked statically.
- fix: fix a pylint/pyright (ESLint/tsc) diagnostic; syntax, the diagnostic gone, fewer
  problems in total.
- generate: write a documented function's body; the tests that called it still pass (executed).
- test: write a test for a function (appended to its file; a test file of the suite for
  JavaScript/TypeScript); it parses, passes and calls the function (executed, traced).
- workspace: rank code snippets for a question (MRR), then answer from the top three
  (keyword detection): two model steps.

Each scenario is written once; what differs by language is the case's `Editor`.
`IdeTask` serves a run of any mix of them, handing each item to its scenario's class. Metric
names carry the scenario (`doc.format`), so one run of every scenario reports each."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import pinbench.envs as envs
from pinbench.core import snapshots
from pinbench.core.env import Environment
from pinbench.core.item import Item
from pinbench.core.records import ItemMeta
from pinbench.core.tests import TestSpec, runner_modules
from pinbench.models.base import Message, Request, Sampling
from pinbench.tasks.base import STEP_BREAK, BaseTask, Feedback
from pinbench.tasks.ide.cases import (
    Case,
    DocCase,
    FixCase,
    GenerateCase,
    Kind,
    Language,
    TestCase,
    WorkspaceCase,
)
from pinbench.tasks.ide.cpp.editor import CppEditor
from pinbench.tasks.ide.csharp.editor import CsharpEditor
from pinbench.tasks.ide.editor import Editor, PythonEditor
from pinbench.tasks.ide.edits import Region, splice, text_of
from pinbench.tasks.ide.java.editor import JavaEditor
from pinbench.tasks.ide.node.editor import NodeEditor
from pinbench.tasks.ide.repo import SUITE_LIMIT_SECONDS

SYSTEM = (
    "You are an expert {language} developer working as a coding assistant inside an IDE, on "
    "the repository the user has open."
)
_LANGUAGE_NAMES = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "java": "Java",
    "cpp": "C/C++",
    "csharp": "C#",
}
_CONTEXT_LINES = 80  # of the file shown around the place a case is about
_TOP_SNIPPETS = 3
_NUMBER = re.compile(r"\d+")
# comments and annotations that make a linter, compiler or type checker look away: a fix that
# adds one hides its problem (ESLint's inline directives are not read at all)
_SUPPRESSION = re.compile(
    r"pylint:\s*(disable|skip-file)|type:\s*ignore|pyright:|@ts-(ignore|expect-error|nocheck)|"
    r"@SuppressWarnings|@java\.lang\.SuppressWarnings|NOLINT|#\s*pragma\s+(warning|clang|GCC)",
    re.I,
)
_PYTHON = PythonEditor()
_EDITORS: dict[Language, Editor] = {
    Language.PYTHON: _PYTHON,
    Language.JAVASCRIPT: NodeEditor(Language.JAVASCRIPT),
    Language.TYPESCRIPT: NodeEditor(Language.TYPESCRIPT),
    Language.JAVA: JavaEditor(),
    Language.CPP: CppEditor(),
    Language.CSHARP: CsharpEditor(),
}

C = TypeVar("C", DocCase, FixCase, GenerateCase, TestCase, WorkspaceCase)


def editor_of(case: Case) -> Editor:
    return _EDITORS[case.language]


class Scenario(Generic[C]):
    """One IDE scenario: its prompt, the program an answer makes, its scores and verdict."""

    def prompt(self, case: C) -> str:
        raise NotImplementedError

    def program(self, case: C, text: str) -> str:
        raise NotImplementedError

    def score(self, case: C, text: str, env: Environment | None) -> dict[str, float]:
        program = self.program(case, text)
        if isinstance(case, TestCase) and case.test_path:  # a file of its own
            return {"test.syntax": float(editor_of(case).parses(case.test_path, program))}
        syntax = editor_of(case).parses(case.path, program, _source(case))
        return {f"{case.scenario.value}.syntax": float(syntax)}

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
        ed = editor_of(case)
        stripped = ed.strip_doc(case.path, _source(case), case.qualname)
        line = ed.line_of(case.path, stripped, case.qualname)
        return (
            f"File `{case.path}`:\n\n```{ed.fence}\n{_window(case, stripped, line, line)}\n```\n\n"
            f"Write the {ed.doc_name} of `{case.qualname}` (line {line}): say what it does, "
            "document every argument, the return value and the exceptions it raises. "
            + ed.doc_request()
        )

    def program(self, case: DocCase, text: str) -> str:
        ed = editor_of(case)
        doc = ed.doc_in_answer(text, case.qualname)
        stripped = ed.strip_doc(case.path, _source(case), case.qualname)
        return stripped if doc is None else ed.with_doc(case.path, stripped, case.qualname, doc)

    def score(self, case: DocCase, text: str, env: Environment | None) -> dict[str, float]:
        ed = editor_of(case)
        program = self.program(case, text)
        syntax = ed.parses(case.path, program, _source(case))
        doc = ed.doc_in_answer(text, case.qualname)
        ok = syntax and doc is not None and ed.doc_ok(case.path, program, case.qualname, doc)
        return {"doc.syntax": float(syntax), "doc.format": float(ok)}

    def verdict(self, case: DocCase, scores: dict[str, float]) -> bool | None:
        return bool(scores["doc.syntax"] and scores["doc.format"])

    def reference_answer(self, case: DocCase) -> str:
        return editor_of(case).doc_answer(case.reference)

    def solution(self, case: DocCase, source: str) -> str:
        return editor_of(case).with_doc(case.path, source, case.qualname, case.reference)


class FixScenario(Scenario[FixCase]):
    def prompt(self, case: FixCase) -> str:
        ed = editor_of(case)
        source = _source(case)
        region = _fix_region(source, case)
        shown = _window(case, source, region.start, region.end)
        return (
            f"File `{case.path}`:\n\n```{ed.fence}\n{shown}\n```\n\n"
            f"{case.diagnostic.tool} reports: `{case.diagnostic.describe()}`\n\n"
            f"Fix this problem without introducing any other. Rewrite lines {region.start}-"
            f"{region.end}:\n\n```{ed.fence}\n{text_of(source, region)}\n```\n\nAnswer with the "
            f"corrected version of exactly those lines in one ```{ed.fence} block (an empty block "
            "deletes them)."
        )

    def program(self, case: FixCase, text: str) -> str:
        source = _source(case)
        return splice(source, _fix_region(source, case), editor_of(case).code(text))

    def score(self, case: FixCase, text: str, env: Environment | None) -> dict[str, float]:
        """The diagnostic gone and fewer problems in the file: the linters read the program
        against the repository's environment (the one the executor prepared, when it has it
        here; on a cluster it lives on a node, and is built here once). An answer that adds a
        suppression comment (`# type: ignore`, `// @ts-ignore`, ...) fixes nothing."""
        ed = editor_of(case)
        program = self.program(case, text)
        if not ed.parses(case.path, program, _source(case)):
            return {"fix.syntax": 0.0, "fix.resolved": 0.0, "fix.fewer": 0.0}
        if len(_SUPPRESSION.findall(program)) > len(_SUPPRESSION.findall(_source(case))):
            return {"fix.syntax": 1.0, "fix.resolved": 0.0, "fix.fewer": 0.0}
        root = (env or envs.ensure(case.env)).path
        after = ed.diagnose(case, program, root)
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
        fence = editor_of(case).fence
        return f"```{fence}\n{text_of(source, _fix_region(source, case))}\n```"

    def title(self, case: FixCase) -> str:
        return f"fix {case.diagnostic.describe()}"


class GenerateScenario(Scenario[GenerateCase]):
    def prompt(self, case: GenerateCase) -> str:
        ed = editor_of(case)
        source = _source(case)
        region = ed.body_region(case.path, source, case.qualname)
        prefix = "\n".join(source.splitlines()[: region.start - 1])
        return (
            f"File `{case.path}`, up to the function you must write:\n\n```{ed.fence}\n{prefix}\n"
            f"{region.indent}{ed.placeholder}\n```\n\n{ed.declared_elsewhere(case)}"
            f"Write the body of `{case.qualname}` as "
            f"its signature and documentation describe it. Answer with the complete function in "
            f"one ```{ed.fence} block."
        )

    def program(self, case: GenerateCase, text: str) -> str:
        ed = editor_of(case)
        source = _source(case)
        region = ed.body_region(case.path, source, case.qualname)
        return splice(source, region, ed.body_answer(case.path, text, case.qualname))

    def reference_answer(self, case: GenerateCase) -> str:
        ed = editor_of(case)
        function = ed.function_source(case.path, _source(case), case.qualname)
        return f"```{ed.fence}\n{function}\n```"

    def hidden_test(self, case: GenerateCase) -> TestSpec | None:
        return editor_of(case).generate_test(case)


class TestScenario(Scenario[TestCase]):
    __test__ = False  # not a pytest class

    def prompt(self, case: TestCase) -> str:
        ed = editor_of(case)
        function = ed.function_source(case.path, _source(case), case.qualname)
        return (
            f"This is `{case.qualname}` from `{case.path}`:\n\n```{ed.fence}\n{function}\n```\n\n"
            f"{ed.test_request(case)} Answer with the test in one ```{ed.fence} block."
        )

    def program(self, case: TestCase, text: str) -> str:
        ed = editor_of(case)
        return ed.test_program(case, _source(case), ed.code(text))

    def reference_answer(self, case: TestCase) -> str:
        return f"```{editor_of(case).fence}\n{case.reference}\n```"

    def solution(self, case: TestCase, source: str) -> str:
        return editor_of(case).test_program(case, source, case.reference)

    def hidden_test(self, case: TestCase) -> TestSpec | None:
        return editor_of(case).test_spec(case)


class WorkspaceScenario(Scenario[WorkspaceCase]):
    def prompt(self, case: WorkspaceCase) -> str:
        shown = "\n\n".join(
            f"[{i + 1}] `{s.path}`\n```{editor_of(case).fence}\n{s.text}\n```"
            for i, s in enumerate(case.candidates)
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
        toolchain_version=case.toolchain_version,
        problem=scenario.title(case),
        breakdowns={
            "scenario": case.scenario.value,
            "repo": case.repo,
            "language": case.language.value,
        },
    )
    return Item(
        payload=case,
        meta=meta,
        env=case.env if hidden is not None or isinstance(case, FixCase) else None,
        hidden_test=hidden,
        reference=scenario.solution(case, source),
        preload=runner_modules((hidden,)),
        # a repository's suite may take what collection allowed it (a C++ build takes minutes)
        min_cap_seconds=SUITE_LIMIT_SECONDS if hidden is not None else 0.0,
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
                Message(
                    role="system",
                    content=SYSTEM.format(language=_LANGUAGE_NAMES[item.payload.language]),
                ),
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


def _answer_prompt(case: WorkspaceCase, ranking: str) -> str:
    top = _ranking(ranking, len(case.candidates))[:_TOP_SNIPPETS] or [1, 2, 3]
    shown = "\n\n".join(
        f"`{case.candidates[i - 1].path}`\n```{editor_of(case).fence}\n"
        f"{case.candidates[i - 1].text}\n```"
        for i in top
        if i <= len(case.candidates)
    )
    return (
        f"Using these snippets:\n\n{shown}\n\nanswer the question: {case.query}\n"
        "Name the functions, classes and terms involved."
    )


def _window(case: Case, source: str, start: int, end: int) -> str:
    lines = source.splitlines()
    first = max(0, start - 1 - _CONTEXT_LINES)
    last = min(len(lines), end + _CONTEXT_LINES // 2)
    shown = lines[first:last]
    if first:
        shown.insert(0, f"{_comment(case)} ... ({first} lines above)")
    if last < len(lines):
        shown.append(f"{_comment(case)} ... ({len(lines) - last} lines below)")
    return "\n".join(shown)


def _fix_region(source: str, case: FixCase) -> Region:
    start, end = case.region
    line = source.splitlines()[start - 1]
    return Region(start, end, line[: len(line) - len(line.lstrip())])


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


def _comment(case: Case) -> str:
    return "#" if case.language is Language.PYTHON else "//"
