"""GitChameleon 1.0 CSV: each quirk of the real file, on a fixture that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinbench.core.datasets import DatasetError
from pinbench.core.tests import TestKind as Kind
from pinbench.tasks.generation.loaders import gitchameleon1
from pinbench.tasks.generation.problem import ChangeCategory, Problem

CSV = Path(__file__).parent.parent / "fixtures" / "gitchameleon1" / "mini.csv"
HEADER = (
    "library,version,name_of_class_or_func,type_of_change,problem,starting_code,solution,test,"
    "additional_dependencies,release_date"
)


@pytest.fixture(scope="module")
def problems() -> dict[str, Problem]:
    return {problem.id: problem for problem in gitchameleon1.load(CSV).problems}


def test_ids_follow_the_row_index_and_skip_nothing(problems: dict[str, Problem]) -> None:
    # the blank line is not a row; rows 5, 6, 7 and 9 are malformed and keep their numbers
    assert list(problems) == ["gc1-0", "gc1-1", "gc1-2", "gc1-3", "gc1-4", "gc1-8"]


def test_issues_name_the_line_each_record_starts_on() -> None:
    assert [str(issue) for issue in gitchameleon1.load(CSV).issues] == [
        f"{CSV}:21: expected 10 fields, found 9",
        f"{CSV}:24: release_date 'sometime in 2021' is not a recognisable date",
        f"{CSV}:28: malformed CSV record: ',' expected after '\"'",
        f"{CSV}:32: empty required field(s): version",
    ]


def test_origins_are_start_lines_of_multi_line_records(problems: dict[str, Problem]) -> None:
    lines = {pid: int(problem.origin.rsplit(":", 1)[1]) for pid, problem in problems.items()}
    assert lines == {"gc1-0": 2, "gc1-1": 5, "gc1-2": 12, "gc1-3": 16, "gc1-4": 18, "gc1-8": 29}
    assert problems["gc1-0"].origin.startswith(str(CSV))


def test_escaped_newlines_become_lines_but_literal_escapes_stay(
    problems: dict[str, Problem],
) -> None:
    problem = problems["gc1-0"]
    assert problem.starter_code == (
        "import torch\ninput_tensor = torch.linspace(0, 1, steps=3)\n# it's the input\n"
    )
    assert problem.hidden_test.code == (
        "expected = torch.sqrt(input_tensor)\n"
        "print('checked:\\n', expected)\n"
        "assert torch.allclose(output, expected)"
    )


def test_escaped_tab_and_doubled_backslash(problems: dict[str, Problem]) -> None:
    assert problems["gc1-3"].starter_code == "import pandas as pd\ndef first_two(s):\n\treturn "
    assert problems["gc1-4"].starter_code == "n_samples=10\nresult = "


def test_solution_is_the_complete_program(problems: dict[str, Problem]) -> None:
    # starter + solution, the solution completing the starter's last line
    assert problems["gc1-1"].solution == (
        "import geopandas as gpd\n\ndef spatial_join(gdf1, gdf2):\n"
        '    return gpd.sjoin(gdf1, gdf2, predicate="within")'
    )
    assert problems["gc1-8"].solution.endswith("parsed = Tree.fromstring(s)")
    # the starter ends with a whole statement and no newline
    assert (
        problems["gc1-2"].solution == "import numpy as np\narr = np.arange(3)\ntotal = np.sum(arr)"
    )
    # the solution column already holds the whole program
    assert problems["gc1-3"].solution == (
        "import pandas as pd\ndef first_two(s):\n\treturn s.iloc[0:2]"
    )
    for problem in problems.values():
        compile(problem.solution + "\n" + problem.hidden_test.code, problem.id, "exec")


def test_test_is_a_script_appended_to_the_program(problems: dict[str, Problem]) -> None:
    for problem in problems.values():
        assert problem.hidden_test.kind is Kind.SCRIPT
        assert problem.hidden_test.module is None
        assert problem.visible_test is None
    assert problems["gc1-4"].hidden_test.code == "\nassert result == 20"


def test_change_type_normalised_with_raw_text_kept(problems: dict[str, Problem]) -> None:
    changes = {pid: (p.change.category, p.change.raw) for pid, p in problems.items()}
    assert changes == {
        "gc1-0": (ChangeCategory.FEATURE, "\nother library\n"),
        "gc1-1": (ChangeCategory.NAME, "name change"),
        "gc1-2": (ChangeCategory.ARGUMENT, "\nArguement chnage\n\n"),
        "gc1-3": (ChangeCategory.SEMANTICS, "gh\noutput behaviour"),
        "gc1-4": (ChangeCategory.NAME, "\ndeprecation\n"),
        "gc1-8": (
            ChangeCategory.FEATURE,
            "New feature or additional dependency based change",
        ),
    }


def test_release_dates_in_mixed_formats(problems: dict[str, Problem]) -> None:
    dates = {pid: problem.release_date for pid, problem in problems.items()}
    assert dates == {
        "gc1-0": None,
        "gc1-1": "2021-10",
        "gc1-2": "2021-06",
        "gc1-3": "2023-03",
        "gc1-4": "2020-08",
        "gc1-8": "2022-02",
    }


def test_dependencies_space_or_comma_separated_or_none(problems: dict[str, Problem]) -> None:
    pins = {pid: problem.extra_pins for pid, problem in problems.items()}
    assert pins == {
        "gc1-0": ("scipy==1.7.3", "numpy==1.21.6"),
        "gc1-1": ("rtree",),
        "gc1-2": (),
        "gc1-3": ("numpy==1.21.6", "pandas==1.5.0"),
        "gc1-4": (),
        "gc1-8": (),
    }


def test_no_python_version_and_plain_fields(problems: dict[str, Problem]) -> None:
    problem = problems["gc1-0"]
    assert problem.python_version is None
    assert (problem.library, problem.version) == ("torch", "1.9.0")
    assert problem.problem == (
        "Compute the square root of every element, with another library if needed."
    )
    assert problem.tags == ("target:sqrt",)


def test_columns_found_by_name_extra_columns_ignored(tmp_path: Path) -> None:
    # Later copies of the file reorder the columns, add an index column and a filled
    # python_version, and pad header names with spaces.
    path = tmp_path / "reordered.csv"
    path.write_text(
        "Unnamed: 0,test,solution,starting_code,problem,version,library,python_version,count as \n"
        "0,assert y == 2,y = 2,,Set y.,1.0,numpy,3.9,x\n"
        '1,"assert z == 3",z = 3,"import os\n",Set z.,1.0,numpy,,\n',
        encoding="utf-8",
    )
    result = gitchameleon1.load(path)
    assert result.issues == []
    first, second = result.problems
    assert (first.id, first.solution, first.python_version) == ("gc1-0", "y = 2", "3.9")
    assert (second.solution, second.python_version) == ("import os\nz = 3", None)
    assert first.change.category is ChangeCategory.UNKNOWN


def test_windows_line_ends_keep_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "crlf.csv"
    body = (
        f"{HEADER}\r\n"
        'numpy,1.0,f,"\r\nname change\r\n",P.,"x = \r\n",1,assert x == 1,,\r\n'
        "numpy,1.0,f,name change,P.,x = ,1,assert x == 1,,bad date\r\n"
    )
    path.write_bytes(body.encode())
    result = gitchameleon1.load(path)
    assert [str(issue) for issue in result.issues] == [
        f"{path}:6: release_date 'bad date' is not a recognisable date"
    ]
    assert result.problems[0].starter_code == "x = \n"
    assert result.problems[0].change.raw == "\r\nname change\r\n"


def test_missing_required_column_fails_the_file(tmp_path: Path) -> None:
    path = tmp_path / "no_library.csv"
    path.write_text("version,problem,starting_code,solution,test\n1,p,,x = 1,assert x\n")
    with pytest.raises(DatasetError, match=r"missing required column\(s\): library"):
        gitchameleon1.load(path)


def test_empty_file_fails(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(DatasetError, match="no CSV header"):
        gitchameleon1.load(path)


def test_sniff() -> None:
    assert gitchameleon1.sniff(CSV)
    assert not gitchameleon1.sniff(CSV.parent)
    assert not gitchameleon1.sniff(Path(__file__))
