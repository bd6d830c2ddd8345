"""The IDE scenarios (the Copilot Evaluation Harness tasks) on repository snapshots:

- doc: write a function's docstring; syntax and format correctness, checked statically.
- fix: fix a pylint/pyright diagnostic; syntax, the diagnostic gone, fewer problems in total.
- generate: write a documented function's body; the tests that called it still pass (executed).
- test: write a test for a function, appended to its file; it parses, passes and calls the
  function (executed, with call tracing).
- workspace: rank code snippets for a question (MRR), then answer from the top three
  (keyword detection): two model steps.

Metric names carry the scenario (`doc.format`), so one run of every scenario reports each."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from pinbench.core import snapshots
from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.models.base import Message, Request, Sampling
from pinbench.tasks.base import STEP_BREAK, BaseScenario
from pinbench.tasks.generation.extract import code_answer, compiles
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.templates import Feedback
from pinbench.tasks.ide import docstrings, lint
from pinbench.tasks.ide.cases import Case, DocCase, FixCase, GenerateCase, TestCase, WorkspaceCase
from pinbench.tasks.ide.edits import Region, body_region, find, function_body, splice, text_of

TAG_PREFIX = "ide/"  # report breakdowns read `ide/scenario:VALUE` and `ide/repo:VALUE`
SYSTEM = (
    "You are an expert Python developer working as a coding assistant inside an IDE, on the "
    "repository the user has open."
)
_CONTEXT_LINES = 80  # of the file shown around the place a case is about
_TOP_SNIPPETS = 3
_NUMBER = re.compile(r"\d+")


@dataclass
class IdeScenario(BaseScenario):
    """Serves IDE cases; `problems()` are what the runner schedules."""

    cases: list[Case]
    name: str = "ide"
    _by_id: dict[str, Case] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {case.id: case for case in self.cases}

    def problems(self) -> list[Problem]:
        return [as_problem(case) for case in self.cases]

    def case(self, problem: Problem) -> Case:
        return self._by_id[problem.id]

    # ------------------------------------------------------------------ protocol

    def env_spec(self, problem: Problem) -> EnvSpec:
        return self.case(problem).env

    def executable(self, problem: Problem) -> bool:
        return isinstance(self.case(problem), GenerateCase | TestCase)

    def request(
        self,
        problem: Problem,
        *,
        sampling: Sampling,
        sample: int,
        round: int,
        feedback: Feedback | None,
    ) -> Request:
        return Request(
            problem_id=problem.id,
            sample=sample,
            round=round,
            messages=(
                Message(role="system", content=SYSTEM),
                Message(role="user", content=prompt(self.case(problem))),
            ),
            sampling=sampling,
        )

    def follow_up(self, problem: Problem, request: Request, text: str) -> Request | None:
        """Workspace: after the ranking, answer the question from the top snippets."""
        case = self.case(problem)
        if not isinstance(case, WorkspaceCase) or len(request.messages) > 2:
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

    def program(self, problem: Problem, text: str) -> str:
        case = self.case(problem)
        if isinstance(case, WorkspaceCase):
            return text
        source = snapshots.load(case.snapshot).read(case.path)
        if isinstance(case, DocCase):
            doc = docstrings.answer_docstring(text, case.qualname)
            stripped = docstrings.strip_docstring(source, case.qualname)
            return stripped if doc is None else _with_docstring(stripped, case.qualname, doc)
        if isinstance(case, FixCase):
            region = _fix_region(source, case)
            return splice(source, region, code_answer(text))
        if isinstance(case, GenerateCase):
            name = case.qualname.rsplit(".", 1)[-1]
            code = code_answer(text, name)
            body = function_body(code, name)
            return splice(source, _generate_region(source, case), code if body is None else body)
        return source.rstrip("\n") + "\n\n\n" + code_answer(text).strip("\n") + "\n"

    def string_scores(self, problem: Problem, text: str) -> dict[str, float]:
        case = self.case(problem)
        if isinstance(case, WorkspaceCase):
            return _workspace_scores(case, text)
        program = self.program(problem, text)
        syntax = float(compiles(program))
        if isinstance(case, DocCase):
            return {"doc.syntax": syntax, "doc.format": _format_score(case, program, text)}
        if isinstance(case, FixCase):
            return _fix_scores(case, program, syntax)
        return {f"{case.scenario.value}.syntax": syntax}

    def verdict(self, problem: Problem, scores: dict[str, float]) -> bool | None:
        case = self.case(problem)
        if isinstance(case, DocCase):
            return bool(scores["doc.syntax"] and scores["doc.format"])
        if isinstance(case, FixCase):
            return bool(scores["fix.syntax"] and scores["fix.resolved"] and scores["fix.fewer"])
        if isinstance(case, WorkspaceCase):
            return scores["workspace.keywords"] == 1.0
        return None

    def reference_answer(self, problem: Problem) -> str:
        case = self.case(problem)
        if isinstance(case, WorkspaceCase):
            ranks = [i + 1 for i, s in enumerate(case.candidates) if s.id in case.relevant]
            return ", ".join(map(str, ranks)) + "\n\n" + ", ".join(case.keywords)
        source = snapshots.load(case.snapshot).read(case.path)
        if isinstance(case, DocCase):
            return f'"""{case.reference}"""'
        if isinstance(case, FixCase):  # no known fix: the unchanged lines (which fail)
            return f"```python\n{text_of(source, _fix_region(source, case))}\n```"
        if isinstance(case, GenerateCase):
            located = find(source, case.qualname)
            assert located is not None
            return f"```python\n{ast.get_source_segment(source, located.node)}\n```"
        return f"```python\n{case.reference}\n```"


# ------------------------------------------------------------------ problems


def as_problem(case: Case) -> Problem:
    """The case as a problem the runner can schedule: its environment is the repository's,
    its hidden test (generate, test) the repository's tests with the program in place."""
    source = snapshots.load(case.snapshot).read(case.path)
    hidden = TestSpec(kind=TestKind.SCRIPT, code="")
    solution = source
    if isinstance(case, GenerateCase):
        hidden = TestSpec(
            kind=TestKind.REPO, code="", repo=case.snapshot, path=case.path, select=case.tests
        )
    elif isinstance(case, TestCase):
        hidden = TestSpec(
            kind=TestKind.REPO,
            code="",
            repo=case.snapshot,
            path=case.path,
            select=(case.path,),
            focal=case.focal,
        )
        solution = source.rstrip("\n") + "\n\n\n" + case.reference.strip("\n") + "\n"
    elif isinstance(case, DocCase):
        solution = _with_docstring(source, case.qualname, case.reference)
    return Problem(
        id=case.id,
        library=case.repo,
        version=case.snapshot[:12],
        python_version=case.python_version,
        problem=_title(case),
        solution=solution,
        hidden_test=hidden,
        tags=(f"{TAG_PREFIX}scenario:{case.scenario.value}", f"{TAG_PREFIX}repo:{case.repo}"),
        origin=case.origin,
    )


