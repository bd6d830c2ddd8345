"""Prompt builders: what a model is shown for one problem, as a `Request`.

Every text a model reads lives here as a module-level constant or `string.Template`, so the
wording can be read (and changed) in one place. Builders are pure functions of their inputs:
the same problem and options always give the same text, which keeps the generation cache
(keyed on the request) effective and runs reproducible.

What a prompt may contain is deliberately narrow: the statement, the pins, the Python version,
the starter code, the problem's `docs` when asked for, and, in a repair round, the previous
program with the *visible* test's output. The hidden test and the reference solution are never
read here.
"""

from __future__ import annotations

import functools
from enum import StrEnum
from string import Template

from pinbench.models.base import Message, Mode, Request, Sampling
from pinbench.tasks.base import Feedback
from pinbench.tasks.generation.problem import Language, Problem


class Style(StrEnum):
    """How a model is prompted."""

    INSTRUCT = "instruct"  # chat messages; the model answers with a fenced program
    COMPLETION = "completion"  # a raw prompt ending with the starter code; the model continues it


# Stop sequences for completion style. The model continues the starter's open function, so the
# stops must end the *program*, never the function: "\ndef " and "\nclass " are not stops
# because module-level helper functions and classes after the target are legitimate code.
# - "\n```": a markdown fence closing the code; what follows is prose.
# - "\nif __name__": a main guard; what follows is demo code, never needed by the tests.
# - "\nprint(" and "\nassert ": module-level demo calls and self-tests; they run at import time,
#   can only make a correct function fail, and the tests never need them. (Indented prints and
#   asserts inside functions start with whitespace and are not matched.)
# Four stops, because OpenAI-compatible APIs accept at most four.
COMPLETION_STOP: tuple[str, ...] = ("\n```", "\nif __name__", "\nprint(", "\nassert ")

SYSTEM_TEMPLATE = Template(
    "You are an expert $language programmer. The code you write must work with exactly "
    "$requirement$python_clause: use only APIs that exist in that version, with the behaviour "
    "they have there, even where later or earlier versions differ. Answer with the complete "
    "program in ONE fenced ```$fence_lang code block."
)
DOCS_TEMPLATE = Template(
    "Documentation for $requirement (reference material; the task follows it):\n"
    "<documentation>\n$docs\n</documentation>\n\n"
)
TASK_TEMPLATE = Template("Task:\n$statement\n\nInstalled packages:\n$pins$runtime\n")
STARTER_TEMPLATE = Template(
    "Complete this starter code, keeping its imports, function names and signatures:\n"
    "${fence}$fence_lang\n$starter\n$fence\n\n"
)
NO_STARTER = "Write the program from scratch.\n\n"
ANSWER_INSTRUCTION = Template(
    "Reply with only the complete program (starter code included) in one fenced ```$fence_lang "
    "block, with no explanation before or after it."
)
COT_TEMPLATE = Template(
    "Before writing any code, think step by step about which APIs of $requirement exist in "
    "that version and how they behave there (what was added, renamed, deprecated or removed "
    "around it), and write that reasoning out. Then give the final complete program (starter "
    "code included) in one fenced ```$fence_lang block, and no other code block."
)
FEEDBACK_TEMPLATE = Template(
    "Your program failed the visible test. The end of its output:\n"
    "${fence}text\n$error\n$fence\n\n"
    "Fix the program so that it works with $requirement$python_clause.\n"
)
NO_OUTPUT = "(no output)"

COMPLETION_HEADER_TEMPLATE = Template("$statement\n$c\n$c Requires: $pins\n$runtime")
COMPLETION_DOCS_TEMPLATE = Template(
    "$c Documentation for $requirement:\n$docs\n$c End of documentation.\n$c\n"
)
COMPLETION_FEEDBACK_TEMPLATE = Template(
    "$c\n$c A previous attempt, which failed:\n$program\n$c\n"
    "$c Its output on the visible test:\n$error\n$c\n$c A corrected program:\n"
)


def build_request(
    problem: Problem,
    *,
    style: Style = Style.INSTRUCT,
    sampling: Sampling,
    sample: int = 0,
    round: int = 0,
    docs: bool = False,
    cot: bool = False,
    feedback: Feedback | None = None,
) -> Request:
    """The request for one sample of `problem`.

    `docs` adds the problem's documentation (doc-prompting), `cot` asks for step-by-step
    reasoning before the code (instruct style only: a base model given a raw prompt cannot be
    asked to reason first), and `feedback` turns the request into a repair round, which must
    come after the round it repairs. Raises ValueError for those two misuses rather than
    building a prompt that silently does something else than its label says.
    """
    if cot and style is Style.COMPLETION:
        raise ValueError("chain of thought needs the instruct style")
    if feedback is not None and round <= feedback.round:
        raise ValueError(f"round {round} does not follow the repaired round {feedback.round}")
    if style is Style.COMPLETION:
        return Request(
            problem_id=problem.id,
            sample=sample,
            round=round,
            mode=Mode.COMPLETION,
            prompt=_completion_prompt(problem, docs=docs, feedback=feedback),
            sampling=sampling,
        )
    return Request(
        problem_id=problem.id,
        sample=sample,
        round=round,
        mode=Mode.CHAT,
        messages=_instruct_messages(problem, docs=docs, cot=cot, feedback=feedback),
        sampling=sampling,
    )


