"""Line-level edits of C/C++ files for the IDE scenarios (the brace languages' shared edits
over tree-sitter's outline), where a generated GoogleTest file goes, and which header a test
includes to reach a function."""

from __future__ import annotations

import re
from collections import Counter

from pinbench.core.snapshots import Snapshot
from pinbench.tasks.ide.braces import BraceEdits
from pinbench.tasks.ide.cpp import source

EDITS = BraceEdits(
    source.outline,
    frozenset({"cpp", "c++", "cxx", "cc", "c", "h", "hpp"}),
    "struct PinbenchAnswer {",
    indent="  ",
)
GENERATED_TEST = "pinbench_generated_test.cpp"


def test_path_for(tests: list[str]) -> str:
    """The generated test's file: in the directory most of the suite's test files are in."""
    folders = Counter(t.rsplit("/", 1)[0] if "/" in t else "" for t in tests)
    folder = folders.most_common(1)[0][0] if folders else "tests"
    return f"{folder}/{GENERATED_TEST}" if folder else GENERATED_TEST


_DECLARED: dict[str, dict[str, source.Declaration]] = {}


def declaration_of(snapshot: Snapshot, qualname: str) -> source.Declaration | None:
    """The documented declaration of a function in the project's headers, when exactly one
    declaration has its name (an overload's declarations do not say which is which)."""
    if snapshot.digest not in _DECLARED:
        found: dict[str, list[source.Declaration]] = {}
        for path in source.code_files(snapshot):
            if path.endswith(source.HEADER_SUFFIXES):
                for declared in source.declarations(path, snapshot.read(path)):
                    found.setdefault(declared.qualname, []).append(declared)
        _DECLARED[snapshot.digest] = {q: d[0] for q, d in found.items() if len(d) == 1}
    return _DECLARED[snapshot.digest].get(qualname)


def include_of(snapshot: Snapshot, path: str, name: str) -> str | None:
    """How a test includes the header that declares `name` of `path` (a header itself, or
    the header of the same stem, else any header naming it): relative to its `include` or
    `src` directory, else to the repository root. None when no header does."""
    if path.endswith(source.HEADER_SUFFIXES):
        header: str | None = path
    else:
        headers = [p for p in source.code_files(snapshot) if p.endswith(source.HEADER_SUFFIXES)]
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        declared = re.compile(rf"\b{re.escape(name)}\s*\(")
        same = [h for h in headers if h.rsplit("/", 1)[-1].rsplit(".", 1)[0] == stem]
        naming = [h for h in headers if declared.search(snapshot.read(h))]
        header = next((h for h in same if h in naming), None) or next(iter(naming), None)
    if header is None:
        return None
    parts = header.split("/")
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] in ("include", "src"):
            return "/".join(parts[index + 1 :])
    return header
