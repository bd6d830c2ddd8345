"""C and C++ source on the host, read and never run: a file's function definitions (their
Doxygen comment, parameters, whether they return, what they throw), the region around a line,
the doc scenario's Doxygen check, read with tree-sitter's C++ grammar (C is read by it too).

Export macros (`class YAML_CPP_API Node`, `MYLIB_EXPORT int f()`) are blanked before parsing,
keeping every offset: the grammar would read the macro as the class's name."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace

import tree_sitter_cpp
from tree_sitter import Language, Node, Parser

from pinbench.core.snapshots import Snapshot
from pinbench.tasks.ide import braces, doc_tags
from pinbench.tasks.ide.braces import region_around
from pinbench.tasks.ide.outline import Function, Outline

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl")
SUFFIXES = SOURCE_SUFFIXES + HEADER_SUFFIXES
_TEST_DIRS = {"test", "tests", "testing", "unittest", "unittests"}
_VENDORED = {
    "third_party",
    "thirdparty",
    "3rdparty",
    "external",
    "extern",
    "vendor",
    "deps",
    "gtest",
    "googletest",
}
_NOT_CODE_DIRS = _VENDORED | {
    "examples",
    "example",
    "samples",
    "sample",
    "benchmark",
    "benchmarks",
    "bench",
    "doc",
    "docs",
    "build",
    "cmake-build-debug",
    "fuzz",
    "fuzzing",
}
_TEST_NAME = re.compile(r"(^test_|_test\.|_tests\.|_unittest\.|[a-z0-9]Tests?\.)")
_CLASS_MACRO = re.compile(r"\b(?:class|struct)\s+([A-Z][A-Z0-9_]{2,})\s+(?=[A-Za-z_])")
_EXPORT_MACRO = re.compile(
    r"\b[A-Z][A-Z0-9_]*_(?:API|EXPORT|EXPORTS|DLL|PUBLIC|EXTERN|CONSTEXPR|CONSTEXPR20|INLINE|"
    r"FORCE_INLINE|ALWAYS_INLINE|NOINLINE|NODISCARD|NORETURN|NOEXCEPT|DEPRECATED)\b"
)
# a line that is one upper-case macro name alone (fmt's FMT_BEGIN_NAMESPACE, Qt's Q_OBJECT):
# it expands to braces, specifiers or nothing the grammar can read
_LONE_MACRO = re.compile(r"^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]+[ \t]*$")
_SCOPES = ("namespace_definition", "linkage_specification")
_CLASSES = ("class_specifier", "struct_specifier", "union_specifier")
_CONDITIONALS = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")


@functools.cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_cpp.language()))


_CPLUSPLUS_GUARD = re.compile(
    r"^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus|[ \t]+defined[ \t]*\(?[ \t]*__cplusplus[ \t]*\)?)"
    r"[ \t]*\n[ \t]*(?:extern[ \t]+\"C\"[ \t]*\{|\})[ \t]*(?://[^\n]*)?\n[ \t]*#[ \t]*endif[^\n]*$",
    re.M,
)


def blank_macros(text: str) -> str:
    """The text with export and attribute-like macros (`LIB_API`, `FMT_CONSTEXPR`), lines
    that are one macro alone (`FMT_BEGIN_NAMESPACE`) and C headers' `extern "C" {` guards
    (`#ifdef __cplusplus` ... `#endif`, whose braces the grammar cannot pair) replaced by
    spaces (offsets and lines kept); preprocessor directives stay as written."""
    text = _CPLUSPLUS_GUARD.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)

    def blank(match: re.Match[str]) -> str:
        return " " * len(match.group(0))

    text = _CLASS_MACRO.sub(
        lambda m: m.group(0).replace(m.group(1), " " * len(m.group(1)), 1), text
    )
    lines = text.split("\n")
    directive = False  # within a directive (its lines joined by backslashes): left as written
    for index, line in enumerate(lines):
        if not directive and not line.lstrip().startswith("#"):
            lines[index] = _EXPORT_MACRO.sub(blank, _LONE_MACRO.sub(blank, line))
            continue
        directive = line.endswith("\\")
    return "\n".join(lines)


def _tree(text: str) -> Node:
    return _parser().parse(blank_macros(text).encode("utf-8")).root_node


def parses(text: str, original: str = "") -> bool:
    """Whether the file is C/C++ as the grammar knows it (no error or missing node); with
    `original`, whether an answer's edit of it adds no syntax error (`braces.reads`)."""
    return braces.reads(_tree, text, original)


