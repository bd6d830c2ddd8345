"""The IDE scenarios' editor for Java (see `tasks/ide/editor.py`): Javadoc checked for a
description and every parameter, return value and thrown class; javac's lint diagnostics;
bodies between braces; a generated JUnit test saved as a test class of the focal class's
package."""

from __future__ import annotations

from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.ide.braces import BraceEditor
from pinbench.tasks.ide.cases import FixCase, GenerateCase, TestCase
from pinbench.tasks.ide.java import edits, javac, source
from pinbench.tasks.ide.lint import Diagnostic


class JavaEditor(BraceEditor):
    doc_name = "Javadoc comment"

    def __init__(self) -> None:
        super().__init__(edits.EDITS, "java")

    def parses(self, path: str, program: str, original: str = "") -> bool:
        return source.parses(program, original)

    def doc_passes(self, path: str, program: str, qualname: str) -> bool:
        return not source.check_doc(path, program, qualname)

    def doc_request(self) -> str:
        return (
            "Answer with the Javadoc comment only (`/** ... */`, with @param, @return and "
            "@throws tags)."
        )

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[Diagnostic]:
        return javac.lint(snapshots.load(case.snapshot), env, [case.path], {case.path: program})

    def generate_test(self, case: GenerateCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.JAVA_REPO, code="", repo=case.snapshot, path=case.path, select=case.tests
        )

    def test_request(self, case: TestCase) -> str:
        package = case.test_path.rsplit("/", 1)[0]
        name = edits.GENERATED_TEST
        return (
            f"Write a JUnit 5 test class (`org.junit.jupiter.api.Test`, "
            f"`org.junit.jupiter.api.Assertions`) for `{case.qualname}`. It will be saved as "
            f"`{case.test_path}`: declare the package of that directory ({package}) and name the "
            f"class `{name}`. Answer with the whole file."
        )

    def test_program(self, case: TestCase, text: str, code: str) -> str:
        return code.strip("\n") + "\n"

    def test_spec(self, case: TestCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.JAVA_REPO,
            code="",
            repo=case.snapshot,
            path=case.test_path,
            select=(case.test_path,),
            focal=case.focal,
        )
