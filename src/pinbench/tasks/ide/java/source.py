"""Java source on the host, read and never run: a file's methods and constructors (their
Javadoc, parameters, whether they return, what they throw), the region around a line, the doc
scenario's Javadoc check, read with tree-sitter's Java grammar."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import tree_sitter_java
from tree_sitter import Language, Node, Parser

from pinbench.core.snapshots import Snapshot
from pinbench.tasks.ide import braces, doc_tags
from pinbench.tasks.ide.braces import region_around
from pinbench.tasks.ide.outline import Function, Outline

_TYPES = (
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
)
_METHODS = ("method_declaration", "constructor_declaration", "compact_constructor_declaration")
_TEST_DIRS = {"test", "tests"}
_NOT_CODE_DIRS = {"examples", "example", "samples", "sample", "benchmark", "benchmarks", "jmh"}


@functools.cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_java.language()))


def _tree(text: str) -> Node:
    return _parser().parse(text.encode("utf-8")).root_node


def parses(text: str, original: str = "") -> bool:
    """Whether the file is Java as the grammar knows it (no error or missing node); with
    `original`, whether an answer's edit of it adds no syntax error (`braces.reads`)."""
    return braces.reads(_tree, text, original)


def _hidden(path: str) -> bool:
    """Under a hidden directory (`.pc/`: quilt's copies in a Debian source package, `.git/`):
    not the project's sources, and the sandbox's compile leaves them out too."""
    return any(part.startswith(".") for part in path.split("/")[:-1])


def is_test_file(path: str) -> bool:
    """A file of the test sources (Maven's src/test/java, or any `test`/`tests` directory)."""
    dirs = path.split("/")[:-1]
    return path.endswith(".java") and bool(_TEST_DIRS.intersection(dirs)) and not _hidden(path)


def test_files(snapshot: Snapshot) -> list[str]:
    return sorted(p for p in snapshot.files if is_test_file(p))


def _module_dirs(path: str) -> list[str]:
    """The directories above the source root (`examples/src/main/java/...` -> `examples`):
    a package may well be named `example`."""
    parts = path.split("/")[:-1]
    for index, part in enumerate(parts):
        if part in ("src", "java"):
            return parts[:index]
    return parts


def code_files(snapshot: Snapshot) -> list[str]:
    """Main Java sources: not tests, examples or benchmarks, not `module-info`/`package-info`."""
    return sorted(
        p
        for p in snapshot.files
        if p.endswith(".java")
        and not is_test_file(p)
        and not _hidden(p)
        and not _NOT_CODE_DIRS.intersection(_module_dirs(p))
        and p.rsplit("/", 1)[-1] not in ("module-info.java", "package-info.java")
    )


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def _modifiers(node: Node) -> set[str]:
    for child in node.children:
        if child.type == "modifiers":
            return {
                _text(c)
                for c in child.children
                if c.type not in ("marker_annotation", "annotation")
            }
    return set()


def _doc_before(node: Node) -> Node | None:
    """The `/** ... */` comment right before a declaration (nothing but space between)."""
    previous = node.prev_sibling
    if (
        previous is not None
        and previous.type == "block_comment"
        and _text(previous).startswith("/**")
        and not _text(previous).startswith("/**/")
        and node.start_point.row - previous.end_point.row <= 1
    ):
        return previous
    return None


def _thrown(body: Node | None) -> list[str]:
    """The classes the body throws as `throw new X(...)`, outside lambdas and nested classes."""
    found: list[str] = []
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type in ("lambda_expression", "class_body", "local_class_declaration"):
            continue
        if node.type == "throw_statement":
            created = next(
                (c for c in node.named_children if c.type == "object_creation_expression"), None
            )
            kind = created.child_by_field_name("type") if created is not None else None
            name = _text(kind).split("<", 1)[0].rsplit(".", 1)[-1]
            if name and name not in found:
                found.append(name)
        stack.extend(reversed(node.named_children))
    return found


def _declared_throws(node: Node) -> list[str]:
    for child in node.children:
        if child.type == "throws":
            return [_text(t).split("<", 1)[0].rsplit(".", 1)[-1] for t in child.named_children]
    return []


def _signature(node: Node) -> str:
    """The parameter types, as written without generics (`(String, int[])`): what tells an
    overload from another."""
    parameters = node.child_by_field_name("parameters")
    types = []
    for parameter in parameters.named_children if parameters is not None else []:
        kind = parameter.child_by_field_name("type")
        if kind is None:  # spread_parameter: its first named child is the type
            kind = next(iter(parameter.named_children), None)
        text = re.sub(r"<.*>", "", _text(kind)).replace(" ", "")
        types.append(text + ("..." if parameter.type == "spread_parameter" else ""))
    return "(" + ", ".join(types) + ")"


