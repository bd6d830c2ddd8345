"""The IDE scenarios' editor for JavaScript and TypeScript (see `tasks/ide/editor.py`): JSDoc
(TSDoc-compatible) checked by eslint-plugin-jsdoc, ESLint and tsc diagnostics, bodies between
braces, and a generated test saved as a test file of the suite (Jest/Mocha style)."""

from __future__ import annotations

from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.ide.cases import FixCase, GenerateCase, Language, TestCase
from pinbench.tasks.ide.edits import Region
from pinbench.tasks.ide.lint import Diagnostic
from pinbench.tasks.ide.node import edits, source


class NodeEditor:
    doc_name = "JSDoc comment"
    placeholder = "// Your code here"

    def __init__(self, language: Language) -> None:
        self.fence = language.value

    def parses(self, path: str, program: str) -> bool:
        return bool(program.strip()) and source.parses(path, program)

    def code(self, text: str) -> str:
        return edits.code_in_answer(text)

    def strip_doc(self, path: str, text: str, qualname: str) -> str:
        return edits.strip_doc(path, text, qualname)

    def line_of(self, path: str, text: str, qualname: str) -> int:
        found = source.outline(path, text).find(qualname)
        return found.line if found else 1

    def doc_in_answer(self, text: str, qualname: str) -> str | None:
        return edits.doc_in_answer(text)

    def with_doc(self, path: str, text: str, qualname: str, doc: str) -> str:
        return edits.with_doc(path, text, qualname, doc)

    def doc_ok(self, path: str, program: str, qualname: str, doc: str) -> bool:
        found = source.outline(path, program).find(qualname)
        if found is None or found.doc is None or found.doc.split() != doc.split():
            return False  # the comment must be the function's JSDoc, as written
        return source.check_doc(path, program, qualname).ok

    def doc_answer(self, reference: str) -> str:
        return reference

    def doc_request(self) -> str:
        return (
            "Answer with the JSDoc comment only (`/** ... */`, with @param, @returns and "
            "@throws tags)."
        )

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[Diagnostic]:
        return source.diagnose(
            snapshots.load(case.snapshot), env / "node_modules", [case.path], {case.path: program}
        )

    def _function(self, path: str, text: str, qualname: str) -> source.Function:
        found = source.outline(path, text).find(qualname)
        if found is None:
            raise KeyError(f"{path} has no {qualname}")
        return found

    def body_region(self, path: str, text: str, qualname: str) -> Region:
        return edits.body_region(self._function(path, text, qualname))

    def function_source(self, path: str, text: str, qualname: str) -> str:
        function = self._function(path, text, qualname)
        lines = text.splitlines()
        return "\n".join(lines[function.line - 1 : function.end])

    def body_answer(self, path: str, text: str, qualname: str) -> str:
        code = edits.code_in_answer(text)
        body = edits.body_of(path, code, qualname.rsplit(".", 1)[-1])
        return code if body is None else body

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
