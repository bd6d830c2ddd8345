"""Program extraction: real reference programs dressed as model answers, and hand-written
answers for each slip a model makes."""

from __future__ import annotations

import ast
import random
import textwrap
import warnings
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from pinbench.tasks.answers import compiles
from pinbench.tasks.generation import extract as extract_module
from pinbench.tasks.generation.extract import extract_program
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Language, Problem
from pinbench.tasks.generation.templates import Style

FIXTURES = Path(__file__).parent.parent / "fixtures"
COMPLETION = Style.COMPLETION


@cache
def builtin() -> tuple[Problem, ...]:
    """The builtin Python problems (the JavaScript ones' fences are tested on their own)."""
    problems = load_dataset(Path("builtin")).problems
    return tuple(p for p in problems if p.language is Language.PYTHON)


@cache
def gitchameleon() -> tuple[Problem, ...]:
    gc1 = load_dataset(FIXTURES / "gitchameleon1" / "mini.csv").problems
    gc2 = load_dataset(FIXTURES / "gitchameleon2").problems
    return (*gc1, *gc2)


def problem(problem_id: str) -> Problem:
    return next(p for p in (*builtin(), *gitchameleon()) if p.id == problem_id)


def with_starter(starter: str) -> Problem:
    return problem("numpy-2.0-01").model_copy(update={"starter_code": starter})


def same_code(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


def continuation(p: Problem) -> str:
    """What the reference adds after its starter (the references that extend their starter)."""
    assert p.solution.startswith(p.starter_code)
    return p.solution[len(p.starter_code) :]


def extending() -> list[Problem]:
    return [p for p in builtin() if p.solution.startswith(p.starter_code)]


SJ = "sklearn-0.18-01"  # starter: two imports, then `def mean_sample_jaccard(Y_true, Y_pred):`
SJ_BODY = "    return float(jaccard_similarity_score(Y_true, Y_pred))\n"


# --- invariants on every real reference program ---------------------------------------------


DRESSES: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "fenced": lambda s: f"```python\n{s}\n```",
    "py-prose": lambda s: f"Here is the program:\n\n```py\n{s}\n```\n\nIt uses the 0.18 API.",
    "Python": lambda s: f"```Python\n{s}\n```\n",
    "untagged": lambda s: f"```\n{s}\n```",
    "tilde": lambda s: f"~~~python\n{s}\n~~~",
    "unterminated": lambda s: f"Sure.\n```python\n{s}",  # max_tokens hit before the fence
    "crlf": lambda s: f"```python\n{s}\n```".replace("\n", "\r\n"),
    "list-item": lambda s: f"1. Code:\n   ```python\n{textwrap.indent(s, '   ')}\n   ```",
    "indented-fence": lambda s: f"  ```python\n{s}\n  ```",  # around unindented code
}


@pytest.mark.parametrize("dress", DRESSES.values(), ids=DRESSES.keys())
def test_a_correct_program_comes_back_unchanged(dress: Callable[[str], str]) -> None:
    """Never deletes or reorders lines of a correct program, whatever wraps it."""
    for p in (*builtin(), *gitchameleon()):
        assert extract_program(dress(p.solution), p) == p.solution.rstrip() + "\n", p.id


def test_every_extracted_reference_compiles() -> None:
    for p in builtin():
        assert compiles(extract_program(f"```python\n{p.solution}```", p)), p.id


def test_a_body_only_answer_is_put_back_into_the_starter() -> None:
    for p in extending():
        body = continuation(p)
        assert same_code(extract_program(f"```python\n{body}```", p), p.solution), p.id


def test_an_unindented_body_is_indented_into_the_function() -> None:
    """Models often drop the body's indentation: `return x` at column 0."""
    for p in extending():
        body = "\n".join(line[4:] for line in continuation(p).split("\n"))
        assert same_code(extract_program(f"```python\n{body}```", p), p.solution), p.id


def test_the_reference_continuation_completes_the_starter() -> None:
    for p in extending():
        assert extract_program(continuation(p), p, COMPLETION) == p.solution.rstrip() + "\n", p.id


def test_gitchameleon_continuations_join_as_the_dataset_joins_them() -> None:
    """GitChameleon solutions continue the starter's last line ('output = ' + 'f(x)')."""
    for p in gitchameleon():
        if p.solution.startswith(p.starter_code):
            program = extract_program(continuation(p), p, COMPLETION)
            assert program == p.solution.rstrip() + "\n", p.id


