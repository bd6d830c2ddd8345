"""Every IDE scenario on a real built repository: a good answer passes, a plausible wrong one
fails (real linters, real sandboxed pytest runs with call tracing)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind
from pinbench.tasks.base import STEP_BREAK
from pinbench.tasks.ide.cases import DocCase, FixCase, GenerateCase, Kind, TestCase, WorkspaceCase
from pinbench.tasks.ide.task import IdeTask, item_of, prompt
from tests.ide.conftest import Built

pytestmark = pytest.mark.integration


def _execute(built: Built, case: GenerateCase | TestCase, answer: str) -> Execution:
    item = item_of(case)
    program = IdeTask().program(item, answer)
    assert item.hidden_test is not None and item.hidden_test.kind is TestKind.REPO
    assert item.executable and item.preload == ("pytest",)
    return built.service.run(
        built.env, program, item.hidden_test, Limits(wall_seconds=60), item.preload
    )


def _static(case: DocCase | FixCase | WorkspaceCase, answer: str) -> tuple[dict[str, float], bool]:
    task, item = IdeTask(), item_of(case)
    assert not item.executable  # scored statically
    scores = task.score(item, answer, None)
    verdict = task.verdict(item, scores)
    assert verdict is not None
    return scores, verdict


# ------------------------------------------------------------------ collection


def test_baseline_records_outcomes_and_which_functions_each_test_calls(built: Built) -> None:
    base = built.build.baseline
    assert base.passing == [
        "tests/test_shapes.py::test_area",
        "tests/test_shapes.py::test_area_negative",
        "tests/test_shapes.py::test_circle",
        "tests/test_shapes.py::test_perimeter",
    ]
    assert base.covering("pkg/shapes.py", "area", {6}) == [
        "tests/test_shapes.py::test_area",
        "tests/test_shapes.py::test_area_negative",
    ]
    assert base.covering("pkg/shapes.py", "scale", {30}) == []


def test_cases_of_every_scenario_are_collected_where_they_apply(built: Built) -> None:
    doc = {c.qualname for c in built.cases[Kind.DOC] if isinstance(c, DocCase)}
    assert {"area", "perimeter", "scale", "circle_area"} <= doc
    generate = {c.qualname: c for c in built.cases[Kind.GENERATE] if isinstance(c, GenerateCase)}
    assert set(generate) == {"area", "circle_area"}  # documented and called by passing tests
    assert generate["circle_area"].tests == ("tests/test_shapes.py::test_circle",)
    rules = {c.diagnostic.rule for c in built.cases[Kind.FIX] if isinstance(c, FixCase)}
    assert "unused-variable" in rules
    assert not rules & {"import-error", "reportMissingImports"}
    tests = {c.qualname for c in built.cases[Kind.TEST]}
    assert {"area", "perimeter", "scale", "circle_area"} <= tests
    [workspace] = built.cases[Kind.WORKSPACE]
    assert isinstance(workspace, WorkspaceCase)
    assert workspace.relevant == ("pkg/shapes.py::circle_area",)
    assert len(workspace.candidates) >= 4


# ------------------------------------------------------------------ doc


def test_doc_complete_docstring_passes_one_forgetting_an_argument_fails(built: Built) -> None:
    case = built.case(Kind.DOC, qualname="perimeter")
    assert isinstance(case, DocCase)
    assert "perimeter" in prompt(case) and "raise ValueError" in prompt(case)
    good = '''"""Perimeter of a rectangle.

    Args:
        width: the horizontal side.
        height: the vertical side.

    Returns:
        Twice the sum of the sides.

    Raises:
        ValueError: when a side is negative.
    """'''
    scores, passed = _static(case, good)
    assert passed and scores == {"doc.syntax": 1.0, "doc.format": 1.0}
    forgets_height = good.replace("        height: the vertical side.\n", "")
    scores, passed = _static(case, forgets_height)
    assert not passed and scores["doc.format"] == 0.0 and scores["doc.syntax"] == 1.0
    forgets_raise = good.split("    Raises:")[0] + '"""'
    assert not _static(case, forgets_raise)[1]