def _dirs(path: str) -> set[str]:
    return {d.lower() for d in path.split("/")[:-1]}


def hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/")[:-1])


def is_test_file(path: str) -> bool:
    """A test source: under a test directory, or named as one (`*_test.cpp`, `test_*.c`)."""
    if not path.endswith(SUFFIXES) or hidden(path) or _VENDORED & _dirs(path):
        return False
    return bool(_TEST_DIRS & _dirs(path)) or bool(_TEST_NAME.search(path.rsplit("/", 1)[-1]))


def test_files(snapshot: Snapshot) -> list[str]:
    return sorted(p for p in snapshot.files if is_test_file(p))


def code_files(snapshot: Snapshot) -> list[str]:
    """The project's own C/C++ sources and headers: not tests, vendored code, examples,
    benchmarks or documentation."""
    return sorted(
        p
        for p in snapshot.files
        if p.endswith(SUFFIXES)
        and not is_test_file(p)
        and not hidden(p)
        and not _NOT_CODE_DIRS & _dirs(p)
    )


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def _function_declarator(node: Node | None) -> Node | None:
    """The function declarator inside pointer/reference/parenthesized declarators."""
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator") or next(
            (c for c in node.named_children if "declarator" in c.type), None
        )
    return node


def _declared_name(node: Node | None) -> str:
    """The identifier a (parameter) declarator declares, '' when unnamed."""
    while node is not None:
        if node.type in ("identifier", "field_identifier"):
            return _text(node)
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (
                    c
                    for c in node.named_children
                    if "declarator" in c.type or c.type == "identifier"
                ),
                None,
            )
        node = inner
    return ""


def _params(declarator: Node) -> tuple[str, ...]:
    parameters = declarator.child_by_field_name("parameters")
    names = []
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in ("parameter_declaration", "optional_parameter_declaration"):
            name = _declared_name(parameter.child_by_field_name("declarator"))
            if name:
                names.append(name)
    return tuple(names)


def _name_parts(declarator: Node) -> list[str]:
    """`Foo<T>::bar` -> [Foo, bar]; `~Node` -> [~Node]; `operator==` -> [operator==]."""
    text = re.sub(r"\s+", "", _text(declarator.child_by_field_name("declarator")))
    operator = text.find("operator")
    text, tail = (text[:operator], text[operator:]) if operator >= 0 else (text, "")
    while "<" in text and (stripped := re.sub(r"<[^<>]*>", "", text)) != text:
        text = stripped  # template arguments out, however nested
    return [p for p in text.split("::") if p] + ([tail] if tail else [])


def _thrown(body: Node | None) -> list[str]:
    """The classes the body throws as `throw X(...)` or `throw X{...}`, outside lambdas."""
    found: list[str] = []
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "lambda_expression":
            continue
        if node.type == "throw_statement" and node.named_children:
            thrown = node.named_children[0]
            kind = thrown.child_by_field_name("function") or thrown.child_by_field_name("type")
            name = re.sub(r"<.*>", "", _text(kind)).replace(" ", "")
            if kind is not None and name and name not in found:
                found.append(name)
        stack.extend(reversed(node.named_children))
    return found


def _returns(node: Node, declarator: Node, constructor: bool) -> bool:
    if constructor:
        return False
    kind = _text(node.child_by_field_name("type"))
    trailing = next(
        (c for c in declarator.named_children if c.type == "trailing_return_type"), None
    )
    if trailing is not None:
        return _text(trailing).replace("->", "").strip() != "void"
    pointer = node.child_by_field_name("declarator")
    direct = pointer is not None and pointer.type == "function_declarator"
    return not (kind == "void" and direct)