def _params(node: Node) -> tuple[str, ...]:
    parameters = node.child_by_field_name("parameters")
    if parameters is None:  # a compact constructor: the record's components
        return ()
    names = []
    for parameter in parameters.named_children:
        if parameter.type in ("formal_parameter", "spread_parameter"):
            name = parameter.child_by_field_name("name")
            if name is None:  # spread_parameter: its variable_declarator
                declarator = next(
                    (c for c in parameter.named_children if c.type == "variable_declarator"), None
                )
                name = declarator.child_by_field_name("name") if declarator else None
            if name is not None:
                names.append(_text(name))
    return tuple(names)


def _initializer_lines(body: Node | None) -> tuple[int, ...]:
    """The lines of a class body's instance field initializers and initializer blocks: code
    that runs in every constructor (JaCoCo counts it as the constructor's)."""
    found: list[int] = []
    for member in body.named_children if body is not None else []:
        static = "static" in _modifiers(member)
        initialized = member.type == "field_declaration" and b"=" in (member.text or b"")
        if (initialized and not static) or member.type == "block":
            found += range(member.start_point.row + 1, member.end_point.row + 2)
    return tuple(found)


def _walk(node: Node, scope: tuple[str, ...]) -> Iterator[tuple[Node, tuple[str, ...]]]:
    for child in node.named_children:
        if child.type in _TYPES:
            name = _text(child.child_by_field_name("name"))
            yield child, scope
            body = child.child_by_field_name("body")
            if body is not None:
                yield from _walk(body, (*scope, name))
        elif child.type in _METHODS:
            yield child, scope
        elif child.type in ("enum_body_declarations",):
            yield from _walk(child, scope)


@functools.lru_cache(maxsize=512)
def outline(path: str, text: str) -> Outline:
    """The file's methods and constructors (qualified `Outer.Inner.name`, overloads with their
    parameter types, `Money.of(long, String)`; a constructor has its class's name) and its
    classes (remembered per path and text)."""
    root = _tree(text)
    lines = text.splitlines()
    functions: list[Function] = []
    classes: list[tuple[str, int, int]] = []
    initializers: dict[tuple[str, ...], tuple[int, ...]] = {}
    signatures: list[str] = []
    for node, scope in _walk(root, ()):
        start, end = node.start_point.row + 1, node.end_point.row + 1
        doc = _doc_before(node)
        if node.type in _TYPES:
            qualified = (*scope, _text(node.child_by_field_name("name")))
            classes.append((".".join(qualified), start, end))
            initializers[qualified] = _initializer_lines(node.child_by_field_name("body"))
            continue
        constructor = node.type != "method_declaration"
        name = _text(node.child_by_field_name("name")) or (scope[-1] if scope else "")
        body = node.child_by_field_name("body")
        braces = None
        whole = False
        if body is not None:
            braces = (body.start_point.row + 1, body.end_point.row + 1)
            first, last = lines[braces[0] - 1], lines[braces[1] - 1]
            whole = braces[1] > braces[0] and first.rstrip().endswith("{") and last.strip() == "}"
        modifiers = _modifiers(node)
        returns = not constructor and _text(node.child_by_field_name("type")) != "void"
        throws = _declared_throws(node)
        throws += [t for t in _thrown(body) if t not in throws]
        line_text = lines[start - 1] if start - 1 < len(lines) else ""
        signatures.append(_signature(node))
        functions.append(
            Function(
                qualname=".".join((*scope, name)),
                name=name,
                line=start,
                end=end,
                lines=tuple(range(start, end + 1))
                + (initializers.get(scope, ()) if constructor else ()),
                body=braces,
                body_whole_lines=whole,
                doc=_text(doc) if doc is not None else None,
                doc_lines=(doc.start_point.row + 1, doc.end_point.row + 1) if doc else None,
                indent=line_text[: len(line_text) - len(line_text.lstrip())],
                params=_params(node),
                returns=returns,
                yields=False,
                throws=tuple(throws),
                exported="public" in modifiers,
                in_class=True,
                private="private" in modifiers,
            )
        )
    overloaded = Counter(f.qualname for f in functions)
    unique = [
        replace(f, qualname=f.qualname + signatures[i]) if overloaded[f.qualname] > 1 else f
        for i, f in enumerate(functions)
    ]
    return Outline(tuple(unique), tuple(classes))


def region(text: str, line: int) -> tuple[int, int] | None:
    """The innermost method or constructor (its Javadoc included) around `line`, else the
    member or statement of the file there; None when the file does not parse."""
    return region_around(
        _tree(text),
        outline("", text),
        text,
        line,
        ("program", "class_body", "interface_body", "enum_body_declarations"),
    )


def check_doc(path: str, text: str, qualname: str) -> tuple[str, ...]:
    """What the method's Javadoc misses (empty: it passes): the method and its comment parse
    (the rest of the file may not: `braces.reads_lines`), and the comment passes
    `doc_tags.problems` (its throws: the classes it declares or throws)."""
    function = braces.read_comment(path, text, qualname, outline, _tree, "Javadoc comment")
    if isinstance(function, str):
        return (function,)
    return doc_tags.problems(function, doc_tags.read(function.doc or ""))
