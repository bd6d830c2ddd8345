"""Line-level edits of Java files for the IDE scenarios (the brace languages' shared edits
over tree-sitter's outline), and where a generated JUnit test class goes."""

from __future__ import annotations

import re

from pinbench.tasks.ide.braces import BraceEdits
from pinbench.tasks.ide.java import source

EDITS = BraceEdits(source.outline, frozenset({"java"}), "class PinbenchAnswer {", indent="    ")
GENERATED_TEST = "PinbenchGeneratedTest"


def package_of(text: str) -> str:
    found = re.search(r"^\s*package\s+([\w.]+)\s*;", _without_comments(text), re.M)
    return found.group(1) if found else ""


def _without_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def test_path_for(test_root: str, package: str) -> str:
    """The generated test class's file: in the focal class's package, under the test root."""
    directory = "/".join(p for p in (test_root.strip("/"), package.replace(".", "/")) if p)
    return f"{directory}/{GENERATED_TEST}.java"


def renamed(test_class: str, text: str, name: str = GENERATED_TEST) -> str:
    """A test file's text with its class renamed (declaration, constructors, self references),
    so it can be saved as another file of the same package."""
    return re.sub(rf"\b{re.escape(test_class)}\b", name, text)
