"""C# source on the host, read and never run: a file's methods and constructors (their XML
documentation comment, parameters, whether they return, what they throw), the region around a
line, the doc scenario's check of the XML comment, read with tree-sitter's C# grammar."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import tree_sitter_c_sharp
from tree_sitter import Language, Node, Parser

from pinbench.core.snapshots import Snapshot
from pinbench.tasks.ide import braces, doc_tags
from pinbench.tasks.ide.braces import region_around
from pinbench.tasks.ide.csharp import preprocess
from pinbench.tasks.ide.outline import Function, Outline

_TYPES = (
    "class_declaration",
    "struct_declaration",
    "interface_declaration",
    "record_declaration",
    "record_struct_declaration",
)
_METHODS = ("method_declaration", "constructor_declaration")
_NAMESPACES = ("namespace_declaration", "file_scoped_namespace_declaration")
_TEST_DIR = re.compile(r"^(tests?|unittests?|.*[.\-_]tests?)$", re.I)
_NOT_CODE_DIRS = {"bin", "obj", "examples", "example", "samples", "sample", "benchmarks", "docs"}


@functools.cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_c_sharp.language()))


def _tree(text: str) -> Node:
    """The file's syntax tree as compiled: without the branches `#if` leaves out."""
    return _parser().parse(preprocess.active(text).encode("utf-8")).root_node


def parses(text: str, original: str = "") -> bool:
    """Whether the file is C# as the grammar knows it (no error or missing node); with
    `original`, whether an answer's edit of it adds no syntax error (`braces.reads`)."""
    return braces.reads(_tree, text, original)


def hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/")[:-1])


def is_test_file(path: str) -> bool:
    """A file of a test project's directory (`tests/`, `Foo.Tests/`)."""
    dirs = path.split("/")[:-1]
    return path.endswith(".cs") and any(_TEST_DIR.match(d) for d in dirs) and not hidden(path)


def code_files(snapshot: Snapshot) -> list[str]:
    """The project's own C# sources: not tests, build output, examples or designer files."""
    return sorted(
        p
        for p in snapshot.files
        if p.endswith(".cs")
        and not is_test_file(p)
        and not hidden(p)
        and not _NOT_CODE_DIRS.intersection(p.split("/")[:-1])
        and not p.endswith((".Designer.cs", ".g.cs", "AssemblyInfo.cs"))
    )


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def _modifiers(node: Node) -> set[str]:
    return {_text(c) for c in node.children if c.type == "modifier"}


def _doc_before(node: Node) -> list[Node]:
    """The run of `///` comments right before a member (nothing but space between)."""
    found: list[Node] = []
    previous, row = node.prev_sibling, node.start_point.row
    while (
        previous is not None
        and previous.type == "comment"
        and _text(previous).startswith("///")
        and row - previous.end_point.row <= 1
    ):
        found.insert(0, previous)
        row, previous = previous.start_point.row, previous.prev_sibling
    return found


def _thrown(body: Node | None) -> list[str]:
    """The classes the body throws as `throw new X(...)`, outside lambdas and local functions."""
    found: list[str] = []
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type in (
            "lambda_expression",
            "local_function_statement",
            "anonymous_method_expression",
        ):
            continue
        if node.type in ("throw_statement", "throw_expression"):
            created = next(
                (c for c in node.named_children if c.type == "object_creation_expression"), None
            )
            kind = created.child_by_field_name("type") if created is not None else None
            name = re.split(r"\.", _text(kind).split("<", 1)[0])[-1]
            if name and name not in found:
                found.append(name)
        stack.extend(reversed(node.named_children))
    return found


def _params(node: Node) -> tuple[str, ...]:
    parameters = node.child_by_field_name("parameters")
    names = []
    for parameter in parameters.named_children if parameters is not None else []:
        name = parameter.child_by_field_name("name")
        if parameter.type == "parameter" and name is not None:
            names.append(_text(name))
        elif parameter.type == "identifier":  # `params T[] xs`: no parameter node around it
            names.append(_text(parameter))
    return tuple(names)


def _initializer_lines(body: Node | None) -> tuple[int, ...]:
    """The lines of a type's instance field initializers: code every constructor runs (Mono's
    debug information starts a constructor there)."""
    found: list[int] = []
    for member in body.named_children if body is not None else []:
        instance = member.type == "field_declaration" and "static" not in _modifiers(member)
        if instance and b"=" in (member.text or b""):
            found += range(member.start_point.row + 1, member.end_point.row + 2)
    return tuple(found)