def _title(case: Case) -> str:
    if isinstance(case, WorkspaceCase):
        return case.query
    if isinstance(case, FixCase):
        return f"fix {case.diagnostic.describe()}"
    return f"{case.scenario.value} {case.path}::{case.qualname}"


def _with_docstring(source: str, qualname: str, doc: str) -> str:
    try:
        return docstrings.insert_docstring(source, qualname, doc)
    except (KeyError, SyntaxError, ValueError):
        return source


# ------------------------------------------------------------------ prompts


def prompt(case: Case) -> str:
    if isinstance(case, WorkspaceCase):
        return _rank_prompt(case)
    source = snapshots.load(case.snapshot).read(case.path)
    if isinstance(case, DocCase):
        stripped = docstrings.strip_docstring(source, case.qualname)
        located = find(stripped, case.qualname)
        line = located.node.lineno if located else 1
        return (
            f"File `{case.path}`:\n\n```python\n{_window(stripped, line, line)}\n```\n\n"
            f"Write the docstring of `{case.qualname}` (line {line}): say what it does, "
            "document every argument, the return value and the exceptions it raises. Answer "
            'with the docstring only, as a """triple-quoted""" string.'
        )
    if isinstance(case, FixCase):
        region = _fix_region(source, case)
        return (
            f"File `{case.path}`:\n\n```python\n{_window(source, region.start, region.end)}\n"
            f"```\n\n{case.diagnostic.tool} reports: `{case.diagnostic.describe()}`\n\n"
            f"Fix this problem without introducing any other. Rewrite lines {region.start}-"
            f"{region.end}:\n\n```python\n{text_of(source, region)}\n```\n\nAnswer with the "
            "corrected version of exactly those lines in one ```python block (an empty block "
            "deletes them)."
        )
    if isinstance(case, GenerateCase):
        region = _generate_region(source, case)
        prefix = "\n".join(source.splitlines()[: region.start - 1])
        return (
            f"File `{case.path}`, up to the function you must write:\n\n```python\n{prefix}\n"
            f"{region.indent}# Your code here\n```\n\nWrite the body of `{case.qualname}` as "
            "its signature and docstring describe it. Answer with the complete function in one "
            "```python block."
        )
    located = find(source, case.qualname)
    assert located is not None
    function = ast.get_source_segment(source, located.node) or ""
    return (
        f"This is `{case.qualname}` from `{case.path}`:\n\n```python\n{function}\n```\n\n"
        f"Write a pytest test function (named `test_...`) for `{case.qualname}`. It will be "
        f"appended to the end of `{case.path}`, so everything defined in that file is in scope "
        "without an import. Answer with the test in one ```python block."
    )


