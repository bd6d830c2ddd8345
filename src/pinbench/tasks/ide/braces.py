"""What the IDE scenarios do the same way in every brace language with `/** ... */`
documentation comments (JavaScript, TypeScript, Java, and the C family): a function's comment
taken out or put in, its body cut out or replaced, a model's comment or function found in its
answer, all line-level over the language's outline, everything else byte-identical. The
language's editor (`tasks/ide/editor.py`) says how to read a file and check a comment."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator

from tree_sitter import Node

from pinbench.tasks.answers import fenced_blocks
from pinbench.tasks.ide import doc_tags
from pinbench.tasks.ide.cases import GenerateCase
from pinbench.tasks.ide.edits import Region
from pinbench.tasks.ide.lint import LintError
from pinbench.tasks.ide.outline import Function, Outline

_DOC_COMMENT = re.compile(r"/\*\*(?!/).*?\*/", re.S)


class BraceEdits:
    """Edits over `outline(path, text)`; `fences`: the code-fence tags of the language (and
    none); `wrapper`: the lines a method given on its own is read inside (`class X {`)."""

    def __init__(
        self,
        outline: Callable[[str, str], Outline],
        fences: frozenset[str],
        wrapper: str,
        indent: str = "  ",
    ) -> None:
        self.outline = outline
        self.fences = fences | {""}
        self.wrapper = wrapper
        self.indent = indent

    def function(self, path: str, text: str, qualname: str) -> Function:
        found = self.outline(path, text).find(qualname)
        if found is None:
            raise KeyError(f"{path} has no {qualname}")
        return found

    def strip_doc(self, path: str, text: str, qualname: str) -> str:
        """The file without the function's documentation comment (its whole lines)."""
        found = self.outline(path, text).find(qualname)
        if found is None or found.doc_lines is None:
            return text
        lines = text.splitlines(keepends=True)
        start, end = found.doc_lines
        return "".join(lines[: start - 1] + lines[end:])

    def with_doc(self, path: str, text: str, qualname: str, doc: str) -> str:
        """The file with `doc` (a `/** ... */` comment) as the function's, replacing any it
        has, indented as the function is."""
        stripped = self.strip_doc(path, text, qualname)
        found = self.outline(path, stripped).find(qualname)
        if found is None:
            return stripped
        lines = stripped.splitlines(keepends=True)
        block = "".join(found.indent + line + "\n" for line in _normalized(doc).splitlines())
        return "".join(lines[: found.line - 1]) + block + "".join(lines[found.line - 1 :])

    @staticmethod
    def doc_in_answer(answer: str) -> str | None:
        """The first `/** ... */` comment of a model's answer."""
        found = _DOC_COMMENT.search(answer)
        return found.group(0) if found else None

    def code_in_answer(self, answer: str) -> str:
        """The first fenced block of the language (or untagged) of an answer, else the whole
        answer."""
        blocks = fenced_blocks(answer, self.fences)
        return blocks[0] if blocks else answer

    def body_region(self, function: Function) -> Region:
        """The lines strictly between the `{` and the `}` of the function's body."""
        if function.body is None or not function.body_whole_lines:
            raise KeyError(f"{function.qualname} has no block body on lines of its own")
        return Region(function.body[0] + 1, function.body[1] - 1, function.indent + self.indent)

    def body_of(self, path: str, code: str, name: str) -> str | None:
        """The body (the lines between its braces) of the function `name` in a model's code,
        or None when the code has no such function with a block body. A method on its own is
        read inside the wrapper."""
        for prefix in ("", self.wrapper + "\n"):
            wrapped = prefix + code + ("\n}\n" if prefix else "")
            try:
                found = [f for f in self.outline(path, wrapped).functions if f.name == name]
            except LintError:
                return None
            for function in found:
                if function.body is not None and function.body_whole_lines:
                    lines = wrapped.splitlines()
                    return "\n".join(lines[function.body[0] : function.body[1] - 1])
        return None

    def function_source(self, path: str, text: str, qualname: str) -> str:
        """The function's source, from its declaration to its closing brace."""
        function = self.function(path, text, qualname)
        return "\n".join(text.splitlines()[function.line - 1 : function.end])


