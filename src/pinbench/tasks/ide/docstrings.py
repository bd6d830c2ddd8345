"""The "doc" IDE scenario (Copilot Evaluation Harness): a model writes a function's docstring.

What a complete docstring must mention comes from the function's own code (`facts`, with
pydoclint's helpers), and whether a docstring mentions it, in Google, NumPy or reST style, is
pydoclint's verdict (`check_format`); `summary` reads the purpose line with docstring_parser.
Syntax correctness needs the docstring placed in the real file, so `insert_docstring` and
`strip_docstring` edit the source by lines and leave every other byte as it was: a reformatted
file would be scored on changes the model never made.
"""

from __future__ import annotations

import ast
import copy
import inspect
import re
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

import docstring_parser.google
from pydoclint.utils.generic import collectFuncArgs, detectMethodType
from pydoclint.utils.method_type import MethodType
from pydoclint.utils.return_yield_raise import (
    getRaisedExceptions,
    hasReturnStatements,
    hasYieldStatements,
)
from pydoclint.visitor import Visitor

FunctionNode: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef

# ---------------------------------------------------------------------------------------------
# What a function needs documented


@dataclass(frozen=True)
class FunctionFacts:
    """What a complete docstring for one function must mention, read from its code by pydoclint's
    own helpers (so the reference docstring is written to the rule the check applies)."""

    name: str
    params: tuple[str, ...]  # `*args` and `**kwargs` with their stars, as pydoclint wants them
    returns: bool  # the code has a `return` statement: pydoclint asks for a Returns section
    generator: bool
    raises: tuple[str, ...]
    method: bool  # defined in a class: a leading self/cls is implicit
    node: FunctionNode = field(repr=False, compare=False)


def facts(node: FunctionNode, *, method: bool = False) -> FunctionFacts:
    """The documentation requirements of `node` (a method when `method`); returns, yields and
    raises count only in its own body, since a nested function's `return` is not this
    function's."""
    args = [a.arg for a in collectFuncArgs(node)]
    if method and args and detectMethodType(node) is not MethodType.STATIC_METHOD:
        args = args[1:]
    return FunctionFacts(
        name=node.name,
        params=tuple(args),
        returns=hasReturnStatements(node),
        generator=hasYieldStatements(node),
        raises=tuple(getRaisedExceptions(node)),
        method=method,
        node=node,
    )


def find_function(tree: ast.Module, qualname: str) -> FunctionNode | None:
    """The function `qualname` names ("f", "Class.method", "Outer.Inner.m"), looking through
    if/try/with blocks (version-guarded definitions); the first definition wins."""
    *classes, name = qualname.split(".")
    body: list[ast.stmt] = tree.body
    for part in classes:
        cls = next((d for d in _definitions(body) if _is(d, ast.ClassDef, part)), None)
        if not isinstance(cls, ast.ClassDef):
            return None
        body = cls.body
    for d in _definitions(body):
        if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == name:
            return d
    return None


def _is(node: ast.AST, kind: type[ast.AST], name: str) -> bool:
    return isinstance(node, kind) and getattr(node, "name", None) == name


def _definitions(nodes: Iterable[ast.AST]) -> Iterator[ast.stmt]:
    """Function and class definitions in a block, including those under compound statements."""
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node
        elif isinstance(node, ast.stmt | ast.excepthandler | ast.match_case):
            yield from _definitions(ast.iter_child_nodes(node))


# ---------------------------------------------------------------------------------------------
# Does the docstring document what the function needs? (pydoclint decides)


