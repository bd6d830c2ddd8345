"""The C/C++ fix scenario's diagnostics: clang-tidy (bug-prone patterns, the clang static
analyzer, performance, misc) with clang's `-Wall -Wextra` warnings, on a private copy of the
snapshot, one process per file. clang-tidy only parses the code, never runs it; the
repository's `.clang-tidy` is not read (pinbench's checks, always the same).

The compile flags come from the snapshot alone, the same at collection and at scoring: the
repository root, its `include` and `src` directories and the file's own directory on the
include path, the language standard its CMakeLists.txt sets (C++17 and C11 otherwise).
Configuration diagnostics (a header not found, an `#error` of an unconfigured build) are left
out. The analyzer is pluggable (`ANALYZERS`, `PINBENCH_CPP_ANALYZER`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pinbench.core.snapshots import Snapshot
from pinbench.tasks.ide.cpp import source
from pinbench.tasks.ide.lint import Diagnostic, LintError

CHECKS = ",".join(
    (
        "-*",
        "clang-diagnostic-*",  # the compiler's own warnings (-Wall -Wextra)
        "bugprone-*",
        "clang-analyzer-*",
        "performance-*",
        "misc-*",
        # style preferences and noise, not defects
        "-bugprone-easily-swappable-parameters",
        "-bugprone-reserved-identifier",
        "-misc-unused-parameters",
        "-misc-non-private-member-variables-in-classes",
        "-misc-no-recursion",
        "-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling",
    )
)
_LINE = re.compile(
    r"^(?P<path>/[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<severity>warning|error): "
    r"(?P<message>.*?)(?: \[(?P<rule>[\w.,-]+)\])?$"
)
_CONFIGURATION = re.compile(r"file not found|^#error|^\"?#error")
_LIMIT_SECONDS = 300

Analyzer = Callable[[Path, str, list[str]], list[Diagnostic]]


def standard(snapshot: Snapshot, c: bool) -> str:
    """The newest language standard the project's CMake files set (`CMAKE_CXX_STANDARD 14`,
    a target's `CXX_STANDARD 11`, `cxx_std_20`), else C++17 / C11."""
    language = "C" if c else "CXX"
    pattern = re.compile(
        rf"\b(?:CMAKE_)?{language}_STANDARD\s+\"?(\d+)|\b{language.lower()}_std_(\d+)"
    )
    found = [
        int(a or b)
        for path in snapshot.files
        if path.rsplit("/", 1)[-1] == "CMakeLists.txt" or path.endswith(".cmake")
        for a, b in pattern.findall(snapshot.read(path))
    ]
    if not found:
        return "-std=c11" if c else "-std=c++17"
    newest = max(found, key=lambda year: year - 100 if year >= 89 else year)  # 98 < 11
    return f"-std=c{newest}" if c else f"-std=c++{newest}"


def flags(snapshot: Snapshot, path: str) -> list[str]:
    """How a file is read: its language and standard, the include directories."""
    is_c = path.endswith(".c")
    folders = {"", path.rsplit("/", 1)[0] if "/" in path else ""}
    for file in snapshot.files:
        parts = file.split("/")[:-1]
        for depth, part in enumerate(parts[:3]):
            if part in ("include", "src"):
                folders.add("/".join(parts[: depth + 1]))
    language = "c" if is_c else "c++"
    return [
        "-x",
        language,
        standard(snapshot, is_c),
        "-Wall",
        "-Wextra",
        *(f"-I{{root}}/{f}".rstrip("/") for f in sorted(folders)),
    ]


def _clang_tidy(root: Path, path: str, arguments: list[str]) -> list[Diagnostic]:
    tool = shutil.which("clang-tidy")
    if tool is None:
        raise LintError("clang-tidy is not installed (Debian: clang-tidy)")
    argv = [tool, "--quiet", f"--checks={CHECKS}", f"--header-filter=^{re.escape(str(root))}/"]
    argv += [str(root / path), "--", *(a.replace("{root}", str(root)) for a in arguments)]
    try:
        done = subprocess.run(
            argv,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=_LIMIT_SECONDS,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
        )
    except subprocess.TimeoutExpired as exc:
        raise LintError(f"clang-tidy took over {_LIMIT_SECONDS} s on {path}") from exc
    return parse(done.stdout, root)


def parse(output: str, root: Path) -> list[Diagnostic]:
    """clang-tidy's report as diagnostics (notes and their source lines left out); paths
    relative to `root`."""
    found = []
    prefix = str(root) + "/"
    for line in output.splitlines():
        match = _LINE.match(line)
        if not match or not match.group("path").startswith(prefix):
            continue
        rule = match.group("rule") or (
            "clang-diagnostic-error" if match.group("severity") == "error" else "warning"
        )
        found.append(
            Diagnostic(
                tool="clang-tidy",
                rule=rule.split(",", 1)[0],
                message=match.group("message"),
                path=match.group("path")[len(prefix) :],
                line=int(match.group("line")),
                column=int(match.group("column")),
                severity=match.group("severity"),
            )
        )
    return found


ANALYZERS: dict[str, Analyzer] = {"clang-tidy": _clang_tidy}


def _excluded(diagnostic: Diagnostic) -> bool:
    return bool(_CONFIGURATION.search(diagnostic.message))


def lint(
    snapshot: Snapshot, files: Iterable[str], replace: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """The analyzer's diagnostics in `files`, on a private copy of the snapshot's C/C++
    files (each file with `replace`'s text when it has one), de-duplicated."""
    wanted = sorted(set(files))
    name = os.environ.get("PINBENCH_CPP_ANALYZER", "clang-tidy")
    analyzer = ANALYZERS.get(name)
    if analyzer is None:
        raise LintError(f"no C/C++ analyzer {name!r} (analyzers: {', '.join(sorted(ANALYZERS))})")
    with tempfile.TemporaryDirectory(prefix="pinbench-tidy-") as scratch:
        root = Path(scratch)
        for rel in sorted({*(p for p in snapshot.files if p.endswith(source.SUFFIXES)), *wanted}):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            text = (replace or {}).get(rel)
            if text is None:
                shutil.copyfile(snapshot.root / rel, target)
            else:
                target.write_text(text, encoding="utf-8")
        with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
            reports = list(pool.map(lambda p: analyzer(root, p, flags(snapshot, p)), wanted))
    seen: set[tuple[str, int, int, str, str]] = set()
    found = []
    for path, report in zip(wanted, reports, strict=True):
        for diagnostic in report:
            key = (
                diagnostic.path,
                diagnostic.line,
                diagnostic.column,
                diagnostic.rule,
                diagnostic.message,
            )
            if diagnostic.path == path and key not in seen and not _excluded(diagnostic):
                seen.add(key)
                found.append(diagnostic)
    return found
