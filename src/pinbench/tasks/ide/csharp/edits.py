"""Line-level edits of C# files for the IDE scenarios: the brace languages' shared edits over
tree-sitter's outline, with C#'s documentation comments (a run of `///` lines, not a
`/** ... */` block), and where a generated NUnit fixture goes."""

from __future__ import annotations

import re
from collections import Counter

from pinbench.tasks.ide.braces import BraceEdits
from pinbench.tasks.ide.csharp import source

GENERATED_TEST = "PinbenchGeneratedTests.cs"
_DOC_LINE = re.compile(r"^\s*///")


class CsharpEdits(BraceEdits):
    def with_doc(self, path: str, text: str, qualname: str, doc: str) -> str:
        """The file with `doc` (`///` lines) as the method's, replacing any it has, each line
        written `/// text` and indented as the method is."""
        stripped = self.strip_doc(path, text, qualname)
        found = self.outline(path, stripped).find(qualname)
        if found is None:
            return stripped
        lines = stripped.splitlines(keepends=True)
        block = "".join(f"{found.indent}{line}\n" for line in normalized(doc))
        return "".join(lines[: found.line - 1]) + block + "".join(lines[found.line - 1 :])

    @staticmethod
    def doc_in_answer(answer: str) -> str | None:
        """The first run of `///` lines of a model's answer."""
        run: list[str] = []
        for line in answer.splitlines():
            if _DOC_LINE.match(line):
                run.append(line.strip())
            elif run:
                break
        return "\n".join(run) or None


def normalized(doc: str) -> list[str]:
    """A comment's lines as `/// text` (what follows `///`, stripped)."""
    return [
        ("/// " + re.sub(r"^\s*///", "", line).strip()).rstrip()
        for line in doc.strip().splitlines()
        if line.strip()
    ]


EDITS = CsharpEdits(
    source.outline, frozenset({"csharp", "cs", "c#"}), "class PinbenchAnswer {", indent="    "
)


def test_path_for(tests: list[str]) -> str:
    """The generated fixture's file: in the directory most of the suite's test files are in."""
    folders = Counter(t.rsplit("/", 1)[0] if "/" in t else "" for t in tests)
    folder = folders.most_common(1)[0][0] if folders else "tests"
    return f"{folder}/{GENERATED_TEST}" if folder else GENERATED_TEST


def namespace_of(text: str) -> str:
    found = re.search(r"^\s*namespace\s+([\w.]+)", text, re.M)
    return found.group(1) if found else ""