def _doc_before(node: Node) -> list[Node]:
    """The documentation comment right before a declaration: a `/** */` or `/*! */` block,
    or a run of `///` or `//!` lines (nothing but space between)."""
    found: list[Node] = []
    previous, row = node.prev_sibling, node.start_point.row
    while previous is not None and previous.type == "comment" and row - previous.end_point.row <= 1:
        text = _text(previous)
        if text.startswith(("/**", "/*!")) and not text.startswith("/**/") and not found:
            return [previous]
        if not text.startswith(("///", "//!")):
            break
        found.insert(0, previous)
        row, previous = previous.start_point.row, previous.prev_sibling
    return found


@dataclass(frozen=True)
class _Scope:
    names: tuple[str, ...] = ()
    in_class: bool = False
    public: bool = True  # the access of the members here
    internal: bool = False  # an anonymous namespace


def _walk(node: Node, scope: _Scope) -> Iterator[tuple[Node, Node, _Scope]]:
    """(declaration node: a template's or the definition itself, function_definition, scope),
    and (class node, class node, scope) for classes."""
    access = scope.public
    for child in node.named_children:
        kind = child.type
        if kind == "access_specifier":
            access = _text(child).strip().rstrip(":") == "public"
            continue
        here = replace(scope, public=access)
        target, outer = child, child
        if kind == "template_declaration":
            target = next(
                (c for c in child.named_children if c.type in ("function_definition", *_CLASSES)),
                child,
            )
            if target is child:  # a templated declaration: its class, if any
                target = _class_in(child) or child
        elif kind in ("declaration", "field_declaration", "type_definition"):
            target = _class_in(child) or child
        if target.type == "function_definition" or _prototype(target):
            yield outer, target, here
        elif target.type in _CLASSES and (members := target.child_by_field_name("body")):
            name = _text(target.child_by_field_name("name"))
            yield outer, target, here
            if name:
                inner = _Scope(
                    (*scope.names, re.sub(r"<.*>", "", name).split("::")[-1]),
                    True,
                    target.type != "class_specifier",
                    scope.internal,
                )
                yield from _walk(members, inner)
        elif kind in _SCOPES:
            name = _text(child.child_by_field_name("name"))
            body = child.child_by_field_name("body")
            names = (*scope.names, *name.split("::")) if name else scope.names
            inner = _Scope(names, False, True, scope.internal or (kind == _SCOPES[0] and not name))
            if body is not None:  # `extern "C" int f() {}`: the definition is the body
                yield from _walk(body if body.type == "declaration_list" else child, inner)
        elif kind in _CONDITIONALS or kind == "declaration_list":
            yield from _walk(child, here)


def _class_in(node: Node) -> Node | None:
    return next(
        (
            c
            for c in node.named_children
            if c.type in _CLASSES and c.child_by_field_name("body") is not None
        ),
        None,
    )


@functools.lru_cache(maxsize=512)
def outline(path: str, text: str) -> Outline:
    """The file's function definitions (qualified with `::`: `yaml::Node::size`; overloads
    with their parameter types) and its classes (remembered per path and text)."""
    root = _tree(text)
    lines = text.splitlines()
    functions: list[Function] = []
    signatures: list[str] = []
    classes: list[tuple[str, int, int]] = []
    for outer, node, scope in _walk(root, _Scope()):
        start, end = outer.start_point.row + 1, node.end_point.row + 1
        if node.type in _CLASSES:
            name = re.sub(r"<.*>", "", _text(node.child_by_field_name("name")))
            if name:
                classes.append(("::".join((*scope.names, name)), start, end))
            continue
        if node.type != "function_definition":
            continue  # a declaration (`declarations` reads those)
        declarator = _function_declarator(node.child_by_field_name("declarator"))
        if declarator is None:
            continue  # a macro-made definition the grammar did not read as a function
        parts = _name_parts(declarator)
        if not parts:
            continue
        name = parts[-1]
        owner = parts[-2] if len(parts) > 1 else (scope.names[-1] if scope.in_class else "")
        constructor = node.child_by_field_name("type") is None and (
            name == owner or name.startswith("~")
        )
        body = node.child_by_field_name("body")
        braces, whole = None, False
        if body is not None and body.type == "compound_statement":
            braces = (body.start_point.row + 1, body.end_point.row + 1)
            first, last = lines[braces[0] - 1], lines[braces[1] - 1]
            whole = braces[1] > braces[0] and first.rstrip().endswith("{") and last.strip() == "}"
        doc = _doc_before(outer)
        static = any(
            c.type == "storage_class_specifier" and _text(c) == "static" for c in node.children
        )
        line_text = lines[start - 1] if start - 1 < len(lines) else ""
        opening = braces[0] if braces else start
        parameters = declarator.child_by_field_name("parameters")
        signatures.append(re.sub(r"\s+", " ", _text(parameters)))
        functions.append(
            Function(
                qualname="::".join((*scope.names, *parts)),
                name=name,
                line=start,
                end=end,
                lines=tuple(range(start, opening + 1)),
                body=braces,
                body_whole_lines=whole,
                doc="\n".join(_text(c) for c in doc) if doc else None,
                doc_lines=(doc[0].start_point.row + 1, doc[-1].end_point.row + 1) if doc else None,
                indent=line_text[: len(line_text) - len(line_text.lstrip())],
                params=_params(declarator),
                returns=_returns(node, declarator, constructor),
                yields=False,
                throws=tuple(_thrown(body)),
                exported=not static and not scope.internal and scope.public,
                in_class=scope.in_class or len(parts) > 1,
                private=static or scope.internal or not scope.public,
            )
        )
    overloaded = Counter(f.qualname for f in functions)
    unique = [
        replace(f, qualname=f.qualname + signatures[i]) if overloaded[f.qualname] > 1 else f
        for i, f in enumerate(functions)
    ]
    return Outline(tuple(unique), tuple(classes))


