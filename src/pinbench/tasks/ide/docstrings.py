"""The "doc" IDE scenario (Copilot Evaluation Harness): a model writes a function's docstring.

What a complete docstring must mention comes from the function's own code (`facts`), what a
docstring mentions from its text in Google, NumPy or reST style (`parse`), and the two meet in
`check_format`. Syntax correctness needs the docstring placed in the real file, so
`insert_docstring` and `strip_docstring` edit the source by lines and leave every other byte as it
was: a reformatted file would be scored on changes the model never made.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

FunctionNode: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef

# ---------------------------------------------------------------------------------------------
# What a function needs documented


@dataclass(frozen=True)
class FunctionFacts:
    """What a complete docstring for one function must mention, read from its code so the
    requirement follows what the function does, not whatever docstring it had."""

    name: str
    params: tuple[str, ...]
    returns_value: bool
    generator: bool
    raises: tuple[str, ...]


_IMPLICIT_FIRST = frozenset({"self", "cls"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def facts(node: FunctionNode) -> FunctionFacts:
    """The documentation requirements of `node`; returns, yields and raises count only in its own
    body, since a nested function's `return` is not this function's."""
    own = list(_own_nodes(node))
    return FunctionFacts(
        name=node.name,
        params=_params(node.args),
        returns_value=any(isinstance(n, ast.Return) and _is_value(n.value) for n in own),
        generator=any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own),
        raises=_raised(own),
    )


def _params(args: ast.arguments) -> tuple[str, ...]:
    """Parameter names in signature order; a leading self/cls is implicit and never documented."""
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if positional and positional[0] in _IMPLICIT_FIRST:
        positional = positional[1:]
    star = [args.vararg.arg] if args.vararg else []
    double_star = [args.kwarg.arg] if args.kwarg else []
    return (*positional, *star, *(a.arg for a in args.kwonlyargs), *double_star)


def _own_nodes(fn: FunctionNode) -> Iterator[ast.AST]:
    """Every node of `fn`'s body outside nested functions, lambdas and classes."""
    stack: list[ast.AST] = [s for s in fn.body if not isinstance(s, _SCOPES)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))


def _is_value(expr: ast.expr | None) -> bool:
    """`return` and `return None` give the caller nothing to document."""
    return expr is not None and not (isinstance(expr, ast.Constant) and expr.value is None)


def _raised(nodes: Iterable[ast.AST]) -> tuple[str, ...]:
    names = {_raised_class(n.exc) for n in nodes if isinstance(n, ast.Raise)}
    return tuple(sorted(n for n in names if n is not None))


def _raised_class(exc: ast.expr | None) -> str | None:
    """The class name in `raise X`, `raise X(...)`, `raise mod.X(...)`; None for a bare `raise`
    or a re-raised variable (`raise err`), whose class the code does not name."""
    target = exc.func if isinstance(exc, ast.Call) else exc
    if isinstance(target, ast.Name):
        name = target.id
    elif isinstance(target, ast.Attribute):
        name = target.attr
    else:
        return None
    return name if name.lstrip("_")[:1].isupper() else None


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
# What a docstring documents


@dataclass(frozen=True)
class ParsedDocstring:
    """What a docstring documents, whichever style (or mix of styles) it is written in."""

    summary: str
    styles: frozenset[str]
    params: frozenset[str]
    returns: bool
    yields: bool
    raises: frozenset[str]


@dataclass
class _Found:
    styles: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)
    returns: bool = False
    yields: bool = False
    raises: set[str] = field(default_factory=set)


