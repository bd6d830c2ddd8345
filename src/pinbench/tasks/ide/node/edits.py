"""Line-level edits of JavaScript and TypeScript files for the IDE scenarios (the brace
languages' shared edits over TypeScript's outline), and how a test file requires a module."""

from __future__ import annotations

import re

from pinbench.tasks.ide.braces import BraceEdits
from pinbench.tasks.ide.node import source

EDITS = BraceEdits(
    source.outline,
    frozenset({"javascript", "js", "typescript", "ts", "jsx", "tsx", "mjs", "cjs"}),
    "class PinbenchAnswer {",
)


def relative_import(test_path: str, module_path: str) -> str:
    """How a test file at `test_path` requires `module_path` (relative, no extension)."""
    test_dir = test_path.split("/")[:-1]
    target = module_path.split("/")
    common = 0
    while common < min(len(test_dir), len(target) - 1) and test_dir[common] == target[common]:
        common += 1
    ups = [".."] * (len(test_dir) - common)
    rel = "/".join(ups + target[common:])
    rel = re.sub(r"\.(js|cjs|mjs|jsx|ts|cts|mts|tsx)$", "", rel)
    return rel if rel.startswith("..") else "./" + rel