def _prototype(node: Node) -> bool:
    """A function's declaration without its body (`int size() const;`)."""
    if node.type not in ("declaration", "field_declaration"):
        return False
    declarator = node.child_by_field_name("declarator")
    return declarator is not None and _function_declarator(declarator) is not None


@dataclass(frozen=True)
class Declaration:
    """A function declared without its body, with its documentation comment."""

    qualname: str
    path: str
    line: int
    doc: str
    text: str  # the comment and the declaration, as written


@functools.lru_cache(maxsize=512)
def declarations(path: str, text: str) -> tuple[Declaration, ...]:
    """The documented function declarations of a file (headers: where C and C++ document a
    function whose definition is elsewhere)."""
    found = []
    lines = text.splitlines()
    for outer, node, scope in _walk(_tree(text), _Scope()):
        if not _prototype(node):
            continue
        declarator = _function_declarator(node.child_by_field_name("declarator"))
        doc = _doc_before(outer)
        parts = _name_parts(declarator) if declarator is not None else []
        if not doc or not parts:
            continue
        first, last = doc[0].start_point.row, outer.end_point.row
        found.append(
            Declaration(
                qualname="::".join((*scope.names, *parts)),
                path=path,
                line=outer.start_point.row + 1,
                doc="\n".join(_text(c) for c in doc),
                text="\n".join(lines[first : last + 1]),
            )
        )
    return tuple(found)


_MEMBER_PARENTS = (
    "translation_unit",
    "declaration_list",
    "field_declaration_list",
    *_CONDITIONALS,
)


def region(text: str, line: int) -> tuple[int, int] | None:
    """The innermost function definition (its comment included) around `line`, else the
    declaration or statement of the file there; None when the file does not parse."""
    return region_around(_tree(text), outline("", text), text, line, _MEMBER_PARENTS)


_MAIN = re.compile(r"^\s*(?:int|auto)\s+main\s*\(", re.M)


def defines_main(text: str) -> bool:
    """Whether the file defines `main` (a test built with GoogleTest's main must not)."""
    return bool(_MAIN.search(text))


def check_doc(path: str, text: str, qualname: str) -> tuple[str, ...]:
    """What the function's Doxygen comment misses (empty: it passes): the function and its
    comment parse (the rest of the file may not, a macro the grammar misreads:
    `braces.reads_lines`), and the comment passes `doc_tags.problems` (Doxygen's `\\param`
    spelling counts)."""
    function = braces.read_comment(path, text, qualname, outline, _tree, "Doxygen comment")
    if isinstance(function, str):
        return (function,)
    return doc_tags.problems(function, doc_tags.read(function.doc or "", backslash=True))