@dataclass(frozen=True)
class FormatCheck:
    """Which requirements a docstring meets, kept apart so a report can say what was missed;
    `problems` are pydoclint's messages for the style the docstring fits best."""

    purpose: bool
    well_formed: bool
    params: bool
    returns: bool
    raises: bool
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Format-correct: every requirement met."""
        return self.purpose and self.well_formed and self.params and self.returns and self.raises


# pydoclint's codes that mean a requirement is missed: DOC001 the docstring does not parse in the
# style (pydoclint then checks nothing else); DOC101-103 its arguments are not the signature's;
# DOC201 a returned value, DOC402 and DOC405 a yield undocumented; DOC501 and DOC503 a raised
# exception. Documenting more than the code shows (DOC202, DOC403, DOC502) and type hints (not
# asked for) are not counted.
_MALFORMED = frozenset({1})
_PARAMS = frozenset({101, 102, 103})
_RETURNS = frozenset({201, 402, 405})
_RAISES = frozenset({501, 503})
_STYLES = ("google", "numpy", "sphinx")


def check_format(docstring: str, facts: FunctionFacts) -> FormatCheck:
    """Whether `docstring` documents purpose, every parameter, the return or yield and every
    exception the function raises itself, in any one of the Google, NumPy and reST (Sphinx)
    styles, with or without the stars of `*args`."""
    best: list[tuple[int, str]] | None = None
    stars = (False, True) if any(p.startswith("*") for p in facts.params) else (False,)
    for style in _STYLES:
        for omit_stars in stars:
            found = _violations(docstring, facts, style, omit_stars)
            if best is None or len(found) < len(best):
                best = found
        if not best:
            break  # a style it meets in full
    codes = {code for code, _ in best or ()}
    return FormatCheck(
        purpose=_has_purpose(summary(docstring), facts.name),
        well_formed=not codes & _MALFORMED,
        params=not codes & _PARAMS,
        returns=not codes & _RETURNS,
        raises=not codes & _RAISES,
        problems=tuple(message for _, message in best or ()),
    )


def _violations(
    docstring: str, facts: FunctionFacts, style: str, omit_stars: bool
) -> list[tuple[int, str]]:
    """pydoclint's counted violations of `docstring` as the function's own, in `style`."""
    node = copy.copy(facts.node)
    doc = ast.Expr(ast.Constant(docstring))
    ast.copy_location(doc, node)
    body = node.body[1:] if _docstring_expr(node) is not None else node.body
    node.body = [doc, *body]
    tree: ast.AST = node
    if facts.method:
        tree = ast.ClassDef(name="C", bases=[], keywords=[], body=[node], decorator_list=[])
        ast.copy_location(tree, node)
    visitor = Visitor(
        style=style,
        argTypeHintsInSignature=False,
        argTypeHintsInDocstring=False,
        checkArgOrder=False,
        skipCheckingShortDocstrings=False,
        allowInitDocstring=True,
        checkReturnTypes=False,
        checkYieldTypes=False,
        checkClassAttributes=False,
        omitStarsWhenDocumentingVarargs=omit_stars,
    )
    visitor.visit(tree)
    counted = _MALFORMED | _PARAMS | _RETURNS | _RAISES
    return [
        (v.code, f"DOC{v.code:03d}: {v.msg}")
        for v in visitor.violations
        if v.line == node.lineno and v.code in counted
    ]


def _clean(docstring: str) -> str:
    """`inspect.cleandoc` with newlines normalised, as Python's tokenizer normalises them in a
    literal, so a docstring compares equal to what `ast.get_docstring` reads back."""
    return inspect.cleandoc(docstring.replace("\r\n", "\n").replace("\r", "\n"))


def summary(docstring: str) -> str:
    """The docstring's first paragraph on one line; empty when it opens with a section (a
    section title docstring_parser knows, followed by a colon or underlined, or a reST field)."""
    lines = _clean(docstring).split("\n")
    paragraph: list[str] = []
    for i, line in enumerate(lines):
        text = line.strip()
        if not text:
            if paragraph:
                break
            continue
        underlined = i + 1 < len(lines) and _RULE.fullmatch(lines[i + 1]) is not None
        if text.startswith(":") or text[:-1] in _GOOGLE_TITLES or underlined:
            break
        paragraph.append(text)
    return " ".join(paragraph)


_GOOGLE_TITLES = frozenset(section.title for section in docstring_parser.google.DEFAULT_SECTIONS)
_RULE = re.compile(r"\s*-{3,}\s*")


_FILLER = frozenset({"a", "an", "the", "this", "function", "method"})
_PLACEHOLDERS = frozenset({"todo", "fixme", "tbd", "xxx", "docstring", "summary", "description"})


def _has_purpose(summary: str, name: str) -> bool:
    """A summary says what the function is for: not empty, not a placeholder, and not just its
    name restated ("Get value." for `get_value`)."""
    words = [w for w in _words(summary) if w not in _FILLER]
    if not words or set(words) <= _PLACEHOLDERS:
        return False
    return [_stem(w) for w in words] != [_stem(w) for w in _words(name)]


def _words(text: str) -> list[str]:
    """Lower-case words, splitting snake_case and camelCase."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return re.findall(r"[^\W_]+", spaced.lower())


def _stem(word: str) -> str:
    """`gets` and `get` restate the same name."""
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def synthesize(facts: FunctionFacts, summary: str) -> str:
    """A Google-style docstring documenting everything `facts` requires: the reference answer
    when a function has no good docstring of its own."""
    sections = [summary.strip()]
    if facts.params:
        sections.append(
            _google("Args", [f"{p}: The {p.lstrip('*')} argument." for p in facts.params])
        )
    if facts.generator:
        sections.append(_google("Yields", ["The values generated."]))
    if facts.returns:
        sections.append(_google("Returns", ["The result."]))
    if facts.raises:
        sections.append(
            _google("Raises", [f"{e}: When the input is invalid." for e in facts.raises])
        )
    return "\n\n".join(sections)


