"""Case collection from a built repository, one function per scenario.

doc: functions longer than three lines in hand-written source files; fix: pylint and pyright
errors and warnings; generate: documented functions that passing tests call; test: functions
of files where a trivial appended test passes; workspace: queries from the repository's
`.pinbench/workspace.json`, else derived from documented functions, with lexically close
snippets as distractors."""

from __future__ import annotations

import ast
import builtins
import random
import re
import symtable
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.outcome import Limits
from pinbench.core.paths import package_data
from pinbench.core.tests import Focal, TestKind, TestSpec
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide import docstrings, lint
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import (
    Case,
    DocCase,
    GenerateCase,
    Kind,
    Language,
    Snippet,
    TestCase,
)
from pinbench.tasks.ide.cpp import collect as cpp_collect
from pinbench.tasks.ide.csharp import collect as csharp_collect
from pinbench.tasks.ide.edits import (
    Located,
    docstring_node,
    first_lines,
    functions,
    start_line,
    statement_region,
)
from pinbench.tasks.ide.java import collect as java_collect
from pinbench.tasks.ide.node import collect as node_collect
from pinbench.tasks.ide.repo import RepoBuild, RepoRejected
from pinbench.tasks.ide.selection import (
    DEFAULT_QUOTAS,
    Collection,
    Context,
    Query,
    Quotas,
    fix_cases,
    question,
    spread,
    workspace_cases,
)

TRIVIAL_TEST = "\n\ndef test_pinbench_trivial():\n    assert True\n"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _sources(context: Context) -> list[str]:
    """Hand-written, non-test Python files."""
    return [
        p
        for p in context.snapshot.python_files()
        if not is_test_file(p) and context.hand_written(p)
    ]


def _tree(context: Context, path: str) -> ast.Module | None:
    try:
        return ast.parse(context.snapshot.read(path))
    except (SyntaxError, ValueError):
        return None


def is_test_file(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(p in ("tests", "test", "testing") for p in parts[:-1])
    )


def collect(context: Context, kinds: Iterable[Kind]) -> Collection:
    """The cases of the kinds asked for, by the collectors of the repository's ecosystem."""
    if context.build.ecosystem == "node":
        return node_collect.collect(context, kinds)
    if context.build.ecosystem == "java":
        return java_collect.collect(context, kinds)
    if context.build.ecosystem == "cpp":
        return cpp_collect.collect(context, kinds)
    if context.build.ecosystem == "csharp":
        return csharp_collect.collect(context, kinds)
    result = Collection()
    collectors: dict[Kind, Callable[[Context, Collection], list[Case]]] = {
        Kind.DOC: _doc,
        Kind.FIX: _fix,
        Kind.GENERATE: _generate,
        Kind.TEST: _test,
        Kind.WORKSPACE: _workspace,
    }
    for kind in kinds:
        result.cases += collectors[kind](context, result)
    return result


def _long_functions(context: Context) -> Iterator[tuple[str, Located]]:
    for path in _sources(context):
        tree = _tree(context, path)
        if tree is None:
            continue
        for located in functions(tree):
            node = located.node
            doc = _docstring_lines(node)
            body_lines = (node.end_lineno or node.lineno) - node.body[0].lineno + 1 - doc
            if body_lines > 3:
                yield path, located


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    doc = docstring_node(node)
    return 0 if doc is None else (doc.end_lineno or doc.lineno) - doc.lineno + 1


# ------------------------------------------------------------------ doc


def _doc(context: Context, result: Collection) -> list[Case]:
    items: list[tuple[str, tuple[str, str, str]]] = []
    for path, located in _long_functions(context):
        node = located.node
        if located.qualname.rsplit(".", 1)[-1].startswith("__") and node.name != "__init__":
            continue
        facts = docstrings.facts(node, method="." in located.qualname)
        existing = ast.get_docstring(node) or ""
        if existing and docstrings.check_format(existing, facts).ok:
            reference = existing
        else:
            summary = docstrings.summary(existing) if existing else ""
            reference = docstrings.synthesize(facts, summary or _summary_for(node.name))
        items.append((path, (path, located.qualname, reference)))
    cases: list[Case] = []
    for index, item in enumerate(spread(items, context.limits)):
        path, qualname, reference = item
        cases.append(
            DocCase(**context.base(Kind.DOC, index, path), qualname=qualname, reference=reference)
        )
    return cases


def _summary_for(name: str) -> str:
    words = name.strip("_").replace("_", " ") or name
    return f"Carry out the {words} step of this module."


