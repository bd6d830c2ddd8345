"""Diagnostics from pylint and pyright for a repository snapshot, resolved against the
repository's own pinned environment (its site-packages and source roots), for the fix
scenario: which problems a file has, before and after a model's fix.

Both tools only read the code, never run it; they still run on a private copy of the tree,
with pinbench's own settings (the repository's configuration could load plugins), a scrubbed
environment and a deadline."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pinbench.core.snapshots import Snapshot
from pinbench.envs.python.imports import site_packages

# Diagnostics about imports or configuration say nothing about the code a model could fix.
_PYLINT_SKIP = {
    "import-error",
    "no-name-in-module",
    "relative-beyond-top-level",
    "bad-option-value",
    "unrecognized-option",
    "unknown-option-value",
    "useless-option-value",
    "useless-suppression",
    "bad-inline-option",
    "file-ignored",
    "suppressed-message",
    "locally-disabled",
    "deprecated-pragma",
    "cyclic-import",
    "duplicate-code",
}
_PYRIGHT_SKIP = {
    "reportMissingImports",
    "reportMissingModuleSource",
    "reportMissingTypeStubs",
    "reportImportCycles",
    "reportUnusedExpression",
}
_TIMEOUT = 600.0


class LintError(Exception):
    """A linter could not run (missing, crashed, timed out)."""


class Diagnostic(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str  # pylint or pyright
    rule: str  # symbolic name: unused-variable, reportOptionalMemberAccess
    message: str
    path: str
    line: int
    column: int = 0
    severity: str  # error or warning

    @property
    def signature(self) -> tuple[str, str, str]:
        """What identifies a diagnostic across edits that move lines: tool, rule, message."""
        return (self.tool, self.rule, self.message)

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.tool} {self.rule}: {self.message}"


def diagnose(
    snapshot: Snapshot,
    env: Path,
    files: Iterable[str],
    python_version: str,
    replace: dict[str, str] | None = None,
) -> list[Diagnostic]:
    """pylint's and pyright's errors and warnings for `files` of the snapshot, with `replace`
    (path -> text) written over the snapshot's files first."""
    targets = sorted(files)
    if not targets:
        return []
    with tempfile.TemporaryDirectory(prefix="pinbench-lint-") as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(snapshot.root, root)
        for rel, text in (replace or {}).items():
            (root / rel).write_text(text, encoding="utf-8")
        roots = [str(root / p) if p else str(root) for p in snapshot.pythonpath]
        found = _pylint(root, targets, [*roots, *map(str, site_packages(env))])
        found += _pyright(root, targets, env, roots, python_version)
    return sorted(found, key=lambda d: (d.path, d.line, d.column, d.tool, d.rule))


def _pylint(root: Path, targets: list[str], paths: list[str]) -> list[Diagnostic]:
    hook = f"import sys; sys.path[:0] = {paths!r}"
    cmd = [
        sys.executable,
        "-m",
        "pylint",
        "--rcfile=/dev/null",
        "--output-format=json",
        "--disable=C,R,I",
        "--persistent=n",
        "--jobs=1",
        "--exit-zero",
        f"--init-hook={hook}",
        *targets,
    ]
    out = _run(cmd, root, "pylint")
    try:
        rows = json.loads(out or "[]")
    except ValueError as exc:
        raise LintError(f"pylint wrote no JSON: {out[:300]}") from exc
    return [
        Diagnostic(
            tool="pylint",
            rule=row["symbol"],
            message=row["message"],
            path=row["path"],
            line=int(row["line"]),
            column=int(row.get("column") or 0),
            severity="error" if row["type"] in ("error", "fatal") else "warning",
        )
        for row in rows
        if row["symbol"] not in _PYLINT_SKIP and row["type"] in ("error", "warning")
    ]


def _pyright(
    root: Path, targets: list[str], env: Path, roots: list[str], python_version: str
) -> list[Diagnostic]:
    config = {
        "typeCheckingMode": "standard",
        "pythonVersion": python_version,
        "extraPaths": roots,
        "venvPath": str(env.parent),
        "venv": env.name,
        **dict.fromkeys(sorted(_PYRIGHT_SKIP), "none"),
    }
    config_file = root.parent / "pyrightconfig.json"
    config_file.write_text(json.dumps(config))
    cmd = [_pyright_binary(), "--outputjson", "-p", str(config_file), *targets]
    out = _run(cmd, root, "pyright")
    try:
        report = json.loads(out)
    except ValueError as exc:
        raise LintError(f"pyright wrote no JSON: {out[:300]}") from exc
    found = []
    for row in report.get("generalDiagnostics", []):
        rule = row.get("rule", "")
        if row.get("severity") not in ("error", "warning") or not rule or rule in _PYRIGHT_SKIP:
            continue
        found.append(
            Diagnostic(
                tool="pyright",
                rule=rule,
                message=" ".join(row["message"].split()),
                path=Path(row["file"]).resolve().relative_to(root.resolve()).as_posix(),
                line=int(row["range"]["start"]["line"]) + 1,
                column=int(row["range"]["start"]["character"]),
                severity=row["severity"],
            )
        )
    return found


def _pyright_binary() -> str:
    here = Path(sys.executable).parent / "pyright"
    return str(here) if here.exists() else shutil.which("pyright") or "pyright"


def _run(cmd: list[str], cwd: Path, tool: str) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd.parent),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYRIGHT_PYTHON_FORCE_VERSION": "",
    }
    try:
        done = subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LintError(f"{tool} could not run: {exc}") from exc
    if tool == "pylint" and done.returncode not in (0,) and not done.stdout.strip():
        raise LintError(f"pylint failed: {done.stderr.strip()[-500:]}")
    if tool == "pyright" and done.returncode > 1:  # 1: diagnostics found
        raise LintError(f"pyright failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return done.stdout