def _google(header: str, entries: list[str]) -> str:
    return "\n".join([f"{header}:", *(f"    {e}" for e in entries)])


# ---------------------------------------------------------------------------------------------
# The docstring in a model's answer

_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_LITERAL_START = re.compile(r"\s*(?P<prefix>[rRuU]?)(?P<quote>\"\"\"|''')")


def answer_docstring(answer: str, qualname: str) -> str | None:
    """The docstring a model's answer gives for `qualname`: that function's docstring when the
    answer is code defining it, else a leading string literal, else the answer as prose. None
    when there is nothing, or the answer is code that does not document this function."""
    text = answer.replace("\r\n", "\n").strip()
    if not text:
        return None
    blocks = [m.group(1) for m in _FENCE.finditer(text)]
    candidates = [*blocks, text]
    name, is_code = qualname.rsplit(".", 1)[-1], False
    for candidate in candidates:
        tree = _parse_code(candidate)
        doc = _function_docstring(tree, name) if tree else None
        if doc is not None:
            return doc
        is_code = is_code or (tree is not None and _defines_something(tree))
    literal = next((s for s in map(_leading_literal, candidates) if s is not None), None)
    if literal is not None:
        return _clean(literal)
    if is_code:
        return None
    return _clean(blocks[0] if blocks else text) or None


def _parse_code(text: str) -> ast.Module | None:
    """The code in `text`, also when it is an indented method copied out of its class."""
    for attempt in (text, textwrap.dedent(text)):
        try:
            return ast.parse(attempt)
        except (SyntaxError, ValueError, RecursionError):
            continue
    return None


def _function_docstring(tree: ast.Module, name: str) -> str | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return ast.get_docstring(node)
    return None


def _defines_something(tree: ast.Module) -> bool:
    """Code, not prose that happens to parse (a one-word answer is a valid expression)."""
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in ast.walk(tree)
    )


def _leading_literal(text: str) -> str | None:
    """The value of the triple-quoted literal `text` starts with; an unterminated one (a
    truncated answer) runs to the end."""
    m = _LITERAL_START.match(text)
    if m is None:
        return None
    quote, start = m["quote"], m.end()
    end = _closing_quote(text, start, quote)
    if end is None:
        return text[start:]
    try:
        value = ast.literal_eval(m["prefix"] + quote + text[start:end] + quote)
    except (SyntaxError, ValueError):
        return text[start:end]
    return value if isinstance(value, str) else None


