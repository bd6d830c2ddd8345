"""Masking with the AST: which use is the API, and the three granularities it is hidden at."""

from __future__ import annotations

import pytest

from pinbench.tasks.versicode.masking import (
    UseKind,
    changed_lines,
    choose_target,
    completion_tasks,
    find_api_uses,
    module_names,
)
from pinbench.tasks.versicode.model import CompletionTask, Granularity, MetaInstance

ALIASES = """\
import numpy as np
from numpy import linalg as la
from numpy.random import default_rng


def spread(x):
    \"\"\"Norm of x and a random draw.\"\"\"
    a = np.linalg.norm(x)
    b = la.norm(x, ord=2)
    return a + b, default_rng(0).integers(3)
"""


def meta(code: str, library: str = "numpy", api: str | None = None) -> MetaInstance:
    return MetaInstance(library=library, version="1.26.4", code=code, api=api)


def tasks(code: str, **kwargs: object) -> dict[Granularity, CompletionTask]:
    library = str(kwargs.pop("library", "numpy"))
    result = completion_tasks(meta(code, library), "t", **kwargs)  # type: ignore[arg-type]
    return {task.granularity: task for task in result.tasks}


def test_aliases_from_imports_and_chains_resolve_to_the_library() -> None:
    uses = [(u.kind, u.qualname) for u in find_api_uses(ALIASES, "numpy")]
    assert uses == [
        (UseKind.IMPORT, "numpy.linalg"),
        (UseKind.IMPORT, "numpy.random.default_rng"),
        (UseKind.CALL, "numpy.linalg.norm"),
        (UseKind.CALL, "numpy.linalg.norm"),
        (UseKind.KEYWORD, "numpy.linalg.norm(ord=)"),
        (UseKind.CALL, "numpy.random.default_rng"),
        (UseKind.CALL, "numpy.random.default_rng().integers"),  # a method of a library call
    ]


def test_from_import_of_a_class_and_its_methods() -> None:
    code = "from pandas import DataFrame\n\nrows = DataFrame({'a': [1]}).to_dict('records')\n"
    assert [u.qualname for u in find_api_uses(code, "pandas")] == [
        "pandas.DataFrame",
        "pandas.DataFrame",
        "pandas.DataFrame().to_dict",
    ]


def test_distribution_names_map_to_import_names() -> None:
    assert module_names("scikit-learn") == {"sklearn"}
    assert module_names("Pillow") == {"PIL"}
    assert module_names("SQLAlchemy") == {"sqlalchemy"}
    code = "from sklearn.preprocessing import OneHotEncoder\nencoder = OneHotEncoder()\n"
    assert tasks(code, library="scikit-learn")[Granularity.TOKEN].answer == "OneHotEncoder"


def test_other_libraries_and_locals_are_not_the_library() -> None:
    code = "import re\nimport numpy as np\n\nnp = np\nre.escape('x')\nlen([1])\n"
    assert find_api_uses(code, "numpy") == []  # `np` alone is the module, not an API
    assert (
        "no call or attribute of numpy"
        in completion_tasks(meta(code), "t").skipped[Granularity.TOKEN]
    )


def test_three_granularities_of_the_default_target() -> None:
    found = tasks(ALIASES)
    token, line, block = found[Granularity.TOKEN], found[Granularity.LINE], found[Granularity.BLOCK]
    # the last library call is the default target
    assert (token.answer, token.api) == ("integers", "integers")
    assert "default_rng(0).<token_mask>(3)" in token.masked_code
    assert line.answer == "return a + b, default_rng(0).integers(3)"
    assert "\n    <line_mask>\n" in line.masked_code
    assert block.answer.startswith("a = np.linalg.norm(x)\n    b = la.norm")
    assert '"""Norm of x and a random draw."""\n    <block_mask>\n' in block.masked_code
    for task in found.values():
        assert task.masked_line == "return a + b, default_rng(0).integers(3)"
        assert task.masked_code.count(task.granularity.mask) == 1


@pytest.mark.parametrize(
    "code",
    [
        ALIASES,
        "import numpy as np\nif True: x = np.zeros(3)  # trailing\n",
        "import numpy as np\r\n\r\ndef f():\r\n    return np.ones(2)   \r\n",
        "import numpy as np\n\ndef f(s='é'):\n    return np.full(2, 'ü').tolist()\n",
        "    @staticmethod\n    def forward(ctx, x):\n        return numpy.add(x, 1)\n",
    ],
)
def test_putting_the_answer_back_restores_the_code(code: str) -> None:
    found = tasks(code)
    assert found
    for task in found.values():
        assert task.restore() == code
        start = task.masked_code.index(task.granularity.mask)
        assert not task.masked_code[start:].startswith(task.answer)


