"""Prompt builders: what each style and option puts in front of a model, and what it never does."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import pytest
from pydantic import ValidationError

from pinbench.models.base import Mode, Request, Sampling
from pinbench.tasks.base import ERROR_TAIL_CHARS, TRIM_MARKER, Feedback, trim_error
from pinbench.tasks.generation.extract import extract_program
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.templates import (
    ANSWER_INSTRUCTION,
    COMPLETION_STOP,
    NO_STARTER,
    Style,
    build_request,
)

GC1 = Path(__file__).parent.parent / "fixtures" / "gitchameleon1" / "mini.csv"
SAMPLING = Sampling(temperature=0.8, max_tokens=512, seed=7)
COT_MARK = "think step by step"


@cache
def builtin() -> tuple[Problem, ...]:
    return tuple(load_dataset(Path("builtin")).problems)


def problem(problem_id: str) -> Problem:
    return next(p for p in builtin() if p.id == problem_id)


def text_of(request: Request) -> str:
    """Everything a model reads for a request."""
    return request.prompt + "".join(m.content for m in request.messages)


def test_instruct_is_a_system_and_a_user_message_with_the_callers_ids() -> None:
    p = problem("sklearn-0.18-01")
    request = build_request(p, sampling=SAMPLING, sample=3)
    assert request.mode is Mode.CHAT and request.prompt == ""
    assert [m.role for m in request.messages] == ["system", "user"]
    assert (request.problem_id, request.sample, request.round) == (p.id, 3, 0)
    assert request.sampling == SAMPLING


def test_system_message_pins_library_and_python_and_asks_for_one_block() -> None:
    system = build_request(problem("sklearn-0.18-01"), sampling=SAMPLING).messages[0].content
    assert "scikit-learn==0.18.1 and Python 3.6" in system
    assert "ONE fenced ```python" in system


def test_user_message_has_statement_every_pin_python_and_fenced_starter() -> None:
    p = problem("sklearn-0.18-01")
    user = build_request(p, sampling=SAMPLING).messages[1].content
    assert p.problem.strip() in user
    for pin in ("scikit-learn==0.18.1", "numpy==1.12.1", "scipy==0.19.0"):
        assert f"- {pin}\n" in user
    assert "Python version: 3.6" in user
    assert f"```python\n{p.starter_code.rstrip()}\n```" in user
    assert "keeping its imports, function names and signatures" in user
    assert user.endswith(ANSWER_INSTRUCTION.substitute(fence_lang="python"))


def test_unknown_python_version_is_not_mentioned() -> None:
    p = next(p for p in load_dataset(GC1).problems if p.python_version is None)
    system, user = (m.content for m in build_request(p, sampling=SAMPLING).messages)
    assert "Python version" not in user and "Python None" not in system
    assert " and Python" not in system


def test_a_library_pinned_twice_is_listed_once() -> None:
    """gc1-3 repeats `pandas==1.5.0` in its extra pins: listing it twice would be noise."""
    p = next(p for p in load_dataset(GC1).problems if p.id == "gc1-3")
    user = build_request(p, sampling=SAMPLING).messages[1].content
    assert user.count("pandas==1.5.0") == 1


def test_empty_starter_asks_for_a_program_from_scratch() -> None:
    p = problem("numpy-2.0-01").model_copy(update={"starter_code": ""})
    user = build_request(p, sampling=SAMPLING).messages[1].content
    assert NO_STARTER in user and "```python\n" not in user


def test_starter_with_a_fence_inside_gets_a_longer_fence() -> None:
    starter = 'def f():\n    """Example:\n\n    ```\n    f()\n    ```\n    """\n'
    p = problem("numpy-2.0-01").model_copy(update={"starter_code": starter})
    user = build_request(p, sampling=SAMPLING).messages[1].content
    assert f"````python\n{starter.rstrip()}\n````" in user


def test_docs_appear_delimited_before_the_task_only_when_asked() -> None:
    p = problem("sklearn-0.18-01")
    assert p.docs.strip()
    plain = build_request(p, sampling=SAMPLING).messages[1].content
    with_docs = build_request(p, sampling=SAMPLING, docs=True).messages[1].content
    assert p.docs.strip() not in plain and "<documentation>" not in plain
    assert f"<documentation>\n{p.docs.strip()}\n</documentation>" in with_docs
    assert with_docs.index("</documentation>") < with_docs.index("Task:")


def test_docs_requested_but_empty_adds_no_section() -> None:
    p = problem("sklearn-0.18-01").model_copy(update={"docs": "  \n"})
    user = build_request(p, sampling=SAMPLING, docs=True).messages[1].content
    assert "documentation" not in user.lower()


def test_cot_asks_for_reasoning_about_the_version_before_the_block() -> None:
    p = problem("pandas-2.0-01")
    plain = build_request(p, sampling=SAMPLING).messages[1].content
    cot = build_request(p, sampling=SAMPLING, cot=True).messages[1].content
    assert COT_MARK not in plain
    assert COT_MARK in cot and "pandas==2.0.3 exist in" in cot
    assert "Before writing any code" in cot and "one fenced ```python block" in cot
    assert ANSWER_INSTRUCTION.substitute(fence_lang="python") not in cot


def test_cot_is_refused_for_completion_style() -> None:
    with pytest.raises(ValueError, match="instruct"):
        build_request(problem("pandas-2.0-01"), style=Style.COMPLETION, sampling=SAMPLING, cot=True)


def test_same_inputs_give_the_same_request() -> None:
    p = problem("pandas-2.0-01")
    feedback = Feedback(program="x = 1\n", error="boom", round=0)
    for style, docs in itertools.product(Style, (False, True)):
        first = build_request(
            p, style=style, sampling=SAMPLING, docs=docs, feedback=feedback, round=1
        )
        again = build_request(
            p, style=style, sampling=SAMPLING, docs=docs, feedback=feedback, round=1
        )
        assert first == again and first.cache_key("m") == again.cache_key("m")


def test_options_change_the_cache_key() -> None:
    """Docs and CoT prompts must not be answered from the plain prompt's cache."""
    p = problem("pandas-2.0-01")
    keys = {
        build_request(p, sampling=SAMPLING, docs=d, cot=c).cache_key("m")
        for d, c in itertools.product((False, True), repeat=2)
    }
    assert len(keys) == 4