def _closing_quote(text: str, start: int, quote: str) -> int | None:
    """Where the literal opened before `start` closes; a backslash escapes a quote even in raw
    strings."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text.startswith(quote, i):
            return i
        else:
            i += 1
    return None


# ---------------------------------------------------------------------------------------------
# The docstring in the file

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def insert_docstring(source: str, qualname: str, docstring: str) -> str:
    """`source` with `docstring` as the docstring of `qualname`, replacing any it had. Only the
    lines holding the old docstring (or the one-line body being split) change.

    Raises:
        KeyError: `qualname` is not defined in `source`.
    """
    fn, lines = _locate(source, qualname)
    old = _docstring_expr(fn)
    if _inline(lines, fn.body[0]):
        return _insert_inline(lines, fn, old, docstring)
    if old is not None:
        return _replace_block(lines, old, docstring)
    return _insert_block(lines, fn, docstring)


def strip_docstring(source: str, qualname: str) -> str:
    """`source` without `qualname`'s docstring, for a prompt that shows the function bare; a body
    that was only the docstring becomes `...`.

    Raises:
        KeyError: `qualname` is not defined in `source`.
    """
    fn, lines = _locate(source, qualname)
    old = _docstring_expr(fn)
    if old is None:
        return source
    row, col, end_row, end_col = _span(lines, old)
    head, ending = lines[row][:col], _ending(lines[end_row])
    rest = _after_statement(lines[end_row][end_col:])
    sole = len(fn.body) == 1
    if not rest:
        new = head + "..." + ending if sole else ("" if not head.strip() else head + ending)
    elif rest.startswith("#") and sole:
        new = head + "...  " + rest + ending
    else:
        new = head + rest + ending
    return "".join([*lines[:row], new, *lines[end_row + 1 :]])


def syntax_ok(source_with_docstring: str, qualname: str, docstring: str) -> bool:
    """The file parses, still defines `qualname`, and Python reads `docstring` back as its
    docstring: the docstring landed in the right place and its quoting survived."""
    try:
        tree = ast.parse(source_with_docstring)
    except (SyntaxError, ValueError, RecursionError):
        return False
    fn = find_function(tree, qualname)
    return fn is not None and ast.get_docstring(fn) == _clean(docstring)


def _locate(source: str, qualname: str) -> tuple[FunctionNode, list[str]]:
    fn = find_function(ast.parse(source), qualname)
    if fn is None:
        raise KeyError(qualname)
    return fn, _LINE.findall(source)


def _docstring_expr(fn: FunctionNode) -> ast.Expr | None:
    first = fn.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first if isinstance(first.value.value, str) else None
    return None


def _span(lines: list[str], node: ast.stmt) -> tuple[int, int, int, int]:
    """Rows and character columns of `node` (ast columns count UTF-8 bytes)."""
    end_line = node.end_lineno if node.end_lineno is not None else node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    row, end_row = node.lineno - 1, end_line - 1
    return row, _char_col(lines[row], node.col_offset), end_row, _char_col(lines[end_row], end_col)


def _char_col(line: str, byte_col: int) -> int:
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _newline(lines: list[str]) -> str:
    return next((_ending(line) for line in lines if _ending(line)), "\n")


def _inline(lines: list[str], first: ast.stmt) -> bool:
    """The body sits on the `def` line (`def f(x): return x`)."""
    row, col, _, _ = _span(lines, first)
    return bool(lines[row][:col].strip())


def _after_statement(tail: str) -> str:
    """What follows a statement on its last line, without the `;` that joined the next one."""
    rest = tail.strip()
    return rest[1:].strip() if rest.startswith(";") else rest


def _literal(docstring: str, indent: str, newline: str) -> str:
    """`docstring` as a triple-quoted literal whose value cleans back to it; continuation lines
    carry the body's indentation, which `inspect.cleandoc` takes off again."""
    lines = _escape(_clean(docstring)).split("\n")
    if len(lines) == 1:
        return f'"""{lines[0]}"""'
    rest = [indent + line if line else line for line in lines[1:]]
    return newline.join(['"""' + lines[0], *rest, indent + '"""'])


def _escape(text: str) -> str:
    """Backslashes doubled, a quote escaped where it would start or touch a closing `\"\"\"`, and
    control characters written as escapes (a raw CR would read back as a newline)."""
    text = text.replace("\\", "\\\\")
    text = re.sub(r'"(?="|\Z)', r'\\"', text)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _replace_block(lines: list[str], old: ast.Expr, docstring: str) -> str:
    row, col, end_row, end_col = _span(lines, old)
    head = lines[row][:col]
    new = head + _literal(docstring, head, _newline(lines)) + lines[end_row][end_col:]
    return "".join([*lines[:row], new, *lines[end_row + 1 :]])


def _insert_block(lines: list[str], fn: FunctionNode, docstring: str) -> str:
    """A new first line right after the signature, indented like the first statement."""
    first = fn.body[0]
    row, col, _, _ = _span(lines, first)
    start = min([row, *(d.lineno - 1 for d in getattr(first, "decorator_list", []))])
    header = _header_end(lines, start)
    newline = _ending(lines[header]) or _newline(lines)
    new = lines[row][:col] + _literal(docstring, lines[row][:col], newline) + newline
    return "".join([*lines[: header + 1], new, *lines[header + 1 :]])


def _header_end(lines: list[str], body_start: int) -> int:
    """The row of the signature's closing `:`: only blank and comment lines lie between it and
    the body."""
    row = body_start - 1
    while row > 0 and (not lines[row].strip() or lines[row].lstrip().startswith("#")):
        row -= 1
    return row


def _insert_inline(lines: list[str], fn: FunctionNode, old: ast.Expr | None, docstring: str) -> str:
    """`def f(x): return x` becomes a block: signature, docstring, then what followed the colon
    (less the old docstring) on a line of its own."""
    row, col, end_row, end_col = _span(lines, old or fn.body[0])
    outer = lines[fn.lineno - 1][: _char_col(lines[fn.lineno - 1], fn.col_offset)]
    indent = outer + ("\t" if outer.startswith("\t") else "    ")
    newline = _newline(lines)
    out = [lines[row][:col].rstrip() + newline, indent + _literal(docstring, indent, newline)]
    if old is None:
        out.append(newline + indent + lines[row][col:])
        after = row + 1
    else:
        rest = _after_statement(lines[end_row][end_col:])
        out.append((newline + indent + rest if rest else "") + _ending(lines[end_row]))
        after = end_row + 1
    return "".join([*lines[:row], *out, *lines[after:]])
