"""Where a fenced block ends: pinbench must run the program GitChameleon 2.0's harness ran
whenever that program compiles (bench/extraction_agreement.py measures it on published answers;
docs/extraction.md lists where pinbench differs on purpose). Each fixture is a small synthetic
answer with one quirk seen in published model answers."""

from __future__ import annotations

import ast
import re

import pytest

from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.answers import code_answer, compiles
from pinbench.tasks.generation.extract import extract_program
from pinbench.tasks.generation.problem import Problem

STARTER = "import math\n\n\ndef area(r: float) -> float:\n"
CODE = "import math\n\n\ndef area(r: float) -> float:\n    return math.pi * r * r\n"
PROBLEM = Problem(
    id="fences-01",
    library="math",
    version="1.0",
    problem="The area of a circle.",
    starter_code=STARTER,
    solution=CODE,
    hidden_test=TestSpec(kind=TestKind.SCRIPT, code="assert area(1) > 3\n"),
)


def gitchameleon(text: str) -> str:
    """GitChameleon 2.0's extraction (gitchameleon/run_eval.py)."""
    match = re.search(r"```python(.*?)```", text, re.DOTALL)
    return match.group(1) if match else text


def same_program(a: str, b: str) -> bool:
    return a.strip() == b.strip() or ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


def indent(code: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in code.splitlines(True))


# Answers whose block ends oddly; GitChameleon's regex gives CODE for each.
CLOSINGS: dict[str, str] = {
    # Llama-3.3-70B ends blocks so; taken for code, '```}' made the program a syntax error
    "brace-after-fence": f"```python\n{CODE}```}}",
    "brace-after-fence-then-prose": f"```python\n{CODE}```}}\n\nThis uses math.pi.",
    "text-after-fence": f"```python\n{CODE}``` that is all",
    "fence-after-fence": f"```python\n{CODE}``` ```\n",
    "longer-closing-fence": f"```python\n{CODE}`````\nDone.",
    "glued-to-last-line": f"```python\n{CODE.rstrip()}```",  # GPT-4.5, Llama-4 Maverick
    "glued-then-prose": f"```python\n{CODE.rstrip()}```\nIt returns the area.",
    "crlf-brace": f"```python\n{CODE}```}}\n".replace("\n", "\r\n"),
    "lone-cr-brace": f"```python\n{CODE}```}}\n".replace("\n", "\r"),
    "indented-fences-brace": f"  ```python\n{CODE}  ```}}",
    "first-of-two-blocks": f"```python\n{CODE}```\nUsage:\n```python\nprint(area(2))\n```",
}


@pytest.mark.parametrize("answer", CLOSINGS.values(), ids=CLOSINGS.keys())
def test_stray_text_on_the_closing_fence_line_is_not_taken_for_code(answer: str) -> None:
    assert compiles(gitchameleon(answer.replace("\r\n", "\n")))
    assert extract_program(answer, PROBLEM) == CODE


@pytest.mark.parametrize("stray", ["}", " }", ";", " ```", "`", "} # end"])
def test_a_tilde_fence_closes_whatever_follows_it(stray: str) -> None:
    assert extract_program(f"~~~python\n{CODE}~~~{stray}\nBye.", PROBLEM) == CODE


def documented(docstring: str) -> str:
    """CODE with `docstring` (lines indented as the function's body) in its function."""
    return CODE.replace("\n    return", f'\n    """{docstring}\n    """\n    return')


def test_a_backtick_line_does_not_close_a_tilde_block() -> None:
    program = documented("Use:\n```\narea(1)\n```")
    assert extract_program(f"~~~python\n{program}~~~\n", PROBLEM) == program


def test_a_fence_with_stray_text_in_an_indented_docstring_does_not_close_the_block() -> None:
    program = documented("Use:\n\n    ```}\n    area(1)\n    ```}")
    assert extract_program(f"```python\n{program}```\nDone.", PROBLEM) == program


def test_a_glued_fence_does_not_end_a_block_that_has_its_own_closing_fence() -> None:
    program = documented("Not ```area(-1)```")
    assert extract_program(f"```python\n{program}```\n", PROBLEM) == program


def test_a_fence_naming_a_language_closes_one_block_and_opens_the_next() -> None:
    answer = f"```python\nprint(area(2))\n```python\n{CODE}```\nDone."
    assert extract_program(answer, PROBLEM) == CODE  # the block defining `area` wins
    doubled = f"```python\n```python\n{CODE}```"
    assert extract_program(doubled, PROBLEM) == CODE


def test_a_fence_naming_another_language_opens_a_block_that_is_not_run() -> None:
    answer = f"```python\n{CODE}```bash\npip install x\n```"
    assert extract_program(answer, PROBLEM) == CODE


def test_an_unclosed_final_fence_runs_to_the_end_of_the_answer() -> None:
    # GitChameleon takes the whole answer, fence included: a syntax error there
    answer = f"Here:\n```python\n{CODE}"
    assert not compiles(gitchameleon(answer))
    assert extract_program(answer, PROBLEM) == CODE


@pytest.mark.parametrize("cut", ["`", "``", "  ``", "``\n\n"])
def test_a_closing_fence_cut_short_by_the_token_limit_is_dropped(cut: str) -> None:
    assert extract_program(f"```python\n{CODE}{cut}", PROBLEM) == CODE


def test_code_answer_shares_the_closing_rules() -> None:
    assert code_answer(f"```python\n{CODE}```}}", "area") == CODE.rstrip()


# Where pinbench is looser than GitChameleon (docs/extraction.md): these run nothing there.
LOOSER: dict[str, str] = {
    "untagged-fence": f"```\n{CODE}```",
    "py-tag": f"Sure:\n```py\n{CODE}```",
    "capital-tag": f"```Python\n{CODE}```",
    "tilde-fence": f"~~~python\n{CODE}~~~",
    "unclosed": f"```python\n{CODE}",
    "cut-short": f"```python\n{CODE}``",
    "prose-around-unfenced": f"Here it is.\n{CODE}\nThat works.",
    "list-item-brace": f"1. Code:\n   ```python\n{indent(CODE, '   ')}   ```}}\n2. Done.",
}


@pytest.mark.parametrize("answer", LOOSER.values(), ids=LOOSER.keys())
def test_answers_gitchameleon_cannot_run_still_give_the_program(answer: str) -> None:
    assert not compiles(gitchameleon(answer))
    assert extract_program(answer, PROBLEM) == CODE


def test_where_gitchameleons_program_compiles_pinbench_runs_the_same_one() -> None:
    answers = [
        *CLOSINGS.values(),
        f"```python\n{CODE}```",
        f"Sure!\n\n```python\n{CODE}```\n\nExplanation: it squares r.",
        CODE,
        f"```python\n{CODE}```}}```",
    ]
    for answer in answers:
        theirs = gitchameleon(answer.replace("\r\n", "\n").replace("\r", "\n"))
        if compiles(theirs):
            assert same_program(theirs, extract_program(answer, PROBLEM)), answer
