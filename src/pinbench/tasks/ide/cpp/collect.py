"""Case collection from a built CMake repository: doc, generate and workspace as every brace
language collects them (`brace_cases.py`), with Doxygen; fix: clang-tidy's diagnostics in
files that compile with the flags read from the project; test: exported functions of the
files a library target compiles (or of headers), the generated GoogleTest file built as an
executable of its own beside the suite's test files."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from pinbench.core.tests import Focal, TestKind
from pinbench.tasks.ide import brace_cases
from pinbench.tasks.ide.brace_cases import Kit, functions, long
from pinbench.tasks.ide.braces import tagged_comment, words
from pinbench.tasks.ide.cases import Case, Kind, Language, TestCase
from pinbench.tasks.ide.cpp import edits, source, tidy
from pinbench.tasks.ide.outline import Function
from pinbench.tasks.ide.selection import Collection, Context, spread


def collect(context: Context, kinds: Iterable[Kind]) -> Collection:
    return brace_cases.collect(KIT, context, kinds, _fix, _test)


def sources(context: Context) -> list[str]:
    """Hand-written C/C++ sources and headers of the project (not tests or vendored code)."""
    return [p for p in source.code_files(context.snapshot) if context.hand_written(p)]


def synthesize(function: Function, said: str) -> str:
    """A Doxygen comment for the function (`braces.tagged_comment`)."""
    return tagged_comment(function, said, f"Carry out the {words(function.name)} step.")


def documented(context: Context, function: Function) -> Function:
    """A definition without its own comment takes its header declaration's."""
    if function.doc:
        return function
    declared = edits.declaration_of(context.snapshot, function.qualname)
    return replace(function, doc=declared.doc) if declared else function


def _language(path: str) -> Language:
    return Language.CPP


KIT = Kit(
    edits=edits.EDITS,
    sources=sources,
    doc_passes=lambda path, text, qualname: not source.check_doc(path, text, qualname),
    synthesize=synthesize,
    language_of=_language,
    distinct_names=True,
    documented=documented,
)


# ------------------------------------------------------------------ fix


def _fix(context: Context, result: Collection) -> list[Case]:
    return brace_cases.lint_fix_cases(
        KIT,
        context,
        result,
        lambda files: tidy.lint(context.snapshot, files),
        source.region,
        drop_broken=True,
    )


# ------------------------------------------------------------------ test


def _suite_files(context: Context) -> list[str]:
    """The suite's test files: those its tests were listed from."""
    return sorted({t.split("::", 1)[0] for t in context.build.baseline.outcomes} - {"ctest"})


def _testable(context: Context, path: str, function: Function) -> bool:
    if not long(function) or not function.exported or function.name.startswith("operator"):
        return False
    scope = function.qualname.split("(", 1)[0].split("::")
    if function.name.startswith("~") or (len(scope) > 1 and scope[-2] == function.name):
        return False  # a destructor or constructor
    libraries = [t for t in context.build.baseline.targets.values() if t.library]
    header = path.endswith(source.HEADER_SUFFIXES)
    return any(path in t.sources for t in libraries) or (header and bool(libraries))


def _test(context: Context, result: Collection) -> list[Case]:
    suite = _suite_files(context)
    test_path = edits.test_path_for(suite)
    candidates = []
    for path, function in functions(KIT, context, result):
        if _testable(context, path, function):
            candidates.append((path, function))
    if not candidates:
        return []
    if not _runs(context, test_path, candidates[0][0]):
        result.drop("test: a trivial GoogleTest file linked with the library does not pass")
        return []
    items = [
        (path, (path, function, _reference(context, path, function, test_path)))
        for path, function in candidates
    ]
    cases: list[Case] = []
    for index, (path, function, reference) in enumerate(spread(items, context.limits)):
        cases.append(
            TestCase(
                **context.base(Kind.TEST, index, path, Language.CPP),
                qualname=function.qualname,
                focal=Focal(path=path, name=function.name, lines=function.lines),
                reference=reference,
                test_path=test_path,
            )
        )
    return cases


def _reference(context: Context, path: str, function: Function, test_path: str) -> str:
    """A suite file that calls the function (`brace_cases.reference_file`), built alone into
    its executable (no other source, no `main` of its own) ('' when none)."""
    alone = {
        t.sources[0]
        for t in context.build.baseline.targets.values()
        if t.type == "EXECUTABLE" and len(t.sources) == 1
    }

    near = brace_cases.beside(test_path)  # its includes are relative to its directory

    def fits(file: str) -> bool:
        return near(file) and file in alone and not source.defines_main(context.snapshot.read(file))

    file = brace_cases.reference_file(context, path, function, test_path, fits)
    return context.snapshot.read(file) if file else ""


def trivial_test() -> str:
    """A GoogleTest file that only runs: it passing means a generated test can be built
    against the library and run."""
    return "#include <gtest/gtest.h>\n\nTEST(PinbenchGenerated, Runs) {\n  SUCCEED();\n}\n"


def _runs(context: Context, test_path: str, focal: str) -> bool:
    return brace_cases.trivial_passes(context, TestKind.CPP_REPO, trivial_test(), test_path, focal)
