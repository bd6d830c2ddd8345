"""Line-level edits of JavaScript and TypeScript files for the IDE scenarios: a function's JSDoc
taken out or put in, its body cut out or replaced, a model's JSDoc or function found in its
answer. Everything else in the file stays byte-identical."""

from __future__ import annotations

import re

from pinbench.tasks.answers import fenced_blocks
from pinbench.tasks.ide.edits import Region
from pinbench.tasks.ide.lint import LintError
from pinbench.tasks.ide.node import source
from pinbench.tasks.ide.node.source import Function

_JSDOC = re.compile(r"/\*\*(?!/).*?\*/", re.S)


def strip_doc(path: str, text: str, qualname: str) -> str:
    """The file without the function's JSDoc comment (its whole lines)."""
    found = source.outline(path, text).find(qualname)
    if found is None or found.doc_lines is None:
        return text
    lines = text.splitlines(keepends=True)
    start, end = found.doc_lines
    return "".join(lines[: start - 1] + lines[end:])


def with_doc(path: str, text: str, qualname: str, doc: str) -> str:
    """The file with `doc` (a `/** ... */` comment) as the function's JSDoc, replacing any it
    has, indented as the function is."""
    stripped = strip_doc(path, text, qualname)
    found = source.outline(path, stripped).find(qualname)
    if found is None:
        return stripped
    lines = stripped.splitlines(keepends=True)
    block = "".join(found.indent + line + "\n" for line in _normalized(doc).splitlines())
    return "".join(lines[: found.line - 1]) + block + "".join(lines[found.line - 1 :])


def _normalized(doc: str) -> str:
    """A JSDoc comment with its continuation lines starting ` *` (as they will be indented)."""
    out = []
    for i, line in enumerate(doc.strip().splitlines()):
        stripped = line.strip()
        if i and not stripped.startswith("*"):
            stripped = "* " + stripped
        out.append(stripped if not i else " " + stripped)
    return "\n".join(out)


def doc_in_answer(answer: str) -> str | None:
    """The first `/** ... */` comment of a model's answer."""
    found = _JSDOC.search(answer)
    return found.group(0) if found else None


_LANGUAGES = frozenset({"javascript", "js", "typescript", "ts", "jsx", "tsx", "mjs", "cjs", ""})


def code_in_answer(answer: str) -> str:
    """The first JavaScript/TypeScript (or untagged) fenced block of an answer, else the whole
    answer."""
    blocks = fenced_blocks(answer, _LANGUAGES)
    return blocks[0] if blocks else answer


def body_region(function: Function) -> Region:
    """The lines strictly between the `{` and the `}` of the function's body."""
    if function.body is None or not function.body_whole_lines:
        raise KeyError(f"{function.qualname} has no block body on lines of its own")
    return Region(function.body[0] + 1, function.body[1] - 1, function.indent + "  ")


def body_of(path: str, code: str, name: str) -> str | None:
    """The body (the lines between its braces) of the function `name` in a model's code, or
    None when the code has no such function with a block body. A method on its own (`static
    parse(text) { ... }`) is read inside a class."""
    for prefix in ("", "class PinbenchAnswer {\n"):
        wrapped = prefix + code + ("\n}\n" if prefix else "")
        try:
            found = [f for f in source.outline(path, wrapped).functions if f.name == name]
        except LintError:
            return None
        for function in found:
            if function.body is not None and function.body_whole_lines:
                lines = wrapped.splitlines()
                return "\n".join(lines[function.body[0] : function.body[1] - 1])
    return None


def function_text(text: str, function: Function) -> str:
    """The function's source (its JSDoc included)."""
    lines = text.splitlines()
    return "\n".join(lines[function.start - 1 : function.end])


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
