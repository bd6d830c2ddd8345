"""A job: what the in-sandbox runner is told to do with a program and its test (files to write,
the mode it runs in). It knows the test kinds and repository snapshots, and nothing else."""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path
from typing import Any

from pinbench.core import snapshots
from pinbench.core.tests import TestKind, TestSpec

MAX_REPO_PROOF_BYTES = 16 << 20  # per-test outcomes and calls of a whole suite
INSIDE = Path(__file__).parent / "inside"
# The harness's own scripts for Node, written beside the program (the sandbox sees no host path)
NODE_HARNESS = (
    "_pinbench_jest.js",
    "_pinbench_tscheck.js",
    "_pinbench_channel.js",
    "_pinbench_program.js",
    "_pinbench_deprecations.js",
)
# Top-level ES module syntax: such a JavaScript program is saved as `.mjs` (CommonJS otherwise)
_ESM = re.compile(
    r"^[ \t]*(import(?:[ \t]+[\w{*]|[ \t]*['\"{*])|export[ \t]+[\w{*]|export[ \t]*\{)", re.MULTILINE
)


@functools.cache
def _node_harness() -> dict[str, str]:
    return {name: (INSIDE / name).read_text() for name in NODE_HARNESS}


def program_file(program: str, module: str, suffix: str | None) -> str:
    """The name a JavaScript/TypeScript program is saved under: `.ts` for TypeScript, `.mjs`
    for an ES module, else `.js` (CommonJS)."""
    if suffix:
        return module + suffix
    return module + (".mjs" if _ESM.search(program) else ".js")


def job_for(program: str, test: TestSpec) -> dict[str, Any]:
    job = _job(program, test)
    if test.in_process:
        job["in_process"] = True  # the item's reference needs it: graded in one process
    if test.shares_state:
        job["shares_state"] = True  # the item's reference needs the program's pyplot
    if test.program_builtins:  # the starter's own `eval`: the program's, for the test
        job["program_builtins"] = list(test.program_builtins)
    return job


def _job(program: str, test: TestSpec) -> dict[str, Any]:
    if test.kind is TestKind.REPO:
        return _repo_job(program, test)
    if test.kind in (
        TestKind.NODE_REPO,
        TestKind.JAVA_REPO,
        TestKind.CPP_REPO,
        TestKind.CSHARP_REPO,
    ):
        return _suite_job(program, test)
    if test.kind is TestKind.JEST:
        module = test.module or "solution"
        name = program_file(program, module, test.program_suffix)
        files = {name: program, f"test_{module}.js": test.code, **_node_harness()}
        return {
            "mode": "jest",
            "program": program,
            "program_file": name,
            "test_file": f"test_{module}.js",
            "files": files,
        }
    if test.kind is TestKind.PYTEST:
        module = test.module or "solution"
        return {
            "mode": "pytest",
            "program": program,
            "module": module,
            "test_file": f"test_{module}.py",
            "files": {f"{module}.py": program, f"test_{module}.py": test.code},
        }
    if test.module:  # a script importing the program from `<module>.py`
        return {
            "mode": "script",
            "program": program,
            "test": test.code,
            "script": f"test_{test.module}.py",
            "files": {f"{test.module}.py": program},
        }
    return {"mode": "script", "program": program, "test": test.code, "files": {}}


def _repo_job(program: str, test: TestSpec) -> dict[str, Any]:
    if test.repo is None:
        raise ValueError("a repo test names no repository snapshot")
    files = dict(snapshots.tree(test.repo))
    original = files.get(test.path) if test.path else None
    if test.path:
        files[test.path] = program
    return {
        "mode": "repo",
        "program": program,
        "path": test.path,
        "files": files,
        "binary_files": snapshots.binary_tree(test.repo),
        "pythonpath": list(snapshots.load(test.repo).pythonpath),
        "select": list(test.select),
        "trace": test.trace or test.focal is not None,
        "focal": test.focal.model_dump(mode="json") if test.focal else None,
        "untraced": ["tests/", "test/"],
        "record_bytes": MAX_REPO_PROOF_BYTES,
        "changed": changed_lines(original, program),
    }


def changed_lines(original: str | None, program: str) -> list[int] | None:
    """The program's lines that are not the original file's (1-based; None: all of them, a
    new file): where a deprecation signal is the answer's, not the repository's."""
    if original is None:
        return None
    ours = program.splitlines()
    matcher = difflib.SequenceMatcher(None, original.splitlines(), ours, autojunk=False)
    return [
        line + 1
        for tag, _, _, start, end in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for line in range(start, end)
    ]


def _suite_job(program: str, test: TestSpec) -> dict[str, Any]:
    """A repository's suite run by pinbench's Node, Java or C/C++ runner (node-repo,
    java-repo, cpp-repo, csharp-repo). A C/C++ or C# test with a focal function is a generated
    test: built as an executable (an assembly) of its own."""
    if test.repo is None:
        raise ValueError(f"a {test.kind.value} test names no repository snapshot")
    files = dict(snapshots.tree(test.repo))
    original = files.get(test.path) if test.path else None
    if test.path:
        files[test.path] = program
    if test.kind is TestKind.NODE_REPO:
        files.update(_node_harness())
    return {
        "mode": test.kind.value,
        "program": program,
        "path": test.path,
        "files": files,
        "binary_files": snapshots.binary_tree(test.repo),
        "select": list(test.select),
        "test_files": sorted({s.split("::", 1)[0] for s in test.select}),
        "trace": test.trace or test.focal is not None,
        "focal": test.focal.model_dump(mode="json") if test.focal else None,
        "generated": (
            {"path": test.path, "focal": test.focal.path}
            if test.kind in (TestKind.CPP_REPO, TestKind.CSHARP_REPO) and test.focal and test.path
            else None
        ),
        "record_bytes": MAX_REPO_PROOF_BYTES,
        "changed": changed_lines(original, program),
    }
