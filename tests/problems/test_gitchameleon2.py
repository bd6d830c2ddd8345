"""GitChameleon 2.0 directory: dataset rows, test files, solutions, and their failure modes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pinbench.core.datasets import DatasetError
from pinbench.core.tests import TestKind as Kind
from pinbench.tasks.generation.loaders import gitchameleon2
from pinbench.tasks.generation.problem import ChangeCategory, Problem, env_spec_for

ROOT = Path(__file__).parent.parent / "fixtures" / "gitchameleon2"
DATASET = ROOT / "dataset.jsonl"
SOLUTIONS = ROOT / "ground_truth_solutions.jsonl"


@pytest.fixture(scope="module")
def problems() -> dict[str, Problem]:
    return {problem.id: problem for problem in gitchameleon2.load(ROOT).problems[:2]}


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture directory."""
    return Path(shutil.copytree(ROOT, tmp_path / "gc2"))


def test_rows_and_issues() -> None:
    result = gitchameleon2.load(ROOT)
    # the repeated example 0 (line 7) is left for load_dataset to drop
    assert [p.id for p in result.problems] == ["gc2-0", "gc2-1", "gc2-0"]
    assert [str(issue) for issue in result.issues] == [
        f"{SOLUTIONS}:2: not an {{example_id, answer}} row",
        f"{SOLUTIONS}:3: duplicate answer for example_id '0'; the first is kept",
        f"{DATASET}:4: invalid JSON: Expecting value",
        f"{DATASET}:5: hidden test hidden_tests/test_sample_3.py missing",
        f"{DATASET}:6: missing field(s): library",
    ]


def test_pointing_at_the_jsonl_file_is_the_same() -> None:
    assert gitchameleon2.load(DATASET).problems == gitchameleon2.load(ROOT).problems


def test_hidden_test_is_the_pytest_file(problems: dict[str, Problem]) -> None:
    for example in ("0", "1"):
        hidden = problems[f"gc2-{example}"].hidden_test
        assert hidden.kind is Kind.PYTEST
        assert hidden.module == f"sample_{example}"
        path = ROOT / "hidden_tests" / f"test_sample_{example}.py"
        assert hidden.code == path.read_text(encoding="utf-8")


def test_visible_test_is_the_row_script_appended_as_the_authors_run_it(
    problems: dict[str, Problem],
) -> None:
    # GitChameleon's harness runs `solution + "\n" + test` as one script; the row scripts use
    # names only the program imports (here `torch`), so they cannot run on their own.
    visible = problems["gc2-0"].visible_test
    assert visible is not None
    assert (visible.kind, visible.module) == (Kind.SCRIPT, None)
    assert visible.code == "assert log_ndtr(torch.zeros(1)).shape == (1,)"
    assert problems["gc2-0"].extra_tests == {}


