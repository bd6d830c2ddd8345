"""The IDE scenarios' editor for C and C++ (see `tasks/ide/editor.py`): Doxygen comments
checked for a description and every parameter, return value and thrown class; clang-tidy's
diagnostics; bodies between braces; a generated GoogleTest file built as an executable of its
own, linked with the library that compiles the focal function's file."""

from __future__ import annotations

from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.ide.braces import BraceEditor
from pinbench.tasks.ide.cases import FixCase, GenerateCase, TestCase
from pinbench.tasks.ide.cpp import edits, source, tidy
from pinbench.tasks.ide.lint import Diagnostic


class CppEditor(BraceEditor):
    doc_name = "Doxygen comment"

    def __init__(self) -> None:
        super().__init__(edits.EDITS, "cpp")

    def parses(self, path: str, program: str, original: str = "") -> bool:
        return source.parses(program, original)

    def doc_passes(self, path: str, program: str, qualname: str) -> bool:
        return not source.check_doc(path, program, qualname)

    def doc_request(self) -> str:
        return (
            "Answer with the Doxygen comment only (`/** ... */`, with a @param tag for each "
            "parameter, @return when it returns a value and @throws for each exception it "
            "throws)."
        )

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[Diagnostic]:
        return tidy.lint(snapshots.load(case.snapshot), [case.path], {case.path: program})

    def generate_test(self, case: GenerateCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.CPP_REPO, code="", repo=case.snapshot, path=case.path, select=case.tests
        )

    def declared_elsewhere(self, case: GenerateCase) -> str:
        snapshot = snapshots.load(case.snapshot)
        declared = edits.declaration_of(snapshot, case.qualname)
        if declared is None or declared.path == case.path:
            return ""
        return f"It is declared in `{declared.path}`:\n\n```cpp\n{declared.text}\n```\n\n"

    def test_request(self, case: TestCase) -> str:
        header = edits.include_of(snapshots.load(case.snapshot), case.path, case.focal.name)
        declared = f' It is declared in a header you include as `"{header}"`.' if header else ""
        return (
            f"Write a GoogleTest test file (`#include <gtest/gtest.h>`, `TEST(...)`) for "
            f"`{case.qualname}`.{declared} It will be saved as `{case.test_path}` and built as "
            "an executable of its own, linked with GoogleTest's `main` and the library that "
            f"compiles `{case.path}`: do not define `main`. Answer with the whole file."
        )

    def test_program(self, case: TestCase, text: str, code: str) -> str:
        return code.strip("\n") + "\n"

    def test_spec(self, case: TestCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.CPP_REPO,
            code="",
            repo=case.snapshot,
            path=case.test_path,
            select=(case.test_path,),
            focal=case.focal,
        )