# ------------------------------------------------------------------ fix


def _fix(context: Context, result: Collection) -> list[Case]:
    files = _sources(context)
    found = lint.diagnose(
        context.snapshot, context.env.path, files, context.build.toolchain_version
    )

    def region(diagnostic: lint.Diagnostic) -> tuple[int, int] | None:
        try:
            found = statement_region(context.snapshot.read(diagnostic.path), diagnostic.line)
        except SyntaxError:
            return None
        return found.start, found.end

    return fix_cases(context, result, found, region, lambda path: Language.PYTHON)


# ------------------------------------------------------------------ generate


def _generate(context: Context, result: Collection) -> list[Case]:
    baseline = context.build.baseline
    items: list[tuple[str, tuple[str, str, tuple[str, ...]]]] = []
    for path, located in _long_functions(context):
        node = located.node
        if ast.get_docstring(node) is None or len(node.body) < 2:
            continue
        if node.body[0].lineno == node.lineno:
            continue
        covering = baseline.covering(path, node.name, set(first_lines(node)))
        if not covering:
            result.drop("generate: no passing test calls it")
            continue
        items.append((path, (path, located.qualname, tuple(covering))))
    cases: list[Case] = []
    for index, item in enumerate(spread(items, context.limits)):
        path, qualname, tests = item
        cases.append(
            GenerateCase(
                **context.base(Kind.GENERATE, index, path),
                qualname=qualname,
                tests=tests,
            )
        )
    return cases


# ------------------------------------------------------------------ test


def _test(context: Context, result: Collection) -> list[Case]:
    candidates: dict[str, list[Located]] = {}
    for path, located in _long_functions(context):
        if located.node.name.startswith("_") or located.node.name.startswith("test"):
            continue
        candidates.setdefault(path, []).append(located)
    reliable = _reliable_files(context, list(candidates)[: context.limits.test_files], result)
    items: list[tuple[str, tuple[str, Located]]] = []
    for path in reliable:
        for located in candidates[path]:
            items.append((path, (path, located)))
    cases: list[Case] = []
    for index, item in enumerate(spread(items, context.limits)):
        path, located = item
        node = located.node
        cases.append(
            TestCase(
                **context.base(Kind.TEST, index, path),
                qualname=located.qualname,
                focal=Focal(path=path, name=node.name, lines=first_lines(node)),
                reference=_reference_test(context, path, node),
            )
        )
    return cases


def _reliable_files(context: Context, paths: list[str], result: Collection) -> list[str]:
    """Files where a trivial test appended to the file passes: the others (modules that cannot
    be imported on their own, that define test-like names, ...) would blame the model."""
    reliable = []
    for path in paths:
        tree = _tree(context, path)
        if tree is None or any(
            isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name.lower().startswith("test")
            for n in tree.body
        ):
            result.drop("test: file defines test-like names")
            continue
        test = TestSpec(
            kind=TestKind.REPO, code="", repo=context.snapshot.digest, path=path, select=(path,)
        )
        program = context.snapshot.read(path) + TRIVIAL_TEST
        outcome = context.service.run(
            context.env, program, test, Limits(wall_seconds=120, cpu_seconds=120), ("pytest",)
        )
        if outcome.passed and outcome.tests.get("passed") == 1:
            reliable.append(path)
        else:
            result.drop("test: a trivial test appended to the file does not pass")
    return reliable


