"""The IDE scenarios' editor for C# (see `tasks/ide/editor.py`): XML documentation comments
checked for a summary and every parameter, return value and thrown class; mcs's warnings;
bodies between braces; a generated NUnit fixture compiled as an assembly of its own, with the
repository's libraries."""

from __future__ import annotations

from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.ide.braces import BraceEditor
from pinbench.tasks.ide.cases import FixCase, GenerateCase, TestCase
from pinbench.tasks.ide.csharp import edits, mcs, source
from pinbench.tasks.ide.lint import Diagnostic


class CsharpEditor(BraceEditor):
    doc_name = "XML documentation comment"

    def __init__(self) -> None:
        super().__init__(edits.EDITS, "csharp")

    def parses(self, path: str, program: str, original: str = "") -> bool:
        return source.parses(program, original)

    def doc_passes(self, path: str, program: str, qualname: str) -> bool:
        return not source.check_doc(path, program, qualname)

    def doc_ok(self, path: str, program: str, qualname: str, doc: str) -> bool:
        found = self.edits.outline(path, program).find(qualname)
        if found is None or found.doc is None:
            return False
        if edits.normalized(found.doc) != edits.normalized(doc):
            return False  # the comment must be the method's, as written
        return self.doc_passes(path, program, qualname)

    def doc_request(self) -> str:
        return (
            "Answer with the XML documentation comment only (`///` lines: <summary>, a "
            '<param name="..."> for each parameter, <returns> when it returns a value and '
            '<exception cref="..."> for each exception it throws).'
        )

    def diagnose(self, case: FixCase, program: str, env: Path) -> list[Diagnostic]:
        return mcs.lint(snapshots.load(case.snapshot), [case.path], {case.path: program})

    def generate_test(self, case: GenerateCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.CSHARP_REPO,
            code="",
            repo=case.snapshot,
            path=case.path,
            select=case.tests,
        )

    def test_request(self, case: TestCase) -> str:
        namespace = edits.namespace_of(snapshots.load(case.snapshot).read(case.path))
        using = f" (`using {namespace};`)" if namespace else ""
        return (
            f"Write an NUnit 2.6 test fixture (`using NUnit.Framework;`, `[TestFixture]`, "
            f"`[Test]`, `Assert.AreEqual`, `Assert.Throws<T>`) for `{case.qualname}`{using}. It "
            f"will be saved as `{case.test_path}` and compiled alone into a test assembly "
            "that references the repository's libraries. The compiler is Mono's mcs: C# 7.2 "
            "at most. Answer with the whole file."
        )

    def test_program(self, case: TestCase, text: str, code: str) -> str:
        return code.strip("\n") + "\n"

    def test_spec(self, case: TestCase) -> TestSpec:
        return TestSpec(
            kind=TestKind.CSHARP_REPO,
            code="",
            repo=case.snapshot,
            path=case.test_path,
            select=(case.test_path,),
            focal=case.focal,
        )