def _walk(node: Node, scope: tuple[str, ...]) -> Iterator[tuple[Node, tuple[str, ...]]]:
    names = scope
    for child in node.named_children:
        if child.type in _NAMESPACES:
            name = _text(child.child_by_field_name("name"))
            body = child.child_by_field_name("body")
            if child.type == "file_scoped_namespace_declaration":
                names = (*scope, *name.split("."))  # its members follow it, as siblings
                yield from _walk(child, names)
            elif body is not None:
                yield from _walk(body, (*names, *name.split(".")))
        elif child.type in _TYPES:
            yield child, names
            body = child.child_by_field_name("body")
            if body is not None:
                yield from _walk(body, (*names, _text(child.child_by_field_name("name"))))
        elif child.type in _METHODS:
            yield child, names
        elif child.type == "declaration_list":
            yield from _walk(child, names)


@functools.lru_cache(maxsize=512)
def outline(path: str, text: str) -> Outline:
    """The file's methods and constructors (qualified `Namespace.Class.Method`, overloads with
    their parameter types; a constructor has its class's name) and its types."""
    root = _tree(text)
    lines = text.splitlines()
    functions: list[Function] = []
    signatures: list[str] = []
    classes: list[tuple[str, int, int]] = []
    initializers: dict[tuple[str, ...], tuple[int, ...]] = {}
    for node, scope in _walk(root, ()):
        start, end = node.start_point.row + 1, node.end_point.row + 1
        if node.type in _TYPES:
            qualified = (*scope, _text(node.child_by_field_name("name")))
            classes.append((".".join(qualified), start, end))
            initializers[qualified] = _initializer_lines(node.child_by_field_name("body"))
            continue
        constructor = node.type == "constructor_declaration"
        name = _text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        braces, whole = None, False
        if body is not None and body.type == "block":
            braces = (body.start_point.row + 1, body.end_point.row + 1)
            first, last = lines[braces[0] - 1], lines[braces[1] - 1]
            whole = braces[1] > braces[0] and first.rstrip().endswith("{") and last.strip() == "}"
        doc = _doc_before(node)
        modifiers = _modifiers(node)
        returns = not constructor and _text(node.child_by_field_name("returns")) != "void"
        opening = braces[0] if braces else start
        line_text = lines[start - 1] if start - 1 < len(lines) else ""
        parameters = node.child_by_field_name("parameters")
        signatures.append(re.sub(r"\s+", " ", _text(parameters)))
        functions.append(
            Function(
                qualname=".".join((*scope, name)),
                name=name,
                line=start,
                end=end,
                lines=tuple(range(start, opening + 1))
                + (initializers.get(scope, ()) if constructor else ()),
                body=braces,
                body_whole_lines=whole,
                doc="\n".join(_text(c) for c in doc) if doc else None,
                doc_lines=(doc[0].start_point.row + 1, doc[-1].end_point.row + 1) if doc else None,
                indent=line_text[: len(line_text) - len(line_text.lstrip())],
                params=_params(node),
                returns=returns,
                yields=False,
                throws=tuple(_thrown(body)),
                exported="public" in modifiers,
                in_class=True,
                private="private" in modifiers
                or not modifiers & {"public", "internal", "protected"},
            )
        )
    overloaded = Counter(f.qualname for f in functions)
    unique = [
        replace(f, qualname=f.qualname + signatures[i]) if overloaded[f.qualname] > 1 else f
        for i, f in enumerate(functions)
    ]
    return Outline(tuple(unique), tuple(classes))


_MEMBER_PARENTS = ("compilation_unit", "declaration_list", *_NAMESPACES)


def region(text: str, line: int) -> tuple[int, int] | None:
    """The innermost method or constructor (its comment included) around `line`, else the
    member or statement of the file there; None when the file does not parse."""
    return region_around(_tree(text), outline("", text), text, line, _MEMBER_PARENTS)


def check_doc(path: str, text: str, qualname: str) -> tuple[str, ...]:
    """What the method's XML documentation comment misses (empty: it passes): the
    method and its comment parse (`braces.reads_lines`), the comment is well-formed XML, and
    it passes `doc_tags.problems` (`<summary>`, `<param name>`, `<returns>`,
    `<exception cref>`)."""
    function = braces.read_comment(
        path, text, qualname, outline, _tree, "XML documentation comment"
    )
    if isinstance(function, str):
        return (function,)
    tags = doc_tags.read_xml(function.doc or "")
    if tags is None:
        return ("the XML documentation comment is not well-formed XML",)
    return doc_tags.problems(function, tags)
