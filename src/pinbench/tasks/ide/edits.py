"""Line-level edits of a source file: find a function or a statement's span, cut out a region
and put a model's code in its place at the region's indentation. Everything else in the file
stays byte-identical, so a score measures the model's edit and nothing of ours."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Region:
    """Lines `start`..`end` (1-based, inclusive) of a file; code put there gets `indent`."""

    start: int
    end: int
    indent: str


@dataclass(frozen=True)
class Located:
    qualname: str
    node: Function
    in_class: bool


def functions(tree: ast.Module) -> Iterator[Located]:
    """Every function and method, by qualified name (classes nest; functions inside functions
    are part of their parent)."""

    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> Iterator[Located]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield Located(prefix + node.name, node, in_class)
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.", True)

    yield from walk(tree.body, "", False)


def find(source: str, qualname: str) -> Located | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return next((f for f in functions(tree) if f.qualname == qualname), None)


def first_lines(node: Function) -> tuple[int, ...]:
    """Where the function's code object may say it starts: its first decorator or its def."""
    return tuple(sorted({node.lineno, *(d.lineno for d in node.decorator_list)}))


def start_line(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def docstring_node(node: Function) -> ast.Expr | None:
    first = node.body[0] if node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def body_region(source: str, node: Function) -> Region:
    """The function's body after its docstring (the part `generate` asks a model to write)."""
    lines = source.splitlines()
    doc = docstring_node(node)
    statements = node.body[1:] if doc is not None else node.body
    first = statements[0] if statements else node.body[-1]
    start = (doc.end_lineno or doc.lineno) + 1 if doc is not None else first.lineno
    indent = _indent(lines[first.lineno - 1])
    if node.body[0].lineno == node.lineno:  # `def f(x): return x`: body on the def line
        raise ValueError("a body on the def line has no region of its own")
    return Region(start, node.end_lineno or first.lineno, indent)


def statement_region(source: str, line: int) -> Region:
    """The innermost function holding `line`, else the top-level statement holding it."""
    tree = ast.parse(source)
    lines = source.splitlines()
    holders = [
        f.node for f in functions(tree) if start_line(f.node) <= line <= (f.node.end_lineno or 0)
    ]
    if holders:
        node: ast.stmt = max(holders, key=start_line)
    else:
        node = next(
            (s for s in tree.body if start_line(s) <= line <= (s.end_lineno or s.lineno)),
            tree.body[-1] if tree.body else ast.Pass(lineno=line, end_lineno=line),
        )
    start = start_line(node)
    return Region(start, node.end_lineno or start, _indent(lines[start - 1]))


def text_of(source: str, region: Region) -> str:
    return "\n".join(source.splitlines()[region.start - 1 : region.end])


def splice(source: str, region: Region, code: str) -> str:
    """`source` with the region's lines replaced by `code`, re-indented to the region."""
    lines = source.splitlines(keepends=True)
    body = textwrap.dedent(code.strip("\n"))
    new = [(region.indent + line if line.strip() else "") + "\n" for line in body.splitlines()]
    return "".join(lines[: region.start - 1] + new + lines[region.end :])


def function_body(code: str, name: str) -> str | None:
    """When an answer is the whole function `name`, its body after the docstring."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            lines = textwrap.dedent(code).splitlines()
            doc = docstring_node(node)
            statements = node.body[1:] if doc is not None else node.body
            if not statements:
                return ""
            start = statements[0].lineno
            return "\n".join(lines[start - 1 : node.end_lineno])
    return None


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