def _reference_test(
    context: Context, path: str, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> str:
    """A passing test of the suite that calls the function and takes no fixtures, as source
    that works appended to the function's own file (a perfect answer for `reference`)."""
    baseline = context.build.baseline
    for nodeid in baseline.covering(path, node.name, set(first_lines(node))):
        file, _, name = nodeid.partition("::")
        if "::" in name or "[" in name or file not in context.snapshot.files:
            continue
        tree = _tree(context, file)
        if tree is None:
            continue
        test = next(
            (f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == name), None
        )
        if test is None or test.args.args or test.decorator_list:
            continue
        source = context.snapshot.read(file)
        # The test file's imports move into the test: at the end of a package module, module-
        # level imports of the package would be circular.
        imports = [
            ast.get_source_segment(source, s) or ""
            for s in tree.body
            if isinstance(s, ast.Import)
            or (isinstance(s, ast.ImportFrom) and s.module != "__future__")
        ]
        lines = source.splitlines()[start_line(test.body[0]) - 1 : test.end_lineno]
        code = "\n".join([*imports, textwrap.dedent("\n".join(lines))])
        reference = "def test_generated():\n" + textwrap.indent(code, "    ") + "\n"
        if _unbound(reference) <= _module_names(context, path):
            return reference  # else it needs helpers of its test module
    return ""


def _unbound(code: str) -> set[str]:
    """Names the code's functions read from module scope that are not builtins."""
    try:
        table = symtable.symtable(code, "<test>", "exec")
    except SyntaxError:
        return {"<syntax error>"}
    names: set[str] = set()
    pending = list(table.get_children())
    while pending:
        child = pending.pop()
        if isinstance(child, symtable.Function):
            names.update(child.get_globals())
        pending.extend(child.get_children())
    return names - set(dir(builtins))


def _module_names(context: Context, path: str) -> set[str]:
    tree = _tree(context, path)
    if tree is None:
        return set()
    names: set[str] = set()
    for node in tree.body:
        for sub in ast.walk(node) if not isinstance(node, ast.FunctionDef | ast.ClassDef) else []:
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
            elif isinstance(sub, ast.alias):
                names.add((sub.asname or sub.name).split(".")[0])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


# ------------------------------------------------------------------ workspace


def _workspace(context: Context, result: Collection) -> list[Case]:
    return workspace_cases(
        context,
        result,
        _chunks(context),
        lambda: _derived_queries(context),
        lambda path: Language.PYTHON,
    )


def _chunks(context: Context) -> list[Snippet]:
    """One snippet per function and method, and one per class (its first 30 lines)."""
    found: list[Snippet] = []
    for path in _sources(context):
        tree = _tree(context, path)
        if tree is None:
            continue
        lines = context.snapshot.read(path).splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                start = start_line(node)
                text = "\n".join(lines[start - 1 : min(node.end_lineno or start, start + 29)])
                found.append(Snippet(id=f"{path}::{_qualname(tree, node)}", path=path, text=text))
        for located in functions(tree):
            start = start_line(located.node)
            text = "\n".join(lines[start - 1 : min(located.node.end_lineno or start, start + 59)])
            found.append(Snippet(id=f"{path}::{located.qualname}", path=path, text=text))
    return found


def _qualname(tree: ast.Module, target: ast.ClassDef) -> str:
    def walk(body: list[ast.stmt], prefix: str) -> str | None:
        for node in body:
            if node is target:
                return prefix + node.name
            if isinstance(node, ast.ClassDef):
                inner = walk(node.body, f"{prefix}{node.name}.")
                if inner:
                    return inner
        return None

    return walk(tree.body, "") or target.name


def _derived_queries(context: Context) -> list[Query]:
    """From documented public functions: ask what their summary says, expect their name."""
    queries: list[Query] = []
    for path in _sources(context):
        tree = _tree(context, path)
        if tree is None:
            continue
        for located in functions(tree):
            doc = ast.get_docstring(located.node) or ""
            summary = doc.strip().split("\n")[0].strip().rstrip(".")
            if located.node.name.startswith("_") or len(summary.split()) < 4:
                continue
            queries.append(
                (question(summary), [located.node.name], [f"{path}::{located.qualname}"])
            )
    random.Random(0).shuffle(queries)
    return queries


@dataclass
class RepoResult:
    source: Path
    build: RepoBuild | None = None
    cases: list[Case] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    rejected: str | None = None
    seconds: float = 0.0


def collect_repositories(
    sources: list[Path],
    kinds: Iterable[Kind],
    service: ExecutionService,
    quotas: Quotas = DEFAULT_QUOTAS,
    refresh: bool = False,
) -> list[RepoResult]:
    """Build every repository and collect its cases; a repository that cannot be built (or
    whose suite is too slow) is rejected with the reason and the others go on."""
    results = []
    for source in sources:
        started = time.monotonic()
        outcome = RepoResult(source)
        try:
            build, env = build_repo(source, service, refresh=refresh)
            context = Context(build, env, snapshots.load(build.snapshot), service, quotas)
            collection = collect(context, kinds)
            outcome.build, outcome.cases, outcome.dropped = (
                build,
                collection.cases,
                collection.dropped,
            )
        except (RepoRejected, lint.LintError, ValueError) as exc:
            outcome.rejected = str(exc)
        outcome.seconds = time.monotonic() - started
        results.append(outcome)
    return results


def builtin_repositories() -> list[Path]:
    """The small repositories pinbench ships for its own IDE benchmark and tests."""
    root = package_data() / "ide" / "repos"
    return sorted(p for p in root.iterdir() if p.is_dir())