def test_missing_starter_imports_are_added_back() -> None:
    checked = 0
    for p in extending():
        imports = [ln for ln in p.starter_code.split("\n") if ln.startswith(("import ", "from "))]
        if not imports:
            continue
        answer = "\n".join(ln for ln in p.solution.split("\n") if ln not in imports)
        program = extract_program(f"```python\n{answer}\n```", p)
        lines = program.split("\n")
        assert all(imp in lines for imp in imports), p.id
        rest = [ln for ln in lines if ln.strip() and ln not in imports]
        assert rest == [ln for ln in answer.split("\n") if ln.strip()], p.id
        checked += 1
    assert checked >= 100


# --- fences and prose ------------------------------------------------------------------------


def test_the_block_defining_the_function_wins_over_earlier_blocks() -> None:
    p = problem(SJ)
    answer = (
        "Install first:\n```\npip install scikit-learn==0.18.1\n```\n"
        "Usage:\n```python\nprint(mean_sample_jaccard(Y, Y))\n```\n"
        f"Solution:\n```python\n{p.solution}```\n"
        "Output:\n```\n1.0\n```\n"
    )
    assert extract_program(answer, p) == p.solution.rstrip() + "\n"


def test_without_the_function_the_first_block_that_parses_wins() -> None:
    p = with_starter("")
    answer = "```\n$ pip install numpy\n```\nthen\n```\nimport numpy as np\nx = np.zeros(3)\n```"
    assert extract_program(answer, p) == "import numpy as np\nx = np.zeros(3)\n"


def test_blocks_nested_in_a_list_are_judged_dedented() -> None:
    p = with_starter("")
    answer = (
        "1. Install:\n   ```\n   $ pip install numpy\n   ```\n2. Run:\n   ```\n   x = 1\n   ```"
    )
    assert extract_program(answer, p) == "x = 1\n"


def test_non_python_blocks_are_ignored() -> None:
    p = problem(SJ)
    answer = f"```bash\nimport x\n```\n```python\n{p.solution}```"
    assert extract_program(answer, p) == p.solution.rstrip() + "\n"


def test_a_fence_in_an_indented_docstring_does_not_close_the_block() -> None:
    program = 'def f():\n    """Use it so:\n\n    ```\n    f()\n    ```\n    """\n    return 1\n'
    p = with_starter("def f():\n")
    assert extract_program(f"```python\n{program}```\nDone.", p) == program


def test_unfenced_code_between_prose_is_cut_out() -> None:
    p = problem(SJ)
    answer = f"Sure! Here's the code.\n\n{p.solution}\nThis works because the metric exists."
    assert extract_program(answer, p) == p.solution.rstrip() + "\n"


def test_unfenced_code_starts_at_the_starters_first_line() -> None:
    p = with_starter("n_samples = 10\nresult = ")
    assert extract_program("Answer:\nn_samples = 10\nresult = n_samples * 2", p) == (
        "n_samples = 10\nresult = n_samples * 2\n"
    )


def test_a_truncated_block_is_kept_even_though_it_does_not_compile() -> None:
    p = problem(SJ)
    answer = f"```python\n{p.starter_code}    return float(jaccard_similarity_sco"
    program = extract_program(answer, p)
    assert program.endswith("    return float(jaccard_similarity_sco\n")
    assert not compiles(program)


# --- body-only answers ----------------------------------------------------------------------


def test_a_body_replaces_a_stub_placeholder() -> None:
    for placeholder in ("pass", "...", "raise NotImplementedError('todo')"):
        p = with_starter(f"import math\n\n\ndef f(x):\n    '''Doc.'''\n    {placeholder}\n")
        program = extract_program("```python\nreturn math.sqrt(x)\n```", p)
        assert program == "import math\n\n\ndef f(x):\n    '''Doc.'''\n    return math.sqrt(x)\n"


def test_a_body_follows_the_starters_tab_indentation() -> None:
    p = with_starter("def f(x):\n\t'''Doc.'''\n")
    assert extract_program("    y = x + 1\n    return y", p) == (
        "def f(x):\n\t'''Doc.'''\n\ty = x + 1\n\treturn y\n"
    )


def test_an_indented_body_without_return_is_still_a_body() -> None:
    p = with_starter('def style(ax):\n    """Doc."""\n')
    answer = "```python\n    ax.set_xscale('log', base=2)\n    ax.grid(True)\n```"
    assert extract_program(answer, p) == (
        'def style(ax):\n    """Doc."""\n    ax.set_xscale(\'log\', base=2)\n    ax.grid(True)\n'
    )