def test_doc_inserted_docstring_lands_in_the_function_and_the_rest_is_unchanged(
    built: Built,
) -> None:
    case = built.case(Kind.DOC, qualname="scale")
    assert isinstance(case, DocCase)
    program = IdeTask().program(item_of(case), '"""Scale points.\n\nArgs: ..."""')
    original = built.snapshot.read("pkg/shapes.py").splitlines()
    lines = program.splitlines()
    start = lines.index("def scale(points, factor):") + 1
    added = len(lines) - len(original)
    assert lines[:start] + lines[start + added :] == original
    assert lines[start].strip().startswith('"""Scale points.')
    tree = ast.parse(program)
    scale = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "scale")
    assert ast.get_docstring(scale) == "Scale points.\n\nArgs: ..."


# ------------------------------------------------------------------ fix


def test_fix_that_removes_the_problem_passes(built: Built) -> None:
    case = built.case(Kind.FIX, path="pkg/shapes.py")
    fixes = [c for c in built.cases[Kind.FIX] if isinstance(c, FixCase)]
    case = next(c for c in fixes if c.diagnostic.rule == "unused-variable")
    good = """```python
def scale(points, factor):
    result = []
    for x, y in points:
        result.append((x * factor, y * factor))
    return result
```"""
    scores, passed = _static(case, good)
    assert passed, scores


def test_fix_that_silences_one_warning_by_adding_another_fails(built: Built) -> None:
    fixes = [c for c in built.cases[Kind.FIX] if isinstance(c, FixCase)]
    case = next(c for c in fixes if c.diagnostic.rule == "unused-variable")
    swaps = """```python
def scale(points, factor, verbose=[]):
    result = []
    for x, y in points:
        result.append((x * factor, y * factor))
    return result
```"""
    scores, passed = _static(case, swaps)
    assert scores["fix.resolved"] == 1.0 and scores["fix.fewer"] == 0.0
    assert not passed
    broken = "```python\ndef scale(points, factor)\n    return points\n```"
    scores, passed = _static(case, broken)
    assert scores["fix.syntax"] == 0.0 and not passed


def test_fix_that_hides_the_warning_with_a_pragma_fails(built: Built) -> None:
    fixes = [c for c in built.cases[Kind.FIX] if isinstance(c, FixCase)]
    case = next(c for c in fixes if c.diagnostic.rule == "unused-variable")
    for pragma in ("# pylint: disable=unused-variable", "# type: ignore", "# pylint: skip-file"):
        hidden = f"""```python
def scale(points, factor):
    unused = len(points)  {pragma}
    result = []
    for x, y in points:
        result.append((x * factor, y * factor))
    return result
```"""
        scores, passed = _static(case, hidden)
        assert scores["fix.resolved"] == 0.0 and not passed, pragma


# ------------------------------------------------------------------ generate


def test_generate_correct_body_passes_the_covering_tests(built: Built) -> None:
    case = built.case(Kind.GENERATE, qualname="area")
    assert isinstance(case, GenerateCase)
    text = prompt(case)
    assert "# Your code here" in text and "product = width * height" not in text
    answer = """```python
def area(width, height):
    if min(width, height) < 0:
        raise ValueError("negative")
    return width * height
```"""
    result = _execute(built, case, answer)
    assert result.status is Status.PASSED, result.message


def test_generate_plausible_wrong_body_fails(built: Built) -> None:
    case = built.case(Kind.GENERATE, qualname="area")
    assert isinstance(case, GenerateCase)
    forgets_the_check = "```python\nreturn width * height\n```"  # a bare body is accepted too
    result = _execute(built, case, forgets_the_check)
    assert result.status is Status.FAILED
    assert "test_area_negative" in result.message
    broken = "```python\nreturn width *\n```"
    assert _execute(built, case, broken).status is Status.SYNTAX_ERROR


# ------------------------------------------------------------------ test


def test_test_that_calls_the_focal_function_and_passes_passes(built: Built) -> None:
    case = built.case(Kind.TEST, qualname="perimeter")
    assert isinstance(case, TestCase)
    answer = "```python\ndef test_perimeter_square():\n    assert perimeter(1, 1) == 4\n```"
    result = _execute(built, case, answer)
    assert result.status is Status.PASSED, result.message


def test_test_that_never_calls_the_focal_function_fails(built: Built) -> None:
    case = built.case(Kind.TEST, qualname="perimeter")
    assert isinstance(case, TestCase)
    answer = "```python\ndef test_perimeter():\n    assert area(1, 1) == 1\n```"
    result = _execute(built, case, answer)
    assert result.status is Status.FAILED and result.exc_type == "FocalNotCalled"


