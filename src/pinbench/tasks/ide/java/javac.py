"""The Java fix scenario's diagnostics: the JDK's own compiler with every lint category on
(`javac -Xlint:all`), over all the repository's main sources against its environment's class
path, for the release the project declares. No annotation processor runs and no class file is
written (javac stops after flow analysis, and goes that far despite errors, so an answer that
breaks the code still has its warnings counted beside its errors). Import and configuration
diagnostics are left out. The analyzer is pluggable (`ANALYZERS`, `PINBENCH_JAVA_ANALYZER`):
SpotBugs, the seed's, is not packaged for Debian; javac's lint is the closest analyzer here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from pinbench.core.snapshots import Snapshot
from pinbench.envs.java.builder import MANIFEST
from pinbench.tasks.ide.java import source
from pinbench.tasks.ide.lint import Diagnostic, LintError

_HEADER = re.compile(
    r"^(?P<path>.+?\.java):(?P<line>\d+): (?P<severity>warning|error): (?P<rest>.*)$"
)
_CATEGORY = re.compile(r"^\[(?P<rule>[\w-]+)\] (?P<message>.*)$")
# configuration, not code: class path, options, annotation processing, class files
_CONFIGURATION = {"options", "path", "processing", "classfile"}
_IMPORT_ERROR = re.compile(r"^(package [\w.]+ does not exist|cannot access [\w.]+)$")
_LIMIT_SECONDS = 300

Analyzer = Callable[[Path, list[str], list[str], str], tuple[list[Diagnostic], dict[str, str]]]


def _javac(
    root: Path, files: list[str], classpath: list[str], release: str
) -> tuple[list[Diagnostic], dict[str, str]]:
    javac = shutil.which("javac")
    if javac is None:
        raise LintError("javac is not installed (Debian: openjdk-17-jdk-headless)")
    argfile = root / ".pinbench-javac.args"
    argfile.write_text("\n".join(f'"{f}"' for f in files))
    argv = [javac, "-J-Xmx1g", "-J-XX:+UseSerialGC", "--release", release, "-Xlint:all"]
    argv += ["-Xmaxwarns", "100000", "-Xmaxerrs", "100000", "-proc:none", "-implicit:none"]
    argv += ["-XDshould-stop.ifError=FLOW", "-XDshould-stop.ifNoError=FLOW", "-encoding", "UTF-8"]
    argv += ["-d", str(root / ".pinbench-classes"), "-cp", os.pathsep.join(classpath)]
    try:
        done = subprocess.run(
            [*argv, f"@{argfile}"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=_LIMIT_SECONDS,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
        )
    except subprocess.TimeoutExpired as exc:
        raise LintError(f"javac took over {_LIMIT_SECONDS} s") from exc
    return parse(done.stderr), {}


def parse(output: str) -> list[Diagnostic]:
    """javac's report as diagnostics: `path:line: warning: [category] message`, the source
    line, then the caret under the column; the message's continuation lines are kept."""
    found: list[Diagnostic] = []
    lines = output.splitlines()
    i = 0
    while i < len(lines):
        header = _HEADER.match(lines[i])
        i += 1
        if not header:
            continue
        extra: list[str] = []
        column = 0
        while (
            i < len(lines)
            and not _HEADER.match(lines[i])
            and not re.match(r"^\d+ (warning|error)s?$", lines[i])
        ):
            if lines[i].strip() == "^" or re.fullmatch(r"\s*\^", lines[i]):
                column = lines[i].index("^") + 1
            elif column == 0 and not extra:
                pass  # the quoted source line
            else:
                extra.append(lines[i].strip())
            i += 1
        rest = header.group("rest")
        category = _CATEGORY.match(rest)
        severity = header.group("severity")
        rule = (
            category.group("rule")
            if category
            else ("compile-error" if severity == "error" else "warning")
        )
        message = category.group("message") if category else rest
        if extra and extra[0]:  # the first continuation line (later ones explain type variables)
            message += f" ({extra[0]})"
        found.append(
            Diagnostic(
                tool="javac",
                rule=rule,
                message=message,
                path=header.group("path"),
                line=int(header.group("line")),
                column=column,
                severity=severity,
            )
        )
    return found


def _excluded(diagnostic: Diagnostic) -> bool:
    return diagnostic.rule in _CONFIGURATION or bool(
        diagnostic.severity == "error" and _IMPORT_ERROR.match(diagnostic.message.split(" (", 1)[0])
    )


ANALYZERS: dict[str, Analyzer] = {"javac": _javac}


def _environment(env: Path) -> tuple[list[str], str]:
    try:
        manifest = json.loads((env / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise LintError(f"the Java environment {env} has no readable manifest: {exc}") from exc
    paths = [str(env / p) for p in manifest["classpath"]]
    paths += [str(env / p) for p in manifest["harness_classpath"] if p.endswith(".jar")]
    return paths, str(manifest["release"])


def lint(
    snapshot: Snapshot, env: Path, files: Iterable[str], replace: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """The analyzer's diagnostics in `files` (the main sources all compile together, the
    test sources too when one of `files` is a test), on a private copy of the snapshot."""
    wanted = set(files)
    name = os.environ.get("PINBENCH_JAVA_ANALYZER", "javac")
    analyzer = ANALYZERS.get(name)
    if analyzer is None:
        raise LintError(f"no Java analyzer {name!r} (analyzers: {', '.join(sorted(ANALYZERS))})")
    classpath, release = _environment(env)
    compile_set = source.code_files(snapshot)
    if any(source.is_test_file(f) for f in wanted):
        compile_set += source.test_files(snapshot)
    with tempfile.TemporaryDirectory(prefix="pinbench-javac-") as scratch:
        root = Path(scratch)
        for rel in sorted({*compile_set, *wanted}):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            text = (replace or {}).get(rel)
            if text is None:
                shutil.copyfile(snapshot.root / rel, target)
            else:
                target.write_text(text, encoding="utf-8")
        found, failed = analyzer(root, sorted({*compile_set, *wanted}), classpath, release)
    if failed:
        path, why = next(iter(failed.items()))
        raise LintError(f"{path} cannot be analyzed: {why}")
    return [d for d in found if d.path in wanted and not _excluded(d)]
