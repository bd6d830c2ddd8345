"""The free-text repairs every loader leans on, checked against the forms seen in real data."""

from __future__ import annotations

import pytest

from pinbench.tasks.generation.normalize import (
    is_blank,
    join_program,
    normalize_change,
    normalize_release_date,
    split_pins,
    unescape_literal_newlines,
)
from pinbench.tasks.generation.problem import ChangeCategory


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        # the common case: every line break escaped
        (r"import torch\nx = torch.ones(1)\n", "import torch\nx = torch.ones(1)\n"),
        # an escape inside a string literal is code, not an export artefact
        (r"print('a\nb')\nx = 1", "print('a\\nb')\nx = 1"),
        (r'msg = "tab\there"\ny = 2', 'msg = "tab\\there"\ny = 2'),
        (r"s = 'it\'s'\nz = 1", "s = 'it\\'s'\nz = 1"),
        # an apostrophe in a comment does not open a literal; the comment ends at the escape
        (r"# it's the input\nx = 'y'", "# it's the input\nx = 'y'"),
        # tabs and quotes escaped outside literals
        (r"if x:\n\ty = 1", "if x:\n\ty = 1"),
        (r"x = \"hi\"\nprint(x)", 'x = "hi"\nprint(x)'),
        # the doubled-backslash typo of the real scikit-learn row
        (r"n_nonzero_coefs=10\\ny, d, c = ", "n_nonzero_coefs=10\ny, d, c = "),
        # a field already in real lines keeps its comments' and literals' backslashes
        ("# split on \\n here\nx = 'a\\nb'", "# split on \\n here\nx = 'a\\nb'"),
        (
            'f = "$x = \\\\frac{-b}{2a}$"\n    return f',
            'f = "$x = \\\\frac{-b}{2a}$"\n    return f',
        ),
        # Windows line ends
        ("x = 1\r\ny = 2", "x = 1\ny = 2"),
        # a real line continuation survives
        ("x = 1 + \\\n    2", "x = 1 + \\\n    2"),
        # triple-quoted docstrings of an escaped field become readable; raw ones stay exact
        (
            r'def f():\n    """Doc.\n    More."""\n    return r"""a\nb"""',
            'def f():\n    """Doc.\n    More."""\n    return r"""a\\nb"""',
        ),
        # a quote that never closes (a fragment) is a stray character, not a literal
        (r"x = 'abc\ny = 1", "x = 'abc\ny = 1"),
    ],
)
def test_unescape_literal_newlines(stored: str, expected: str) -> None:
    assert unescape_literal_newlines(stored) == expected


def test_unescaped_program_compiles() -> None:
    stored = (
        r"import math\ndef f(x):\n    # don't round\n    return math.sqrt(x)\nprint('a\nb', f(4))"
    )
    compile(unescape_literal_newlines(stored), "<test>", "exec")


@pytest.mark.parametrize(
    ("raw", "category"),
    [
        # every label of GitChameleon 1.0 and 2.0, as written there
        ("\nother library\n", ChangeCategory.FEATURE),
        ("\nnew func/method/class\n", ChangeCategory.FEATURE),
        ("\nNo new feature\n", ChangeCategory.FEATURE),
        ("\nnew feature\n", ChangeCategory.FEATURE),
        ("New feature or additional dependency based change", ChangeCategory.FEATURE),
        ("\noutput behaviour\n", ChangeCategory.SEMANTICS),
        ("gh\noutput behaviour\n", ChangeCategory.SEMANTICS),
        ("Semantics or Function Behaviour change", ChangeCategory.SEMANTICS),
        ("\nargument change\n", ChangeCategory.ARGUMENT),
        ("\ninput argument change\n\n", ChangeCategory.ARGUMENT),
        ("\nattribute change\n", ChangeCategory.ARGUMENT),
        ("Argument or Attribute change", ChangeCategory.ARGUMENT),
        ("name change", ChangeCategory.NAME),
        ("\nname change (attribute)\n", ChangeCategory.NAME),
        ("Function Name change", ChangeCategory.NAME),
        ("\ndeprecation\n", ChangeCategory.NAME),
        ("\nbreaking change\n", ChangeCategory.NAME),
        # misspellings
        ("arguement chnage", ChangeCategory.ARGUMENT),
        ("fucntion name change", ChangeCategory.NAME),
        ("behavior change", ChangeCategory.SEMANTICS),
        ("sematic change", ChangeCategory.SEMANTICS),
        ("new dependancy", ChangeCategory.FEATURE),
        # nothing to go on
        ("", ChangeCategory.UNKNOWN),
        ("misc", ChangeCategory.UNKNOWN),
    ],
)
def test_normalize_change(raw: str, category: ChangeCategory) -> None:
    change = normalize_change(raw)
    assert change.category is category
    assert change.raw == raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2020-08", "2020-08"),
        ("22/06/2021", "2021-06"),
        ("17/06/2023", "2023-06"),
        ("03-18-2023", "2023-03"),
        ("2021-06-22", "2021-06"),
        ("June 2021", "2021-06"),
        ("", None),
        ("  ", None),
        ("nan", None),
        ("None", None),
        ("2021", None),
        ("sometime in 2021", None),
        ("2021-13", None),
    ],
)
def test_normalize_release_date(raw: str, expected: str | None) -> None:
    assert normalize_release_date(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("scipy==1.7.3 numpy==1.21.6", ("scipy==1.7.3", "numpy==1.21.6")),
        ("numpy==1.21.6, pandas==1.5.0", ("numpy==1.21.6", "pandas==1.5.0")),
        ("rtree", ("rtree",)),
        ("pandas matplotlib", ("pandas", "matplotlib")),
        ("numpy >= 1.2, <2 scipy", ("numpy>=1.2,<2", "scipy")),
        ("numpy == 1.2", ("numpy==1.2",)),
        ("", ()),
        ("None", ()),
        ("-", ()),
        ("nan", ()),
        (None, ()),
    ],
)
def test_split_pins(raw: str | None, expected: tuple[str, ...]) -> None:
    assert split_pins(raw) == expected


@pytest.mark.parametrize(
    ("starter", "solution", "program"),
    [
        # the solution completes the starter's last line
        ("import torch\noutput = ", "torch.ones(1)", "import torch\noutput = torch.ones(1)"),
        ("def f(x):\n    return ", "x + 1", "def f(x):\n    return x + 1"),
        ("def f(x):\n", "    return x", "def f(x):\n    return x"),
        # the starter ends with a whole line but no newline
        ("import numpy as np", "x = np.ones(1)", "import numpy as np\nx = np.ones(1)"),
        # the solution already is the whole program
        (
            "import pandas as pd\n",
            "import pandas as pd\ns = pd.Series()",
            "import pandas as pd\ns = pd.Series()",
        ),
        # no starter at all
        ("", "x = 1", "x = 1"),
        # broken either way: keep the original harness's plain concatenation
        ("x = (", "1", "x = (1"),
    ],
)
def test_join_program(starter: str, solution: str, program: str) -> None:
    assert join_program(starter, solution) == program


def test_is_blank() -> None:
    assert all(is_blank(text) for text in ("", " ", "nan", "None", "-", "N/A", None))
    assert not any(is_blank(text) for text in ("0", "numpy", "none of them"))


@pytest.mark.parametrize("category", list(ChangeCategory))
def test_category_values_map_to_themselves(category: ChangeCategory) -> None:
    assert normalize_change(category.value).category is category