def _normalized(doc: str) -> str:
    """A comment with its continuation lines starting ` *` (as they will be indented)."""
    out = []
    for i, line in enumerate(doc.strip().splitlines()):
        stripped = line.strip()
        if i and not stripped.startswith("*"):
            stripped = "* " + stripped
        out.append(stripped if not i else " " + stripped)
    return "\n".join(out)


def _words_of(doc: str) -> list[str]:
    """A comment's words, whatever its lines start with (`*` or nothing: inserting a comment
    adds the `*` its continuation lines lack)."""
    body = doc.strip().removeprefix("/**").removesuffix("*/")
    return " ".join(line.strip().lstrip("*") for line in body.splitlines()).split()


def region_around(
    root: Node, found: Outline, text: str, line: int, members: tuple[str, ...]
) -> tuple[int, int] | None:
    """The lines a fix case rewrites around `line`: the innermost function (its comment
    included) around it, else the member or statement there (a child of one of the
    `members` node types, or of the root); None when the file does not parse."""
    if root.has_error:
        return None
    around = [f for f in found.functions if f.start <= line <= f.end]
    if around:
        innermost = min(around, key=lambda f: f.end - f.start)
        return innermost.start, innermost.end
    column = first_column(text, line)
    node: Node | None = root.descendant_for_point_range((line - 1, column), (line - 1, column))
    while node is not None and node.parent is not None and node.parent.type not in members:
        node = node.parent
    if node is None or node.parent is None:  # the root itself
        return (line, line)
    return node.start_point.row + 1, node.end_point.row + 1


def first_column(text: str, line: int) -> int:
    """The column of a line's first character that is not a space (the node a diagnostic's
    line is about starts there; its indentation belongs to the enclosing block)."""
    lines = text.splitlines()
    found = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(found) - len(found.lstrip())


def own_name(qualname: str) -> str:
    """A function's own name from its qualified one (`Money.of(long, String)` -> `of`,
    `yaml::Node::size` -> `size`): an overload names its types."""
    return re.split(r"\.|::", qualname.split("(", 1)[0])[-1]


def summary(doc: str | None) -> str:
    """The first line of a documentation comment's description; a C# XML comment's
    `<summary>` text, its references read as the names they give."""
    if not doc:
        return ""
    if doc.lstrip().startswith("///"):
        tags = doc_tags.read_xml(doc)
        return tags.description if tags else ""
    for line in doc.splitlines():
        text = line.strip().lstrip("/*").strip()
        if text and not text.startswith("@"):
            return text
    return ""


def tagged_comment(function: Function, said: str, fallback: str) -> str:
    """A Javadoc-style comment (Java's Javadoc, C/C++'s Doxygen) for the function: the
    summary (`fallback` when there is none), then every parameter, what it returns, and each
    class it throws."""
    lines = ["/**", f" * {said or fallback}", " *"]
    lines += [f" * @param {p} the {words(p)} argument" for p in function.params]
    if function.returns:
        lines.append(" * @return the result")
    lines += [f" * @throws {c} when the input is not acceptable" for c in function.throws]
    lines.append(" */")
    return "\n".join(lines)