def test_test_that_fails_or_fakes_its_exit_fails(built: Built) -> None:
    case = built.case(Kind.TEST, qualname="perimeter")
    assert isinstance(case, TestCase)
    wrong = "```python\ndef test_perimeter():\n    assert perimeter(1, 1) == 5\n```"
    assert _execute(built, case, wrong).status is Status.FAILED
    exits = "```python\nimport os\ndef test_p():\n    perimeter(1, 1)\n    os._exit(0)\n```"
    assert _execute(built, case, exits).status is Status.FAILED
    untraced = (
        "```python\nimport sys\ndef test_p():\n    sys.setprofile(None)\n"
        "    assert perimeter(1, 1) == 4\n```"
    )
    assert _execute(built, case, untraced).exc_type == "FocalNotCalled"


# ------------------------------------------------------------------ workspace


def test_workspace_scores_mrr_of_the_ranking_and_keywords_of_the_answer(built: Built) -> None:
    [case] = built.cases[Kind.WORKSPACE]
    assert isinstance(case, WorkspaceCase)
    relevant = 1 + [s.id for s in case.candidates].index("pkg/shapes.py::circle_area")
    other = 1 if relevant != 1 else 2
    good = f"{relevant}, {other}{STEP_BREAK}circle_area multiplies pi by the squared radius."
    scores, passed = _static(case, good)
    assert passed and scores == {"workspace.mrr": 1.0, "workspace.keywords": 1.0}
    second = f"{other}, {relevant}{STEP_BREAK}It uses pi."
    scores, passed = _static(case, second)
    assert scores == {"workspace.mrr": 0.5, "workspace.keywords": 0.5} and not passed


def test_workspace_second_step_shows_the_models_top_snippets(built: Built) -> None:
    [case] = built.cases[Kind.WORKSPACE]
    assert isinstance(case, WorkspaceCase)
    task, item = IdeTask(), item_of(case)
    from pinbench.models.base import Sampling

    first = task.request(item, sampling=Sampling(), sample=0, round=0, feedback=None)
    follow = task.follow_up(item, first, "2, 1")
    assert follow is not None and len(follow.messages) == 4
    assert follow.messages[2].content == "2, 1"
    assert case.candidates[1].text in follow.messages[3].content
    assert task.follow_up(item, follow, "answer") is None


def test_generate_answer_using_a_deprecated_helper_passes_with_its_deprecation(
    tmp_path: Path,
) -> None:
    """A DeprecationWarning raised under the lines the answer wrote is its deprecation signal;
    the module's other code and the tests are not the answer."""
    from pinbench.core import snapshots
    from pinbench.execution.local import ExecutionService
    from pinbench.tasks.ide.build import build_repo
    from pinbench.tasks.ide.collect import collect
    from pinbench.tasks.ide.selection import Context, Quotas
    from tests.ide.conftest import write_repo

    root = write_repo(tmp_path / "shapes")
    (root / "pkg" / "legacy.py").write_text(
        "import warnings\n\n\ndef checked(x):\n"
        "    warnings.warn('checked() is deprecated, use max()', DeprecationWarning, 2)\n"
        "    return x\n"
    )
    with ExecutionService(jobs=2) as service:
        build, env = build_repo(root, service)
        snap = snapshots.load(build.snapshot)
        cases = collect(Context(build, env, snap, service, Quotas()), [Kind.GENERATE]).cases
        built = Built(build, env, snap, service, {Kind.GENERATE: cases})
        case = built.case(Kind.GENERATE, qualname="area")
        assert isinstance(case, GenerateCase)
        body = "    if min(width, height) < 0:\n        raise ValueError('negative')\n"
        clean = _execute(built, case, f"```python\ndef area(width, height):\n{body}"
                         "    return width * height\n```")  # fmt: skip
        assert clean.status is Status.PASSED and clean.deprecations is not None, clean.message
        assert clean.deprecations.found == ()
        used = _execute(built, case, f"```python\ndef area(width, height):\n{body}"
                        "    from pkg.legacy import checked\n"
                        "    return checked(width) * height\n```")  # fmt: skip
        assert used.status is Status.PASSED, used.message
        assert used.deprecations is not None
        (found,) = used.deprecations.found
        assert found.api == "checked()" and found.code == "return checked(width) * height"