def _rank_prompt(case: WorkspaceCase) -> str:
    shown = "\n\n".join(
        f"[{i + 1}] `{s.path}`\n```python\n{s.text}\n```" for i, s in enumerate(case.candidates)
    )
    return (
        f"Question about the repository: {case.query}\n\nCode snippets from the repository:\n\n"
        f"{shown}\n\nRank the snippets from most to least useful for answering the question. "
        "Answer with the snippet numbers only, most useful first, e.g. `3, 1, 7`."
    )


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


# ------------------------------------------------------------------ scores


def _format_score(case: DocCase, program: str, text: str) -> float:
    doc = docstrings.answer_docstring(text, case.qualname)
    if doc is None or not docstrings.syntax_ok(program, case.qualname, doc):
        return 0.0
    located = find(program, case.qualname)
    assert located is not None
    return float(docstrings.check_format(doc, docstrings.facts(located.node)).ok)


def _fix_scores(case: FixCase, program: str, syntax: float) -> dict[str, float]:
    if not syntax:
        return {"fix.syntax": 0.0, "fix.resolved": 0.0, "fix.fewer": 0.0}
    env = ensure(case.env)
    after = lint.diagnose(
        snapshots.load(case.snapshot),
        env.path,
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


def _ranking(text: str, size: int) -> list[int]:
    """Snippet numbers in the order the model gave them (each once, in range)."""
    seen: list[int] = []
    for match in _NUMBER.finditer(text):
        value = int(match.group())
        if 1 <= value <= size and value not in seen:
            seen.append(value)
    return seen


def _workspace_scores(case: WorkspaceCase, text: str) -> dict[str, float]:
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


def _mentions(text: str, keyword: str) -> bool:
    pattern = r"(?<![A-Za-z0-9_])" + re.escape(keyword.lower()) + r"(?![A-Za-z0-9_])"
    return re.search(pattern, text.lower()) is not None