# --- error feedback -------------------------------------------------------------------------


def test_feedback_is_task_then_previous_program_then_the_error() -> None:
    p = problem("pandas-2.0-01")
    program = p.starter_code + "    return s.value_counts().reset_index()\n"
    feedback = Feedback(program=program, error="KeyError: 'count'", round=0)
    first = build_request(p, sampling=SAMPLING)
    repair = build_request(p, sampling=SAMPLING, feedback=feedback, round=1)
    assert [m.role for m in repair.messages] == ["system", "user", "assistant", "user"]
    assert repair.messages[:2] == first.messages
    assert repair.messages[2].content == f"```python\n{program.rstrip()}\n```"
    last = repair.messages[3].content
    assert "visible test" in last and "```text\nKeyError: 'count'\n```" in last
    assert "pandas==2.0.3 and Python 3.11" in last and last.endswith(
        ANSWER_INSTRUCTION.substitute(fence_lang="python")
    )
    assert repair.round == 1


def test_feedback_program_round_trips_through_extraction() -> None:
    """The previous program is shown in a fence that its own backticks cannot close."""
    p = problem("pandas-2.0-01")
    program = p.starter_code + '    return "```"  # a fence in a string\n'
    feedback = Feedback(program=program, error="AssertionError", round=0)
    shown = build_request(p, sampling=SAMPLING, feedback=feedback, round=1).messages[2].content
    assert extract_program(shown, p) == program


def test_feedback_with_cot_asks_for_reasoning_again() -> None:
    feedback = Feedback(program="x = 1\n", error="NameError", round=0)
    p = problem("pandas-2.0-01")
    last = build_request(p, sampling=SAMPLING, cot=True, feedback=feedback, round=1).messages[-1]
    assert COT_MARK in last.content


def test_empty_error_output_says_so() -> None:
    feedback = Feedback(program="x = 1\n", error="", round=0)
    p = problem("pandas-2.0-01")
    last = build_request(p, sampling=SAMPLING, feedback=feedback, round=1).messages[-1].content
    assert "```text\n(no output)\n```" in last


@pytest.mark.parametrize("round_", [0, 2])
def test_feedback_must_come_after_the_round_it_repairs(round_: int) -> None:
    feedback = Feedback(program="x = 1\n", error="E", round=2)
    with pytest.raises(ValueError, match="does not follow"):
        build_request(problem("pandas-2.0-01"), sampling=SAMPLING, feedback=feedback, round=round_)


def test_trimming_keeps_the_tail_where_the_exception_is() -> None:
    trace = "Traceback (most recent call last):\n"
    trace += "".join(f'  File "x.py", line {i}, in f\n' for i in range(500))
    trace += "ValueError: the real reason\n"
    error = Feedback(program="", error=trace, round=0).error
    assert len(trace) > ERROR_TAIL_CHARS >= len(error)
    assert error.startswith(TRIM_MARKER) and error.endswith("ValueError: the real reason\n")
    assert "Traceback (most recent call last)" not in error
    assert error[len(TRIM_MARKER) :].startswith('  File "x.py"')  # a whole line, not a piece


def test_short_errors_are_kept_whole_and_trimming_is_idempotent() -> None:
    assert trim_error("E\r\nF") == "E\nF"
    feedback = Feedback(program="", error="x" * 10 + "\n" + "y" * 5000, round=0)
    assert Feedback.model_validate(feedback.model_dump()) == feedback
    assert trim_error(feedback.error) == feedback.error


def test_a_single_huge_line_is_cut_rather_than_dropped() -> None:
    error = trim_error("a" * 10_000 + "\n")
    assert len(error) == ERROR_TAIL_CHARS and error.startswith(TRIM_MARKER + "a")


