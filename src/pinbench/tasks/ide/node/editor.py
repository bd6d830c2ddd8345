"""The IDE scenarios' editor for JavaScript and TypeScript (see `tasks/ide/editor.py`): JSDoc
(TSDoc-compatible) checked by eslint-plugin-jsdoc, ESLint and tsc diagnostics, bodies between
braces, and a generated test saved as a test file of the suite (Jest/Mocha style)."""

from __future__ import annotations

from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.ide.braces import BraceEditor
from pinbench.tasks.ide.cases import FixCase, GenerateCase, Language, TestCase
from pinbench.tasks.ide.lint import Diagnostic
from pinbench.tasks.ide.node import edits, source


class NodeEditor(BraceEditor):
    doc_name = "JSDoc comment"

    def __init__(self, language: Language) -> None:
        super().__init__(edits.EDITS, language.value)

    def parses(self, path: str, program: str, original: str = "") -> bool:
        # the language's own parsers (Node's, TypeScript's) read every file the project runs
        return bool(program.strip()) and source.parses(path, program)

    def doc_passes(self, path: str, program: str, qualname: str) -> bool:
        return source.check_doc(path, program, qualname).ok

    def doc_request(self) -> str:
        return (
            "Answer with the JSDoc comment only (`/** ... */`, with @param, @returns and "
            "@throws tags)."
        )

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[Diagnostic]:
        return source.diagnose(
            snapshots.load(case.snapshot), env / "node_modules", [case.path], {case.path: program}
        )

    def generate_test(self, case: GenerateCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.NODE_REPO, code="", repo=case.snapshot, path=case.path, select=case.tests
        )

    def test_request(self, case: TestCase) -> str:
        target = edits.relative_import(case.test_path, case.path)
        how = "import from" if case.test_path.endswith(".ts") else "require"
        return (
            f"Write a test file for `{case.qualname}` with Jest-style `describe`/`test`/`it` and "
            f"`expect` (they are globals). It will be saved as `{case.test_path}`: {how} the "
            f"module as `'{target}'`. Answer with the whole test file."
        )

    def test_program(self, case: TestCase, text: str, code: str) -> str:
        return code.strip("\n") + "\n"

    def test_spec(self, case: TestCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.NODE_REPO,
            code="",
            repo=case.snapshot,
            path=case.test_path,
            select=(case.test_path,),
            focal=case.focal,
        )