def test_a_body_goes_into_the_last_function_of_the_starter() -> None:
    """flask-2.1-20's starter has a finished helper, then the function to write."""
    p = problem("flask-2.1-20")
    program = extract_program("```python\n    app = Flask(__name__)\n    return app\n```", p)
    assert program == p.starter_code + "    app = Flask(__name__)\n    return app\n"


def test_an_open_last_line_is_continued() -> None:
    p = problem("gc1-3")  # starter ends with '\treturn '
    assert extract_program("```python\ns.iloc[0:2]\n```", p) == p.solution + "\n"


def test_an_open_last_line_repeated_by_the_answer_is_replaced() -> None:
    p = problem("gc1-3")
    assert extract_program("```python\nreturn s.iloc[0:2]\n```", p) == p.solution + "\n"


def test_an_open_line_not_continued_gives_way_to_the_body() -> None:
    """'return_value = x' starts with 'return' but does not restate '    return '."""
    p = with_starter("def f(x):\n    return ")
    program = extract_program("```python\nreturn_value = x + 1\nreturn return_value\n```", p)
    assert program == "def f(x):\n    return_value = x + 1\n    return return_value\n"


def test_an_open_docstring_line_stays_when_the_body_follows_it() -> None:
    p = with_starter('def f(x):\n    """Doc."""')
    assert extract_program("return x", p) == 'def f(x):\n    """Doc."""\n    return x\n'


def test_a_body_follows_a_multiline_signature_with_a_comment() -> None:
    p = with_starter("def f(\n    a,\n    b,\n):  # the signature\n")
    assert extract_program("```python\nreturn a + b\n```", p) == (
        "def f(\n    a,\n    b,\n):  # the signature\n    return a + b\n"
    )


def test_an_answer_defining_the_function_is_not_given_the_starter_again() -> None:
    p = problem("gc2-1")  # starter ends with '    return '
    answer = "```python\ndef add_one(x: int) -> int:\n    return x + 1\n```"
    assert extract_program(answer, p) == (
        "import pandas as pd\ndef add_one(x: int) -> int:\n    return x + 1\n"
    )


def test_a_renamed_function_is_not_taken_for_a_body() -> None:
    p = problem(SJ)
    answer = "```python\ndef jaccard(a, b):\n    return 1.0\n```"
    program = extract_program(answer, p)
    assert "def mean_sample_jaccard" not in program and program.endswith(answer[10:-3])


# --- imports --------------------------------------------------------------------------------


def test_imports_already_bound_under_the_same_name_are_not_duplicated() -> None:
    p = problem(SJ)
    answer = (
        "import numpy as np\nfrom sklearn.metrics import jaccard_similarity_score, f1_score\n\n"
        f"def mean_sample_jaccard(Y_true, Y_pred):\n{SJ_BODY}"
    )
    assert extract_program(answer, p) == answer


def test_added_imports_go_after_future_imports() -> None:
    p = problem(SJ)
    answer = (
        f"from __future__ import division\n\ndef mean_sample_jaccard(Y_true, Y_pred):\n{SJ_BODY}"
    )
    program = extract_program(answer, p)
    assert program.startswith("from __future__ import division\nimport numpy as np\n")
    assert compiles(program)


def test_imports_from_another_block_are_taken_only_when_used() -> None:
    p = with_starter("def f(x):\n")
    answer = (
        "The old API was:\n```python\nfrom scipy.misc import comb\n```\n"
        "Imports:\n```python\nimport math\n```\n"
        "```python\ndef f(x):\n    return math.factorial(x)\n```"
    )
    assert extract_program(answer, p) == "import math\ndef f(x):\n    return math.factorial(x)\n"


# --- REPL prompts, line endings, nothing at all ----------------------------------------------


def test_repl_prompts_are_stripped_when_every_line_has_one() -> None:
    p = with_starter("def f(x):\n")
    answer = "```pycon\n>>> import math\n>>> def f(x):\n...     return math.sqrt(x)\n...\n```"
    assert extract_program(answer, p) == "import math\ndef f(x):\n    return math.sqrt(x)\n"
    unfenced = ">>> def f(x):\n...     return x\n"
    assert extract_program(unfenced, p) == "def f(x):\n    return x\n"