def test_feedback_is_frozen_and_strict() -> None:
    feedback = Feedback(program="", error="", round=0)
    with pytest.raises(ValidationError):
        feedback.error = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Feedback(program="", error="", round=0, hidden="x")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Feedback(program="", error="", round=-1)


# --- completion style -----------------------------------------------------------------------


def test_completion_prompt_is_a_comment_header_then_the_starter_verbatim() -> None:
    p = problem("sklearn-0.18-01")
    request = build_request(p, style=Style.COMPLETION, sampling=SAMPLING)
    assert request.mode is Mode.COMPLETION and request.messages == ()
    assert request.prompt.endswith(p.starter_code)
    header = request.prompt[: -len(p.starter_code)]
    assert all(line.startswith("#") for line in header.strip().split("\n"))
    assert "# Requires: scikit-learn==0.18.1, numpy==1.12.1, scipy==0.19.0\n" in header
    assert "# Python 3.6\n" in header
    assert "# Write `mean_sample_jaccard(Y_true, Y_pred)`" in header


def test_completion_docs_are_comments_only_when_asked() -> None:
    p = problem("sklearn-0.18-01")
    first_doc_line = p.docs.strip().split("\n")[0]
    plain = build_request(p, style=Style.COMPLETION, sampling=SAMPLING).prompt
    docs = build_request(p, style=Style.COMPLETION, sampling=SAMPLING, docs=True).prompt
    assert first_doc_line not in plain
    assert f"# {first_doc_line}" in docs and docs.endswith(p.starter_code)


def test_completion_feedback_comments_program_and_error_then_repeats_the_starter() -> None:
    p = problem("sklearn-0.18-01")
    program = p.starter_code + "    return jaccard_score(Y_true, Y_pred)\n"
    feedback = Feedback(program=program, error="ImportError: jaccard_score\n", round=0)
    prompt = build_request(
        p, style=Style.COMPLETION, sampling=SAMPLING, feedback=feedback, round=1
    ).prompt
    assert "#     return jaccard_score(Y_true, Y_pred)\n" in prompt
    assert "# ImportError: jaccard_score\n" in prompt
    assert prompt.endswith(p.starter_code)
    header = prompt[: -len(p.starter_code)]
    assert all(line.startswith("#") for line in header.strip().split("\n"))


def test_completion_keeps_an_open_last_line_exactly() -> None:
    """GitChameleon starters end inside a line ('    return '): the prompt must too."""
    p = next(p for p in load_dataset(GC1).problems if p.id == "gc1-1")
    prompt = build_request(p, style=Style.COMPLETION, sampling=SAMPLING).prompt
    assert prompt.endswith("def spatial_join(gdf1, gdf2):\n    return ")


def test_completion_stops_end_the_program_never_a_helper() -> None:
    assert "\ndef " not in COMPLETION_STOP and "\nclass " not in COMPLETION_STOP
    assert len(COMPLETION_STOP) <= 4  # OpenAI-compatible servers accept four


def test_completion_stops_never_cut_a_reference_solution() -> None:
    """What the references add after their starter is what a model should write: no stop
    sequence may occur in it."""
    checked = 0
    for p in builtin():
        if p.solution.startswith(p.starter_code):
            continuation = p.solution[len(p.starter_code) :]
            assert not [s for s in COMPLETION_STOP if s in continuation], p.id
            checked += 1
    assert checked >= 100


# --- what a prompt never contains -----------------------------------------------------------


def _variants(p: Problem) -> list[Request]:
    feedback = Feedback(program="def f():\n    return 1\n", error="AssertionError", round=0)
    requests = []
    for style, docs, fb in itertools.product(Style, (False, True), (None, feedback)):
        cots = (False, True) if style is Style.INSTRUCT else (False,)
        for cot in cots:
            requests.append(
                build_request(
                    p,
                    style=style,
                    sampling=SAMPLING,
                    docs=docs,
                    cot=cot,
                    feedback=fb,
                    round=1 if fb else 0,
                )
            )
    return requests


def test_no_prompt_of_any_builtin_problem_contains_its_hidden_test_or_solution() -> None:
    for p in builtin():
        public = p.problem + p.starter_code + p.docs
        hidden = p.hidden_test.code.strip()
        # distinctive lines of the hidden test: long enough not to be an ordinary import
        secret = [ln.strip() for ln in hidden.split("\n") if len(ln.strip()) >= 25]
        secret = [ln for ln in secret if ln not in public]
        for request in _variants(p):
            text = text_of(request)
            assert hidden not in text, p.id
            assert not [ln for ln in secret if ln in text], p.id
            if p.solution.strip() != p.starter_code.strip():
                assert p.solution.strip() not in text, p.id


def test_a_trim_limit_without_room_for_output_is_refused() -> None:
    with pytest.raises(ValueError, match="no room"):
        trim_error("x" * 100, limit=len(TRIM_MARKER))