_GOOGLE_KINDS = {
    "args": "params",
    "arguments": "params",
    "parameters": "params",
    "params": "params",
    "keyword args": "params",
    "keyword arguments": "params",
    "other parameters": "params",
    "returns": "returns",
    "return": "returns",
    "yields": "yields",
    "yield": "yields",
    "raises": "raises",
    "raise": "raises",
    "exceptions": "raises",
}
_NUMPY_KINDS = {
    "parameters": "params",
    "other parameters": "params",
    "returns": "returns",
    "yields": "yields",
    "raises": "raises",
}
_REST_KINDS = {
    **dict.fromkeys(("param", "parameter", "arg", "argument", "key", "keyword"), "params"),
    **dict.fromkeys(("returns", "return"), "returns"),
    **dict.fromkeys(("yields", "yield"), "yields"),
    **dict.fromkeys(("raises", "raise", "except", "exception"), "raises"),
    **dict.fromkeys(("type", "rtype", "ytype", "var", "ivar", "cvar", "vartype"), "other"),
}
_GOOGLE_HEADER = re.compile(r"\s*(?P<name>[A-Za-z]+(?:[ \t]+[A-Za-z]+)*)\s*:\s*(?P<inline>.*)")
_NUMPY_RULE = re.compile(r"\s*-{3,}\s*")
_REST_FIELD = re.compile(r"\s*:(?P<field>\w+)(?P<arg>[^:]*):(?P<body>.*)")
_NAMES = r"(?P<names>[\w*\\]+(?:\s*,\s*[\w*\\]+)*)"
_GOOGLE_PARAM = re.compile(_NAMES + r"\s*(?:\(.*\))?\s*:.*")
_NUMPY_PARAM = re.compile(_NAMES + r"\s*(?::.*)?")
_ROLE = re.compile(r"(?::\w+)+:(?=`)")


def parse(docstring: str) -> ParsedDocstring:
    """What `docstring` documents. Sections are read one after another, each consuming its body,
    so an entry inside one (a parameter called `returns`) is never taken for another header."""
    lines = _clean(docstring).split("\n")
    found = _Found()
    first_section, i = len(lines), 0
    while i < len(lines):
        end = _section(lines, i, found)
        if end is None:
            i += 1
        else:
            first_section, i = min(first_section, i), end
    return ParsedDocstring(
        summary=_summary(lines[:first_section]),
        styles=frozenset(found.styles),
        params=frozenset(found.params),
        returns=found.returns,
        yields=found.yields,
        raises=frozenset(found.raises),
    )


def _clean(docstring: str) -> str:
    """`inspect.cleandoc` with newlines normalised, as Python's tokenizer normalises them in a
    literal, so a docstring compares equal to what `ast.get_docstring` reads back."""
    return inspect.cleandoc(docstring.replace("\r\n", "\n").replace("\r", "\n"))


def _section(lines: list[str], i: int, found: _Found) -> int | None:
    """Record the section or field starting at line `i`; the line after it, None if none does."""
    for reader in (_numpy_section, _google_section, _rest_field):
        end = reader(lines, i, found)
        if end is not None:
            return end
    return None


def _summary(lines: list[str]) -> str:
    """The first paragraph before any section, on one line."""
    paragraph: list[str] = []
    for line in lines:
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(paragraph)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _numpy_header(lines: list[str], i: int) -> bool:
    return (
        i + 1 < len(lines) and bool(lines[i].strip()) and bool(_NUMPY_RULE.fullmatch(lines[i + 1]))
    )


def _numpy_section(lines: list[str], i: int, found: _Found) -> int | None:
    """A title underlined with dashes; its body runs to the next underlined title (or reST field,
    in a docstring that mixes styles)."""
    if not _numpy_header(lines, i):
        return None
    end = i + 2
    while end < len(lines) and not _numpy_header(lines, end) and not _rest_kind(lines[end]):
        end += 1
    found.styles.add("numpy")
    kind = _NUMPY_KINDS.get(" ".join(lines[i].lower().split()))
    if kind is not None:
        _record(kind, lines[i + 2 : end], "", found, _NUMPY_PARAM)
    return end


def _google_section(lines: list[str], i: int, found: _Found) -> int | None:
    """`Args:` and friends; the body is everything indented deeper than the header."""
    m = _GOOGLE_HEADER.fullmatch(lines[i])
    kind = _GOOGLE_KINDS.get(" ".join(m["name"].lower().split())) if m else None
    if m is None or kind is None or (m["inline"] and kind in ("params", "raises")):
        return None
    end = _block_end(lines, i)
    found.styles.add("google")
    _record(kind, lines[i + 1 : end], m["inline"], found, _GOOGLE_PARAM)
    return end


def _block_end(lines: list[str], i: int) -> int:
    """The first line after `i` that is not blank and not indented deeper than line `i`."""
    end, indent = i + 1, _indent(lines[i])
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    return end