def _errors(root: Node) -> Iterator[Node]:
    """The ERROR and MISSING nodes of a tree (only subtrees holding one are walked)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            yield node
            continue
        stack.extend(c for c in node.children if c.has_error or c.is_missing)


def reads(tree: Callable[[str], Node], text: str, original: str = "") -> bool:
    """Whether the grammar reads `text` (`tree(text)`) without a syntax error; with `original`
    (the file an answer edited), whether the edit adds none: a grammar that cannot read all of
    a real file (C/C++ macros, a construct it lacks) must not fail every answer in it. An
    error on a line the original does not have, or one more on a line it has, is added."""
    if not text.strip():
        return False
    root = tree(text)
    if not root.has_error:
        return True
    if not original:
        return False
    return not (_error_lines(root, text) - _error_lines(tree(original), original))


def _error_lines(root: Node, text: str) -> Counter[str]:
    """The line each syntax error starts on, as text: an error on a line the answer wrote is
    new; one on a line it kept is the file's own, wherever the line moved."""
    lines = text.splitlines()
    return Counter(
        lines[e.start_point.row].strip() if e.start_point.row < len(lines) else ""
        for e in _errors(root)
    )


def read_comment(
    path: str,
    text: str,
    qualname: str,
    outline: Callable[[str, str], Outline],
    tree: Callable[[str], Node],
    doc_name: str,
) -> Function | str:
    """The function `qualname` of the file, read whole with its comment, for a doc check;
    else why it cannot be checked."""
    if not text.strip():
        return "the file is empty"
    function = outline(path, text).find(qualname)
    if function is None:
        return f"no {qualname}"
    if not reads_lines(tree(text), function.start, function.end):
        return "the function and its comment do not parse"
    if function.doc is None:
        return f"no {doc_name}"
    return function


def reads_lines(root: Node, first: int, last: int) -> bool:
    """Whether no syntax error of the tree touches lines `first`..`last` (1-based): a
    function the grammar read whole, in a file it may not read whole."""
    return not any(
        e.start_point.row + 1 <= last and e.end_point.row + 1 >= first for e in _errors(root)
    )


def words(name: str) -> str:
    """An identifier as words (`parseDuration` -> `parse duration`)."""
    spaced = "".join(" " + c.lower() if c.isupper() else c for c in name.strip("_#$"))
    return " ".join(spaced.replace("_", " ").split()) or name


class BraceEditor:
    """The part of an `Editor` (`tasks/ide/editor.py`) every brace language shares; a language
    adds how it parses, checks a comment, diagnoses, and how its tests run."""

    placeholder = "// Your code here"

    def __init__(self, edits: BraceEdits, fence: str) -> None:
        self.edits = edits
        self.fence = fence

    def doc_passes(self, path: str, program: str, qualname: str) -> bool:
        """The language's check of the function's comment in the program."""
        raise NotImplementedError

    def code(self, text: str) -> str:
        return self.edits.code_in_answer(text)

    def strip_doc(self, path: str, text: str, qualname: str) -> str:
        return self.edits.strip_doc(path, text, qualname)

    def line_of(self, path: str, text: str, qualname: str) -> int:
        found = self.edits.outline(path, text).find(qualname)
        return found.line if found else 1

    def doc_in_answer(self, text: str, qualname: str) -> str | None:
        return self.edits.doc_in_answer(text)

    def with_doc(self, path: str, text: str, qualname: str, doc: str) -> str:
        return self.edits.with_doc(path, text, qualname, doc)

    def doc_ok(self, path: str, program: str, qualname: str, doc: str) -> bool:
        found = self.edits.outline(path, program).find(qualname)
        if found is None or found.doc is None or _words_of(found.doc) != _words_of(doc):
            return False  # the comment must be the function's, as written
        return self.doc_passes(path, program, qualname)

    def doc_answer(self, reference: str) -> str:
        return reference

    def body_region(self, path: str, text: str, qualname: str) -> Region:
        return self.edits.body_region(self.edits.function(path, text, qualname))

    def function_source(self, path: str, text: str, qualname: str) -> str:
        return self.edits.function_source(path, text, qualname)

    def declared_elsewhere(self, case: GenerateCase) -> str:
        return ""

    def body_answer(self, path: str, text: str, qualname: str) -> str:
        code = self.edits.code_in_answer(text)
        name = own_name(qualname)
        body = self.edits.body_of(path, code, name)
        return code if body is None else body