def test_without_a_row_script_the_visible_file_runs_as_a_module_level_script(
    copy: Path,
) -> None:
    # visible_tests/ files are assertion scripts with no test functions: pytest collects none
    lines = (copy / "dataset.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["test"] = ""
    (copy / "dataset.jsonl").write_text("".join([json.dumps(first) + "\n", *lines[1:]]))
    problem = gitchameleon2.load(copy).problems[0]
    visible = problem.visible_test
    assert visible is not None
    assert (visible.kind, visible.module) == (Kind.SCRIPT, "sample_0")
    assert visible.code == (ROOT / "visible_tests" / "test_sample_0.py").read_text()
    script = gitchameleon2.load(ROOT).problems[1].visible_test  # a row script, no file
    assert script is not None
    assert (script.kind, script.code, script.module) == (
        Kind.SCRIPT,
        "assert add_one(1) == 2\n",
        None,
    )


def test_solution_prefers_the_answer_then_joins(problems: dict[str, Problem]) -> None:
    assert problems["gc2-0"].solution == (
        "import torch\ndef log_ndtr(t: torch.Tensor) -> torch.Tensor:\n"
        "    return torch.special.log_ndtr(t)\n"
    )
    # no usable answer for example 1: starter (CRLF made LF) + solution
    assert (
        problems["gc2-1"].starter_code
        == "import pandas as pd\n\ndef add_one(x: int) -> int:\n    return "
    )
    assert problems["gc2-1"].solution == (
        "import pandas as pd\n\ndef add_one(x: int) -> int:\n    return x + 1"
    )


def test_without_solutions_file_the_reference_is_starter_plus_solution(copy: Path) -> None:
    (copy / "ground_truth_solutions.jsonl").unlink()
    result = gitchameleon2.load(copy)
    assert result.problems[0].solution == (
        "import torch\ndef log_ndtr(t: torch.Tensor) -> torch.Tensor:\n"
        "    from scipy.stats import norm\n"
        "    return torch.from_numpy(norm.logcdf(t.numpy()))"
    )
    assert not any("ground_truth" in str(issue) for issue in result.issues)


def test_explicit_solutions_file(tmp_path: Path) -> None:
    answers = tmp_path / "mine.jsonl"
    answers.write_text(json.dumps({"example_id": 1, "answer": "def add_one(x):\n    return x + 1"}))
    result = gitchameleon2.load(ROOT, solutions=answers)
    by_id = {p.id: p for p in result.problems}
    assert by_id["gc2-1"].solution == "def add_one(x):\n    return x + 1"
    # the default solutions file is not read when another is named
    assert "torch.special.log_ndtr" not in by_id["gc2-0"].solution
    with pytest.raises(DatasetError, match="no such solutions file"):
        gitchameleon2.load(ROOT, solutions=tmp_path / "absent.jsonl")


def test_metadata(problems: dict[str, Problem]) -> None:
    first, second = problems["gc2-0"], problems["gc2-1"]
    assert (first.library, first.version, first.python_version) == ("torch", "1.9.0", "3.7")
    # a python_version written as the JSON number 3.10 is not read as 3.1
    assert second.python_version == "3.10"
    assert (first.release_date, second.release_date) == ("2021-06", "2023-04")
    assert first.change.category is ChangeCategory.FEATURE
    assert first.change.raw == "other library"
    assert second.change.category is ChangeCategory.NAME
    assert first.docs == (
        "https://docs.scipy.org/doc/scipy-1.8.0/reference/stats.html\n"
        "https://pytorch.org/docs/1.9.0/special.html"
    )
    assert second.docs == "https://pandas.pydata.org/docs/whatsnew/v2.0.0.html"


def test_tags(problems: dict[str, Problem]) -> None:
    assert problems["gc2-0"].tags == (
        "functional",
        "target:log_ndtr",
        "api:torch.from_numpy",
        "api:scipy.stats.norm.logcdf",
    )
    # webdev "1" and functional "0" as strings
    assert problems["gc2-1"].tags == ("webdev", "target:add_one")


def test_pins_merge_additional_and_extra_dependencies(problems: dict[str, Problem]) -> None:
    # numpy is pinned by both fields (kept once); the bare 'ffmpeg' is a system library
    assert problems["gc2-0"].extra_pins == ("scipy==1.7.3", "numpy==1.21.6", "llvmlite==0.30")
    assert problems["gc2-1"].extra_pins == ("numpy==1.26.4",)


def _one_row(copy: Path, **changes: object) -> list[str]:
    row = json.loads(DATASET.read_text().splitlines()[0])
    row.update(changes)
    (copy / "dataset.jsonl").write_text(json.dumps(row) + "\n")
    return [
        issue.reason
        for issue in gitchameleon2.load(copy).issues
        if issue.path.name == "dataset.jsonl"
    ]


def test_bad_fields_are_row_issues(copy: Path) -> None:
    assert _one_row(copy, webdev="maybe") == ["webdev 'maybe' is not a 0/1 flag"]
    assert _one_row(copy, release_date="2021") == ["release_date '2021' is not a recognisable date"]
    assert _one_row(copy, additional_dependencies="numpy=>1") == [
        "additional_dependencies: 'numpy=>1' is not a requirement"
    ]
    assert _one_row(copy, library=["torch"]) == ["library is a list, expected text"]
    assert _one_row(copy, python_version="3") == [
        "python_version: Value error, python_version '3' is not like '3.9'"
    ]


def test_missing_hidden_tests_directory_fails_the_dataset(copy: Path) -> None:
    shutil.rmtree(copy / "hidden_tests")
    with pytest.raises(DatasetError, match="no hidden_tests/ directory"):
        gitchameleon2.load(copy)


def test_sniff(tmp_path: Path) -> None:
    assert gitchameleon2.sniff(ROOT)
    assert gitchameleon2.sniff(DATASET)
    assert not gitchameleon2.sniff(SOLUTIONS)
    assert not gitchameleon2.sniff(tmp_path)


def test_the_authors_per_interpreter_installs_come_with_each_problem(
    problems: dict[str, Problem],
) -> None:
    # GitChameleon's create_venvs.py installs pytest, numpy and scipy per Python version unless
    # the library is that package or a dependency entry names it; hidden tests import numpy
    # without pinning it (torch 1.10's tests fail with ModuleNotFoundError otherwise).
    assert problems["gc2-0"].harness_pins == ("pytest==6.2.5",)  # its deps pin scipy and numpy
    assert problems["gc2-1"].harness_pins == ("pytest==7.2.0", "scipy==1.10.1")
    spec = env_spec_for(problems["gc2-1"])
    assert spec.harness == ("pytest==7.2.0", "scipy==1.10.1")  # the harness's, after the pins
    assert "scipy==1.10.1" not in spec.pins


def test_a_builtin_the_starter_redefines_is_the_programs_for_an_appended_test(
    copy: Path,
) -> None:
    # gc2-143's starter defines `def eval(app, data_fn, num_set)` and stops mid-function; its
    # row script, appended to the program, calls that `eval`
    lines = (copy / "dataset.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["starting_code"] = (
        "import flask\n\napp = flask.Flask('test')\n@app.route('/data')\n"
        "def data(num_set):\n    return flask.jsonify({'numbers': num_set})\n\n"
        "def eval(app, data_fn, num_set):\n    with app.test_request_context():\n"
        "        return data_fn(num_set)\n\nclass list(object):\n    pass\n\n"
        "def app_set_up(app: flask.Flask) -> None: \n    \n"
    )
    (copy / "dataset.jsonl").write_text("".join([json.dumps(first) + "\n", *lines[1:]]))
    problem = gitchameleon2.load(copy).problems[0]
    assert problem.visible_test is not None
    assert problem.visible_test.program_builtins == ("eval", "list")
    assert problem.hidden_test.program_builtins == ()  # a pytest module imports the program
    # only such problems carry it: the others' tests (and digests) are as before
    other = gitchameleon2.load(ROOT).problems[1].model_dump()["visible_test"]
    assert "program_builtins" not in other


@pytest.mark.parametrize(
    ("starter", "names"),
    [
        ("def eval(x):\n    return x\n", ("eval",)),
        ("import json as input, os\nfrom m import open\n", ("input", "open")),
        ("max, y = 1, 2\nz: int = 3\n@dec\ndef sum(\n", ("max",)),
        ("def f(:\n", ()),
        ("print 'python 2'\ndef len(x):\n    pass\n", ()),
        ("", ()),
    ],
)
def test_starter_builtins(starter: str, names: tuple[str, ...]) -> None:
    from pinbench.tasks.generation.problem import starter_builtins

    assert starter_builtins(starter) == names