def _instruct_messages(
    problem: Problem, *, docs: bool, cot: bool, feedback: Feedback | None
) -> tuple[Message, ...]:
    """System, task; in a repair round also the failed program (as the model's own turn) and
    the visible test's output with a request to fix it."""
    system = Message(role="system", content=SYSTEM_TEMPLATE.substitute(_pin_fields(problem)))
    closing = _closing_instruction(problem, cot)
    task = Message(role="user", content=_task_text(problem, docs) + closing)
    if feedback is None:
        return (system, task)
    fence = _fence_for(feedback.program)
    program = feedback.program.rstrip()
    lang = problem.language.fence
    previous = Message(role="assistant", content=f"{fence}{lang}\n{program}\n{fence}")
    error = feedback.error.strip("\n") or NO_OUTPUT
    repair = FEEDBACK_TEMPLATE.substitute(
        _pin_fields(problem), fence=_fence_for(error), error=error
    )
    return (system, task, previous, Message(role="user", content=repair + closing))


def _task_text(problem: Problem, docs: bool) -> str:
    """The user's task: documentation (if asked and present), statement, pins, Python version,
    starter code."""
    parts = []
    if docs and problem.docs.strip():
        parts.append(DOCS_TEMPLATE.substitute(_pin_fields(problem), docs=problem.docs.strip()))
    pins = "".join(f"- {pin}\n" for pin in problem.pins)
    version = problem.toolchain_version
    runtime = f"{_RUNTIME[problem.language]} version: {version}\n" if version else ""
    statement = problem.problem.strip()
    parts.append(TASK_TEMPLATE.substitute(statement=statement, pins=pins, runtime=runtime))
    if problem.starter_code.strip():
        starter = problem.starter_code.rstrip()
        fence, lang = _fence_for(starter), problem.language.fence
        parts.append(STARTER_TEMPLATE.substitute(fence=fence, fence_lang=lang, starter=starter))
    else:
        parts.append(NO_STARTER)
    return "".join(parts)


def _closing_instruction(problem: Problem, cot: bool) -> str:
    fields = _pin_fields(problem)
    return COT_TEMPLATE.substitute(fields) if cot else ANSWER_INSTRUCTION.substitute(fields)


def _completion_prompt(problem: Problem, *, docs: bool, feedback: Feedback | None) -> str:
    """A comment header (documentation, statement, pins, Python) then the starter verbatim, so
    that a base model's continuation is the rest of the program. A repair round shows the failed
    program and its error as comments before the starter."""
    parts = []
    c = _COMMENT[problem.language]
    if docs and problem.docs.strip():
        commented = _comment(problem.docs.strip(), c)
        fields = _pin_fields(problem)
        parts.append(COMPLETION_DOCS_TEMPLATE.substitute(fields, docs=commented, c=c))
    version = problem.toolchain_version
    runtime = f"{c} {_RUNTIME[problem.language]} {version}\n" if version else ""
    header = COMPLETION_HEADER_TEMPLATE.substitute(
        statement=_comment(problem.problem.strip(), c),
        pins=", ".join(problem.pins),
        runtime=runtime,
        c=c,
    )
    parts.append(header)
    if feedback is not None:
        error = feedback.error.strip("\n") or NO_OUTPUT
        parts.append(
            COMPLETION_FEEDBACK_TEMPLATE.substitute(
                program=_comment(feedback.program.rstrip(), c), error=_comment(error, c), c=c
            )
        )
    parts.append("\n")
    parts.append(problem.starter_code.replace("\r\n", "\n"))
    return "".join(parts)


_RUNTIME = {Language.PYTHON: "Python", Language.JAVASCRIPT: "Node", Language.TYPESCRIPT: "Node"}
_COMMENT = {Language.PYTHON: "#", Language.JAVASCRIPT: "//", Language.TYPESCRIPT: "//"}


def _pin_fields(problem: Problem) -> dict[str, str]:
    """`requirement` (the library's own pin), `python_clause` (' and Python X.Y', ' and Node
    X.Y.Z' or ''), the language's name and its fence's tag."""
    version = problem.toolchain_version
    clause = f" and {_RUNTIME[problem.language]} {version}" if version else ""
    return {
        "requirement": problem.pins[0],
        "python_clause": clause,
        "language": problem.language.display_name,
        "fence_lang": problem.language.fence,
    }


def _comment(text: str, prefix: str = "#") -> str:
    """`text` as comment lines (blank lines become a bare comment marker)."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(f"{prefix} {line}".rstrip() for line in lines)


@functools.lru_cache(maxsize=256)  # the same starter is fenced for every sample
def _fence_for(content: str) -> str:
    """A backtick fence longer than any backtick run inside `content`, so embedded fences (a
    docstring with a markdown example, a traceback quoting one) cannot close the block."""
    longest = run = 0
    for char in content:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)
