"""The C# fix scenario's diagnostics: Mono's C# compiler at its highest warning level
(`mcs -warn:4`) over the whole project a file belongs to (its referenced projects compiled
first), on a private copy of the snapshot. mcs only compiles, never runs the code; the
project's settings (defines, unsafe code, framework references) are read from its `.csproj`
by the same reader the sandbox uses. Missing types and references are configuration, and left
out. Roslyn's analyzers, the seed's, are not in Debian and NuGet is not reachable: mcs's
warnings are the closest real analyzer here. The analyzer is pluggable (`ANALYZERS`,
`PINBENCH_CSHARP_ANALYZER`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from defusedxml import ElementTree

from pinbench.core.snapshots import Snapshot
from pinbench.sandbox.inside import _csharp as projects_reader
from pinbench.tasks.ide.lint import Diagnostic, LintError

_LINE = re.compile(
    r"^(?P<path>.+?)\((?P<line>\d+),(?P<column>\d+)\): (?P<severity>warning|error) "
    r"(?P<rule>CS\d+): (?P<message>.*)$"
)
# a type, namespace or assembly that cannot be found: the build's configuration, not the code
_CONFIGURATION = {"CS0246", "CS0234", "CS0006", "CS0012", "CS0518", "CS1591"}
_LIMIT_SECONDS = 300

Project = dict[str, Any]
Analyzer = Callable[[Path, Project, list[str]], list[Diagnostic]]


def projects(snapshot: Snapshot) -> list[Project]:
    """The snapshot's `.csproj` projects (defusedxml: a project file is untrusted XML)."""
    return list(
        projects_reader.read_projects(list(snapshot.files), snapshot.read, ElementTree.fromstring)
    )


def _mcs(root: Path, project: Project, references: list[str]) -> list[Diagnostic]:
    mcs = shutil.which("mcs")
    if mcs is None:
        raise LintError("mcs is not installed (Debian: mono-complete)")
    flags = projects_reader.compile_flags(project)
    out = root / ".pinbench-out" / f"{project['assembly']}.dll"
    out.parent.mkdir(exist_ok=True)
    listing = root / f".pinbench-{project['assembly']}.sources"
    listing.write_text("\n".join(f'"{s}"' for s in project["sources"]))
    argv = [mcs, *flags, "-warn:4", f"-out:{out}", *(f"-r:{r}" for r in references), f"@{listing}"]
    try:
        done = subprocess.run(
            argv,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=_LIMIT_SECONDS,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "HOME": str(root)},
        )
    except subprocess.TimeoutExpired as exc:
        raise LintError(f"mcs took over {_LIMIT_SECONDS} s") from exc
    return parse(done.stdout + "\n" + done.stderr)


def parse(output: str) -> list[Diagnostic]:
    """mcs's report (`file(line,col): warning CS0168: message`) as diagnostics, de-duplicated
    (mcs may say a thing twice)."""
    found: dict[tuple[str, int, int, str], Diagnostic] = {}
    for line in output.splitlines():
        match = _LINE.match(line.strip())
        if not match:
            continue
        diagnostic = Diagnostic(
            tool="mcs",
            rule=match.group("rule"),
            message=match.group("message"),
            path=match.group("path").replace("\\", "/"),
            line=int(match.group("line")),
            column=int(match.group("column")),
            severity=match.group("severity"),
        )
        found.setdefault(
            (diagnostic.path, diagnostic.line, diagnostic.column, diagnostic.rule), diagnostic
        )
    return list(found.values())


ANALYZERS: dict[str, Analyzer] = {"mcs": _mcs}


def lint(
    snapshot: Snapshot, files: Iterable[str], replace: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """The analyzer's diagnostics in `files` (each project they belong to compiled whole, its
    referenced projects first), on a private copy of the snapshot's C# files."""
    wanted = set(files)
    name = os.environ.get("PINBENCH_CSHARP_ANALYZER", "mcs")
    analyzer = ANALYZERS.get(name)
    if analyzer is None:
        raise LintError(f"no C# analyzer {name!r} (analyzers: {', '.join(sorted(ANALYZERS))})")
    read = [p for p in projects(snapshot) if not p.get("error")]
    found: list[Diagnostic] = []
    with tempfile.TemporaryDirectory(prefix="pinbench-mcs-") as scratch:
        root = Path(scratch)
        for rel in sorted({*(p for p in snapshot.files if p.endswith(".cs")), *wanted}):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            text = (replace or {}).get(rel)
            if text is None:
                shutil.copyfile(snapshot.root / rel, target)
            else:
                target.write_text(text, encoding="utf-8")
        built: dict[str, str] = {}
        for project in projects_reader.order(read):
            references = [built[r] for r in project["project_refs"] if r in built]
            if not wanted.intersection(project["sources"]):
                if not project["test"]:  # a test project is needed by none
                    _mcs_quietly(root, project, references, built)
                continue
            found += [d for d in analyzer(root, project, references) if d.path in wanted]
            built[project["path"]] = str(root / ".pinbench-out" / f"{project['assembly']}.dll")
    return [d for d in found if d.rule not in _CONFIGURATION]


def _mcs_quietly(
    root: Path, project: Project, references: list[str], built: dict[str, str]
) -> None:
    """A project the files do not belong to, compiled only for the projects that need it
    (its diagnostics are not asked for)."""
    _mcs(root, project, references)
    out = root / ".pinbench-out" / f"{project['assembly']}.dll"
    if out.exists():
        built[project["path"]] = str(out)