def test_a_repl_transcript_with_output_is_not_taken_for_code() -> None:
    """Stripping its prompts would run its output lines ('2') as code."""
    p = with_starter("")
    assert extract_program("```pycon\n>>> x = 1 + 1\n>>> x\n2\n```", p) == ""


def test_crlf_and_lone_cr_become_lf() -> None:
    p = problem(SJ)
    program = extract_program(p.solution.replace("\n", "\r"), p)
    assert "\r" not in program and program == p.solution.rstrip() + "\n"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n",
        "Sorry",
        "42",
        "I cannot help with that request.",
        "```python\n```",
        "```\nI am not able to write this.\n```",
        "\x00\x01\x02",
    ],
)
def test_no_code_gives_an_empty_program(text: str) -> None:
    assert extract_program(text, problem(SJ)) == ""


# --- completion style -----------------------------------------------------------------------


def test_completion_cuts_a_fence_and_what_follows() -> None:
    p = problem(SJ)
    program = extract_program(SJ_BODY + "```\n\nThis computes the score.\n", p, COMPLETION)
    assert program == p.starter_code + SJ_BODY


def test_completion_cuts_a_main_guard() -> None:
    p = problem(SJ)
    text = SJ_BODY + '\n\nif __name__ == "__main__":\n    print(mean_sample_jaccard(1, 2))\n'
    assert extract_program(text, p, COMPLETION) == p.starter_code + SJ_BODY


def test_completion_keeps_helpers_and_cuts_prose() -> None:
    p = problem(SJ)
    helper = "\n\ndef _as_array(x):\n    return np.asarray(x)\n\n\nclass Spare:\n    pass\n"
    text = SJ_BODY + helper + "\nThe helper converts inputs to arrays.\n"
    assert extract_program(text, p, COMPLETION) == p.starter_code + SJ_BODY + helper.rstrip() + "\n"


def test_completion_keeps_a_sentence_inside_a_multiline_string() -> None:
    p = problem(SJ)
    text = SJ_BODY + '\n\nNOTE = """\nThis line is part of a string.\n"""\n'
    assert extract_program(text, p, COMPLETION) == p.starter_code + text.rstrip() + "\n"


def test_completion_keeps_a_statement_split_over_lines() -> None:
    p = with_starter("n = 3\n")
    text = "X, y = (\n    n,\n    n * 2,\n)\n"
    assert extract_program(text, p, COMPLETION) == "n = 3\n" + text


def test_completion_with_nothing_gives_an_empty_program() -> None:
    assert extract_program("", problem(SJ), COMPLETION) == ""
    assert extract_program("Sorry, no idea.", with_starter(""), COMPLETION) == ""


# --- compiles -------------------------------------------------------------------------------


def test_compiles() -> None:
    assert compiles("import os\n\ndef f():\n    return os.sep\n")
    assert not compiles("def f(:\n")
    assert not compiles("return 1\n")  # only the compiler sees this one
    assert not compiles("x = 1\x00\n")
    assert not compiles(b"x = 1\n")  # type: ignore[arg-type]


def test_compiles_lets_no_warning_out() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiles('x = "\\d"\ny = 1 is 1\n')


# --- never raises ---------------------------------------------------------------------------


def test_extraction_survives_mangled_answers_without_its_safety_net() -> None:
    """Call the unguarded core: the catch-all in extract_program must not be what keeps a run
    alive."""
    rng = random.Random(1234)
    pieces = [
        "```",
        "```python\n",
        "~~~",
        ">>> ",
        "... ",
        "\r\n",
        "\t",
        "    ",
        "def ",
        "return ",
        "mean_sample_jaccard(",
        "import ",
        '"""',
        "\x00",
        "((((",
        ":\n",
        "if __name__",
    ]
    problems = [problem(SJ), problem("gc1-3"), problem("gc1-4"), with_starter("")]
    for _ in range(1500):
        p = rng.choice(problems)
        source = p.solution
        cut = sorted(rng.randrange(len(source) + 1) for _ in range(2))
        text = source[: cut[0]] + rng.choice(pieces) + source[cut[1] :]
        text = "".join(c if rng.random() > 0.02 else rng.choice(pieces) for c in text)
        for style in Style:
            result = extract_module._extract(text, p, style)
            assert isinstance(result, str)
            assert result == "" or result.endswith("\n")


def test_deep_nesting_does_not_raise() -> None:
    assert extract_program("x = " + "(" * 5000 + ")" * 5000, with_starter("")) == ""