def _record(kind: str, body: list[str], inline: str, found: _Found, entry: re.Pattern[str]) -> None:
    """Add a Google or NumPy section's contents; a Returns section must say something."""
    if kind == "params":
        found.params.update(n for e in _entries(body) for n in _param_names(e, entry))
    elif kind == "raises":
        found.raises.update(n for e in _entries(body) for n in _exception_names(e))
    elif inline.strip() or any(line.strip() for line in body):
        found.returns = found.returns or kind == "returns"
        found.yields = found.yields or kind == "yields"


def _entries(body: list[str]) -> list[str]:
    """The entry lines of a section: the least indented ones (descriptions sit deeper)."""
    filled = [line for line in body if line.strip()]
    if not filled:
        return []
    least = min(_indent(line) for line in filled)
    return [line.strip() for line in filled if _indent(line) == least]


def _param_names(entry: str, pattern: re.Pattern[str]) -> list[str]:
    m = pattern.fullmatch(entry)
    return [_param_name(n) for n in m["names"].split(",")] if m else []


def _param_name(token: str) -> str:
    r"""`*args`, `\*\*kwargs` and `args` all document the parameter `args`."""
    return token.strip().replace("\\", "").lstrip("*")


def _exception_names(entry: str) -> list[str]:
    """`ValueError: text`, `mod.Error`, `:exc:`ValueError``, `A, B: text` -> class names."""
    head = _ROLE.sub("", entry).replace("`", "").replace("~", "").split(":")[0]
    pieces = (p.strip() for p in head.split(","))
    return [p.rsplit(".", 1)[-1] for p in pieces if re.fullmatch(r"[\w.]+", p)]


def _rest_kind(line: str) -> str | None:
    m = _REST_FIELD.fullmatch(line)
    return _REST_KINDS.get(m["field"].lower()) if m else None


def _rest_field(lines: list[str], i: int, found: _Found) -> int | None:
    """`:param x:`, `:returns:`, `:raises E:` and the like, with any deeper-indented lines."""
    m = _REST_FIELD.fullmatch(lines[i])
    kind = _rest_kind(lines[i])
    if m is None or kind is None:
        return None
    end = _block_end(lines, i)
    found.styles.add("rest")
    arg, text = m["arg"].strip(), " ".join([m["body"], *lines[i + 1 : end]]).strip()
    if kind == "params" and arg:
        found.params.add(_param_name(arg.split()[-1]))
    elif kind == "raises":
        found.raises.update(_exception_names(arg or next(iter(text.split()), "")))
    elif kind in ("returns", "yields") and text:
        _record(kind, [text], "", found, _GOOGLE_PARAM)
    return end


# ---------------------------------------------------------------------------------------------
# Does the docstring document what the function needs?


@dataclass(frozen=True)
class FormatCheck:
    """Which requirements a docstring meets, kept apart so a report can say what was missed."""

    purpose: bool
    missing_params: tuple[str, ...]
    returns: bool
    missing_raises: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Format-correct: every requirement met."""
        return self.purpose and not self.missing_params and self.returns and not self.missing_raises


_FILLER = frozenset({"a", "an", "the", "this", "function", "method"})
_PLACEHOLDERS = frozenset({"todo", "fixme", "tbd", "xxx", "docstring", "summary", "description"})


def check_format(docstring: str, facts: FunctionFacts) -> FormatCheck:
    """Whether `docstring` documents purpose, every parameter, the return (or, for a generator,
    the yield; either section is accepted) and every exception the function raises itself."""
    doc = parse(docstring)
    if facts.generator:
        returns = doc.yields or doc.returns
    else:
        returns = doc.returns or not facts.returns_value
    return FormatCheck(
        purpose=_has_purpose(doc.summary, facts.name),
        missing_params=tuple(p for p in facts.params if p not in doc.params),
        returns=returns,
        missing_raises=tuple(r for r in facts.raises if r not in doc.raises),
    )


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
        sections.append(_google("Args", [f"{p}: The {p} argument." for p in facts.params]))
    if facts.generator:
        sections.append(_google("Yields", ["The values generated."]))
    elif facts.returns_value:
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