def test_indented_snippets_are_parsed_without_their_margin() -> None:
    # a class-body fragment, and `numpy` used without an import, as documentation snippets do
    code = "    @staticmethod\n    def forward(ctx, x):\n        return numpy.add(x, 1)\n"
    token = tasks(code)[Granularity.TOKEN]
    assert token.masked_code == code.replace("add", "<token_mask>")


def test_unparsable_code_gives_no_task_and_the_reason() -> None:
    result = completion_tasks(meta("def f(:\n    np.zeros(1)\n"), "t")
    assert result.tasks == []
    assert set(result.skipped) == set(Granularity)
    assert result.skipped[Granularity.LINE] == "code does not parse: invalid syntax (line 1)"


def test_code_holding_a_mask_marker_is_not_masked_again() -> None:
    result = completion_tasks(meta("import numpy as np\nnp.<token_mask>(1)\n"), "t")
    assert result.skipped[Granularity.TOKEN] == "code already contains <token_mask>"


def test_multiple_occurrences_mask_the_last_one_only() -> None:
    code = "import numpy as np\na = np.sum([1])\nb = np.sum([2])\n"
    token = tasks(code, api="sum")[Granularity.TOKEN]
    assert token.masked_code == "import numpy as np\na = np.sum([1])\nb = np.<token_mask>([2])\n"


def test_an_explicit_api_wins_and_may_be_unresolved() -> None:
    code = "import numpy as np\n\ndef f(df):\n    return df.applymap(str), np.zeros(1)\n"
    assert tasks(code, api="applymap")[Granularity.TOKEN].answer == "applymap"
    assert tasks(code, api="numpy.zeros")[Granularity.TOKEN].answer == "zeros"
    assert completion_tasks(meta(code), "t", api="nowhere").skipped[Granularity.LINE] == (
        "no use of API 'nowhere'"
    )


def test_meta_api_is_the_default_target() -> None:
    code = "import numpy as np\na = np.ones(1)\nb = np.zeros(1)\n"
    result = completion_tasks(meta(code, api="ones"), "t")
    assert result.tasks[0].answer == "ones"


OLD = "import numpy as np\n\ndef area(y):\n    z = np.asarray(y)\n    return np.trapz(z)\n"
NEW = OLD.replace("trapz", "trapezoid")


def test_with_the_other_version_the_renamed_api_is_masked() -> None:
    assert changed_lines(NEW, OLD) == {5}
    token = tasks(NEW, other=OLD)[Granularity.TOKEN]
    assert token.answer == "trapezoid"


def test_a_renamed_keyword_is_the_token_when_the_call_keeps_its_name() -> None:
    new = "import numpy as np\nr = np.percentile([1.0], 50, method='nearest')\n"
    old = new.replace("method", "interpolation")
    found = tasks(new, other=old)
    assert found[Granularity.TOKEN].answer == "method"
    assert found[Granularity.LINE].answer == "r = np.percentile([1.0], 50, method='nearest')"


def test_a_moved_api_masks_its_line_but_not_its_unchanged_name() -> None:
    new = "def f(x):\n    from numpy.lib.array_utils import normalize_axis_index\n    return 1\n"
    old = new.replace("lib.array_utils", "core.multiarray")
    result = completion_tasks(meta(new), "t", other=old)
    assert [t.granularity for t in result.tasks] == [Granularity.LINE, Granularity.BLOCK]
    assert result.tasks[0].answer == "from numpy.lib.array_utils import normalize_axis_index"
    assert "named the same in both versions" in result.skipped[Granularity.TOKEN]


def test_the_diff_may_point_at_an_attribute_of_an_unresolved_receiver() -> None:
    new = "def squares(df):\n    return df.map(lambda v: v * v)\n"
    old = new.replace("df.map", "df.applymap")
    assert tasks(new, library="pandas", other=old)[Granularity.TOKEN].answer == "map"


def test_identical_versions_give_no_task() -> None:
    assert completion_tasks(meta(OLD), "t", other=OLD).skipped[Granularity.TOKEN] == (
        "the two versions' code is the same"
    )


def test_a_block_that_is_the_masked_line_alone_is_skipped() -> None:
    code = 'import numpy as np\n\ndef f(y):\n    """Doc."""\n    return np.trapz(y)\n'
    result = completion_tasks(meta(code), "t")
    assert result.skipped == {Granularity.BLOCK: "the enclosing block is the masked line alone"}


def test_choose_target_explains_a_missing_use() -> None:
    assert choose_target([], "numpy") == "no call or attribute of numpy found"
