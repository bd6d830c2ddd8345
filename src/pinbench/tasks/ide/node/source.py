"""JavaScript and TypeScript source on the host, read and never run: a file's functions (with
their JSDoc, parameters, what they return and throw, whether the module exports them), the
region around a line, the doc scenario's JSDoc check and the fix scenario's diagnostics (ESLint,
and tsc for TypeScript). The TypeScript compiler and ESLint answer, in pinbench's long-lived
parser process (`_ide.js`)."""

from __future__ import annotations

import functools
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pinbench.core.snapshots import Snapshot
from pinbench.envs.node.syntax import ParserUnavailable, ask_typescript, syntax_error
from pinbench.tasks.ide.cases import Language
from pinbench.tasks.ide.lint import Diagnostic, LintError
from pinbench.tasks.ide.outline import Function, Outline

__all__ = ["Function", "Outline"]

HANDLER = Path(__file__).with_name("_ide.js").resolve()
SOURCE_SUFFIXES = (".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx")
_TS_SUFFIXES = (".ts", ".cts", ".mts", ".tsx")
_TEST_DIRS = {"test", "tests", "__tests__", "spec", "specs"}
_NOT_CODE_DIRS = {"fixtures", "fixture", "__fixtures__", "__mocks__", "coverage", "vendor"}
_TEST_NAME = re.compile(r"\.(test|spec|test-d)\.[cm]?[jt]sx?$")
_CONFIG_NAME = re.compile(
    r"(^|/)(\.?[\w-]+\.config\.[cm]?[jt]s|\.eslintrc\.[cm]?js|[Gg]runtfile\.js|gulpfile\.js)$"
)


def language_of(path: str) -> Language:
    return Language.TYPESCRIPT if path.endswith(_TS_SUFFIXES) else Language.JAVASCRIPT


def is_source(path: str) -> bool:
    """A JavaScript or TypeScript file (not a declaration file)."""
    return path.endswith(SOURCE_SUFFIXES) and not path.endswith(".d.ts")


def is_test_file(path: str) -> bool:
    """Where Jest and Mocha look for tests: `*.test.*`/`*.spec.*` files, and the files of a
    `test/`, `tests/`, `__tests__/` or `spec/` directory (not their fixtures or mocks)."""
    parts = path.split("/")
    if not is_source(path) or _NOT_CODE_DIRS.intersection(parts[:-1]):
        return False
    return bool(_TEST_NAME.search(parts[-1])) or bool(_TEST_DIRS.intersection(parts[:-1]))


def test_files(snapshot: Snapshot) -> list[str]:
    return sorted(p for p in snapshot.files if is_test_file(p))


def code_files(snapshot: Snapshot) -> list[str]:
    """Source files that are neither tests, test support, configuration nor examples."""
    skip = _TEST_DIRS | _NOT_CODE_DIRS | {"examples", "example", "docs", "benchmark", "bench"}
    return sorted(
        p
        for p in snapshot.files
        if is_source(p)
        and not is_test_file(p)
        and not skip.intersection(p.split("/")[:-1])
        and not _CONFIG_NAME.search(p)
    )


def _ask(request: dict[str, Any]) -> Any:
    try:
        return ask_typescript(HANDLER, request)
    except ParserUnavailable as exc:
        raise LintError(str(exc)) from None


@functools.lru_cache(maxsize=512)
def outline(path: str, source: str) -> Outline:
    """The file's functions and classes (remembered per path and text)."""
    answer = _ask({"op": "outline", "path": path, "source": source})
    functions = []
    for f in answer["functions"]:
        functions.append(
            Function(
                qualname=f["qualname"],
                name=f["name"],
                line=f["line"],
                end=f["end"],
                lines=tuple(f["lines"]),
                body=tuple(f["body"]) if f["body"] else None,
                body_whole_lines=f["body_whole_lines"],
                doc=f["doc"],
                doc_lines=tuple(f["doc_lines"]) if f["doc_lines"] else None,
                indent=f["indent"],
                params=tuple(f["params"]),
                returns=f["returns"],
                yields=f["yields"],
                throws=tuple(f["throws"]),
                exported=f["exported"],
                in_class=f["in_class"],
                private=f["private"],
            )
        )
    classes = tuple((c["qualname"], c["line"], c["end"]) for c in answer["classes"])
    return Outline(tuple(functions), classes)


def region(path: str, source: str, line: int) -> tuple[int, int] | None:
    """The innermost function (with its declaration) or top-level statement around `line`."""
    found = _ask({"op": "region", "path": path, "source": source, "line": line})
    return (int(found[0]), int(found[1])) if found else None


def parses(path: str, source: str) -> bool:
    """Whether the file parses in its language (Node's parser for JavaScript, TypeScript's
    for TypeScript)."""
    try:
        return syntax_error(source, language_of(path) is Language.TYPESCRIPT) is None
    except ParserUnavailable as exc:
        raise LintError(str(exc)) from None


@dataclass(frozen=True)
class DocCheck:
    found: bool
    attached: bool  # the function has a JSDoc comment right before it
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.found and self.attached and not self.problems


def check_doc(path: str, source: str, qualname: str) -> DocCheck:
    """eslint-plugin-jsdoc's verdict on the function's JSDoc (a description; every parameter,
    the return value, what it yields and throws documented; valid types), plus each thrown
    class named and a summary that says more than the name."""
    answer = _ask({"op": "doccheck", "path": path, "source": source, "qualname": qualname})
    return DocCheck(answer["found"], answer["attached"], tuple(answer["problems"]))


def diagnose(
    snapshot: Snapshot,
    modules: Path,
    files: Iterable[str],
    replace: Mapping[str, str] | None = None,
) -> list[Diagnostic]:
    """ESLint's (recommended rules) and, for TypeScript files, tsc's (strict) diagnostics of
    the files; LintError when a file cannot be linted (see `lint`)."""
    found, failed = lint(snapshot, modules, files, replace)
    if failed:
        path, why = next(iter(failed.items()))
        raise LintError(f"{path} cannot be linted: {why}")
    return found


def lint(
    snapshot: Snapshot,
    modules: Path,
    files: Iterable[str],
    replace: Mapping[str, str] | None = None,
) -> tuple[list[Diagnostic], dict[str, str]]:
    """(diagnostics, files that could not be linted -> why), on a private copy of the snapshot
    whose `node_modules` is the repository's environment's (types of its dependencies); import
    and configuration diagnostics left out, the repository's inline ESLint directives not read."""
    targets = [f for f in files if is_source(f)]
    if not targets:
        return [], {}
    with tempfile.TemporaryDirectory(prefix="pinbench-lint-") as scratch:
        root = Path(scratch)
        for rel in snapshot.files:
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(snapshot.root / rel, target)
        for rel, text in (replace or {}).items():
            (root / rel).write_text(text, encoding="utf-8")
        if modules.is_dir():
            (root / "node_modules").symlink_to(modules)
        typescript = any(language_of(f) is Language.TYPESCRIPT for f in targets)
        found = _ask({"op": "lint", "root": str(root), "files": targets, "typescript": typescript})
    failed = {str(e["path"]): str(e["message"]) for e in found["errors"]}
    return [Diagnostic(**d) for d in found["diagnostics"]], failed
