"""What the IDE scenarios need of a language: reading and editing its files, its documentation
convention and check, its diagnostics, and how a repository's tests run an edited file. One
implementation per language family (`PythonEditor` here, `NodeEditor` for JavaScript and
TypeScript); the scenarios (`task.py`) are written once against this interface."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Protocol

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.answers import code_answer, compiles
from pinbench.tasks.ide import docstrings, lint
from pinbench.tasks.ide.cases import FixCase, GenerateCase, TestCase
from pinbench.tasks.ide.edits import Region, body_region, find, function_body


class Editor(Protocol):
    fence: str  # the code fence's language tag
    doc_name: str  # what the documentation of a function is called
    placeholder: str  # the line that stands for a body to write

    def parses(self, path: str, program: str, original: str = "") -> bool:
        """Whether the program is syntactically correct; with `original` (the file an answer
        edited), a language whose grammar cannot read every real file whole may accept an
        edit that adds no syntax error to it."""
        ...

    def code(self, text: str) -> str:
        """The code of a model's answer."""
        ...

    def strip_doc(self, path: str, source: str, qualname: str) -> str: ...

    def line_of(self, path: str, source: str, qualname: str) -> int: ...

    def doc_in_answer(self, text: str, qualname: str) -> str | None: ...

    def with_doc(self, path: str, source: str, qualname: str, doc: str) -> str: ...

    def doc_ok(self, path: str, program: str, qualname: str, doc: str) -> bool:
        """The format check: the convention's every part present for this function."""
        ...

    def doc_answer(self, reference: str) -> str:
        """How a perfect answer gives the reference documentation."""
        ...

    def doc_request(self) -> str: ...

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[lint.Diagnostic]: ...

    def body_region(self, path: str, source: str, qualname: str) -> Region: ...

    def function_source(self, path: str, source: str, qualname: str) -> str: ...

    def body_answer(self, path: str, text: str, qualname: str) -> str:
        """What goes in the body region for an answer (its function's body, else its code)."""
        ...

    def generate_test(self, case: GenerateCase) -> TestSpec: ...

    def declared_elsewhere(self, case: GenerateCase) -> str:
        """The function's documented declaration in another file (a C/C++ header), for the
        prompt ('' when it has none)."""
        ...

    def test_request(self, case: TestCase) -> str: ...

    def test_program(self, case: TestCase, source: str, code: str) -> str:
        """The file the generated test makes (written where `test_spec` says)."""
        ...

    def test_spec(self, case: TestCase) -> TestSpec: ...


class PythonEditor:
    fence = "python"
    doc_name = "docstring"
    placeholder = "# Your code here"

    def parses(self, path: str, program: str, original: str = "") -> bool:
        return compiles(program)  # Python's own parser reads every file it runs

    def code(self, text: str) -> str:
        return code_answer(text)

    def strip_doc(self, path: str, source: str, qualname: str) -> str:
        return docstrings.strip_docstring(source, qualname)

    def line_of(self, path: str, source: str, qualname: str) -> int:
        located = find(source, qualname)
        return located.node.lineno if located else 1

    def doc_in_answer(self, text: str, qualname: str) -> str | None:
        return docstrings.answer_docstring(text, qualname)

    def with_doc(self, path: str, source: str, qualname: str, doc: str) -> str:
        try:
            return docstrings.insert_docstring(source, qualname, doc)
        except (KeyError, SyntaxError, ValueError):
            return source

    def doc_ok(self, path: str, program: str, qualname: str, doc: str) -> bool:
        if not docstrings.syntax_ok(program, qualname, doc):
            return False
        located = find(program, qualname)
        if located is None:
            return False
        facts = docstrings.facts(located.node, method="." in qualname)
        return docstrings.check_format(doc, facts).ok

    def doc_answer(self, reference: str) -> str:
        return f'"""{reference}"""'

    def doc_request(self) -> str:
        return 'Answer with the docstring only, as a """triple-quoted""" string.'

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[lint.Diagnostic]:
        return lint.diagnose(
            snapshots.load(case.snapshot),
            env,
            [case.path],
            case.toolchain_version,
            replace={case.path: program},
        )

    def body_region(self, path: str, source: str, qualname: str) -> Region:
        located = find(source, qualname)
        if located is None:
            raise KeyError(f"{path} has no {qualname}")
        return body_region(source, located.node)

    def function_source(self, path: str, source: str, qualname: str) -> str:
        located = find(source, qualname)
        if located is None:
            raise KeyError(f"{path} has no {qualname}")
        return ast.get_source_segment(source, located.node) or ""

    def declared_elsewhere(self, case: GenerateCase) -> str:
        return ""

    def body_answer(self, path: str, text: str, qualname: str) -> str:
        name = qualname.rsplit(".", 1)[-1]
        code = code_answer(text, name)
        body = function_body(code, name)
        return code if body is None else body

    def generate_test(self, case: GenerateCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.REPO, code="", repo=case.snapshot, path=case.path, select=case.tests
        )

    def test_request(self, case: TestCase) -> str:
        return (
            f"Write a pytest test function (named `test_...`) for `{case.qualname}`. It will be "
            f"appended to the end of `{case.path}`, so everything defined in that file is in "
            "scope without an import."
        )

    def test_program(self, case: TestCase, source: str, code: str) -> str:
        return source.rstrip("\n") + "\n\n\n" + code.strip("\n") + "\n"

    def test_spec(self, case: TestCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.REPO,
            code="",
            repo=case.snapshot,
            path=case.path,
            select=(case.path,),
            focal=case.focal,
        )
