"""From a model's answer to the program that is run.

Extraction decides what gets executed, so it errs on the side of keeping the model's code: it
never removes lines from an answer that is already a valid program, and it repairs only two
mechanical slips that say nothing about version knowledge (the thing pinbench measures): an
answer giving only the function's body, and an answer that drops the starter's imports. It never
invents code beyond the problem's own starter.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Iterator
from dataclasses import dataclass

from pinbench.tasks.answers import (
    CODE_START,
    choose_block,
    compiles,
    dedent,
    defines,
    fenced_blocks,
    is_program,
    parse,
    parses,
    parsing_prefix,
    python_blocks,
    strip_repl,
    unfenced,
)
from pinbench.tasks.generation.normalize import join_program
from pinbench.tasks.generation.problem import Language, Problem
from pinbench.tasks.generation.templates import Style

# Lines that only code has (used to tell a code fragment that does not parse from prose).
_CODE_LINE = re.compile(
    r"^[ \t]*(return\b|yield\b|raise\b|(for|while|if|with|try)\b.*:|"
    r"[A-Za-z_][\w.]*(\[[^\]]*\])?[ \t]*([-+*/%&|^@]|//|\*\*|>>|<<)?=[^=]|[A-Za-z_][\w.]*\()"
)
_TOP_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)
_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==")
_PLACEHOLDERS = frozenset({"pass", "..."})
_HEADER_END = re.compile(r":[ \t]*(#[^'\"]*)?$")  # a line ending a def header (comment allowed)
# Prose: a word, then (after at most a colon or full stop) another word.
_PROSE = re.compile(r"^(?P<first>[A-Za-z][\w'’-]*)[:.]?[ \t]+[A-Za-z][\w'’-]*")
_NOT_PROSE = frozenset({*keyword.kwlist, *keyword.softkwlist, "print", "exec", "await"})


def extract_program(text: str, problem: Problem, style: Style = Style.INSTRUCT) -> str:
    """The program to run for a model's `text` answering `problem` ('' when there is none).

    Instruct answers: the whole text when it is a program; else the best fenced Python block
    (the first defining the starter's function, else the first that parses, else the first);
    else, without fences, the longest parsing run of lines from the first code-looking line.
    A body-only answer is put back into the starter; imports of the starter (and of the
    answer's other blocks) that the program lacks are added. Completion answers are appended to
    the starter, cut at the first line that is clearly not code.

    Never raises: an evaluation of thousands of samples must record one odd answer as a failed
    sample, not stop. Line endings become LF; the result ends with one newline.
    """
    try:
        return _extract(text.replace("\r\n", "\n").replace("\r", "\n"), problem, style)
    except Exception:  # a bug here must cost one sample, never the run (see docstring)
        return ""


# Fences a JavaScript or TypeScript answer may carry its program in ('' is untagged)
_JS_LANGS = frozenset({"", "js", "javascript", "mjs", "cjs", "node", "nodejs", "jsx"})
_TS_LANGS = frozenset({*_JS_LANGS, "ts", "typescript", "tsx"})
_JS_NAME = re.compile(r"(?:function\s*\*?\s*|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)")


def _extract_node(text: str, problem: Problem, style: Style) -> str:
    """A JavaScript/TypeScript answer: completions are appended to the starter; otherwise the
    fenced block that defines the starter's first function (else the first block), else the
    whole answer."""
    starter = problem.starter_code.replace("\r\n", "\n")
    if style is Style.COMPLETION:
        return _finish(starter + text)
    languages = _TS_LANGS if problem.language is Language.TYPESCRIPT else _JS_LANGS
    blocks = fenced_blocks(text, languages)
    if not blocks:
        return _finish(text.strip("\n")) if text.strip() else ""
    target = _JS_NAME.search(starter)
    if target:
        defining = re.compile(rf"(function\s*\*?\s*|(const|let|var)\s+){re.escape(target[1])}\b")
        for code in blocks:
            if defining.search(code):
                return _finish(code)
    return _finish(blocks[0])


def _extract(text: str, problem: Problem, style: Style) -> str:
    if problem.language is not Language.PYTHON:
        return _extract_node(text, problem, style)
    starter = _Starter.of(problem.starter_code.replace("\r\n", "\n"))
    if style is Style.COMPLETION:
        return _completion(text, starter.text)
    blocks = python_blocks(text)
    others: list[str] = []
    whole = strip_repl(text)
    if is_program(dedent(whole)):
        code = whole
    elif blocks:
        chosen = choose_block(blocks, starter.target)
        code, others = blocks[chosen], blocks[:chosen] + blocks[chosen + 1 :]
    else:
        code = unfenced(whole, starter.first_line)
    if not _code_like(code):
        return ""
    return _finish(_assemble(code, starter, others))


def _completion(continuation: str, starter: str) -> str:
    """The starter continued by the model, as the dataset joins a starter and its solution."""
    continuation = _cut_junk(continuation, starter)
    if not continuation.strip() or not (starter.strip() or _code_like(continuation)):
        return ""
    return _finish(join_program(starter, continuation))


@dataclass(frozen=True)
class _Starter:
    """What extraction needs to know about the starter code."""

    text: str
    target: str | None  # the function to complete: the starter's last top-level def
    first_line: str  # its first non-blank line, which marks where code starts in an answer
    open_line: bool  # its last line has no newline ('    return '): the answer may continue it
    imports: tuple[str, ...]  # its top-level import statements, as written

    @classmethod
    def of(cls, text: str) -> _Starter:
        names = _TOP_DEF.findall(text)
        last = text.split("\n")[-1]
        open_line = bool(last.strip()) and not last.rstrip().endswith(":")
        first = next((line.strip() for line in text.split("\n") if line.strip()), "")
        imports = _import_statements(parsing_prefix(text.split("\n"), 0))
        return cls(text, names[-1] if names else None, first, open_line, imports)


# --- finding the code ---------------------------------------------------------------------


# --- assembling the program -----------------------------------------------------------------


def _assemble(code: str, starter: _Starter, others: list[str]) -> str:
    """The program for `code`: the body put into the starter when that is all the answer gave,
    otherwise the answer with the imports it lacks: the starter's (the answer was asked to keep
    them), and those of the answer's other blocks that bind a name it uses but never binds (a
    model sometimes puts its imports in a block of their own; an import merely shown, say of
    the old API in a chain of thought, is not taken)."""
    target = starter.target
    answered_body = starter.open_line or _looks_like_body(code)
    if target is not None and answered_body and not defines(dedent(code), target):
        return _attach_body(starter, target, code)
    code = dedent(code)
    code = _add_imports(code, list(starter.imports))
    unbound = _used_names(code) - _bound_names(code)
    extra = [s for block in others for s in _import_statements(block)]
    return _add_imports(code, [s for s in extra if _import_bindings(s) & unbound])


def _looks_like_body(code: str) -> bool:
    """Indented code, or code with a `return`/`yield` outside any function, is a body."""
    first = next((ln for ln in code.split("\n") if ln.strip() and not _is_comment(ln)), "")
    if first[:1] in (" ", "\t"):
        return True
    tree = parse(code)
    return tree is not None and any(_returns_outside_functions(node) for node in tree.body)


def _returns_outside_functions(node: ast.AST) -> bool:
    if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom):
        return True
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
        return False
    return any(_returns_outside_functions(child) for child in ast.iter_child_nodes(node))


def _attach_body(starter: _Starter, target: str, body: str) -> str:
    """The starter with `body` as the body of its function `target`.

    A starter ending inside a line ('    return ') is continued, as the dataset joins a starter
    and its solution, or has that line replaced when the answer repeats it ('return x')."""
    body_lines = dedent(body).strip("\n").split("\n")
    if not starter.open_line:
        return _append_body(starter.text.split("\n"), target, body_lines)
    *head, last = starter.text.split("\n")
    # the answer does not continue the open line: it goes, unless it is a whole docstring
    appended = _append_body([*head, last] if _is_docstring(last) else head, target, body_lines)
    indent = _indent_of(last)
    if _repeats(body_lines[0], last.strip()):
        return "\n".join([*head, *_indented(body_lines, indent)])
    joined = "\n".join([*head, last + body_lines[0], *_indented(body_lines[1:], indent)])
    return joined if compiles(joined) or not compiles(appended) else appended


def _is_docstring(line: str) -> bool:
    tree = parse(line.strip())
    return (
        tree is not None
        and len(tree.body) == 1
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Constant)
        and isinstance(tree.body[0].value.value, str)
    )


def _repeats(first: str, open_line: str) -> bool:
    """Whether the answer's first line restates the open line ('return x' for 'return '), not
    merely starts with the same letters ('return_value = 1' does not restate 'return')."""
    if not first.startswith(open_line):
        return False
    after = first[len(open_line) : len(open_line) + 1]
    return not (open_line[-1:].isidentifier() and (after.isidentifier() or after.isdigit()))


def _append_body(lines: list[str], target: str, body: list[str]) -> str:
    """`body` indented as the body of `def target` in `lines`, after its docstring; stub
    placeholders (`pass`, `...`, `raise NotImplementedError`) go, as they would end it."""
    start = max(i for i, ln in enumerate(lines) if defines(ln, target))
    header_end, end = _function_span(lines, start)
    inner = [ln for ln in lines[header_end + 1 : end] if not _is_placeholder(ln)]
    indent = next((_indent_of(ln) for ln in inner if ln.strip()), "    ")
    head = [*lines[: header_end + 1], *inner]
    return "\n".join([*head, *_indented(body, indent), *lines[end:]])


def _function_span(lines: list[str], start: int) -> tuple[int, int]:
    """(index of the line ending the def header, index after the function's last line)."""
    header_end = start
    for i in range(start, len(lines)):
        if i > start and CODE_START.match(lines[i]) and lines[i][:1] not in (" ", "\t"):
            break  # the next top-level definition: this def's header was one line
        if _HEADER_END.search(lines[i]):
            header_end = i
            break
    end = header_end + 1
    for i in range(header_end + 1, len(lines)):
        line = lines[i]
        if line.strip() and line[:1] not in (" ", "\t") and not _is_comment(line):
            break
        if line.strip():
            end = i + 1
    return header_end, end


def _is_placeholder(line: str) -> bool:
    stripped = line.strip()
    return stripped in _PLACEHOLDERS or stripped.startswith("raise NotImplementedError")


def _add_imports(code: str, statements: list[str]) -> str:
    """`code` with those of `statements` that bind a name `code` does not bind at module level,
    placed after any `from __future__` imports (which must stay first)."""
    bound = _bound_names(code)
    missing: list[str] = []
    for statement in statements:
        names = _import_bindings(statement)
        if names and not names <= bound:
            missing.append(statement)
            bound |= names
    if not missing:
        return code
    lines = code.split("\n")
    at = _after_future_imports(code)
    return "\n".join([*lines[:at], *missing, *lines[at:]])


def _after_future_imports(code: str) -> int:
    """The line index after the last module-level `from __future__ import`, else 0."""
    tree = parse(code)
    if tree is None:
        return 0
    ends = [node.end_lineno or node.lineno for node in tree.body if _is_future(node)]
    return max(ends, default=0)


# --- completion style -----------------------------------------------------------------------


def _cut_junk(continuation: str, starter: str) -> str:
    """The continuation up to its first module-level line that is clearly not code: a markdown
    fence, a main guard, or prose (prose only where the code before it parses, so that a line
    inside a multi-line string is never taken for prose). Helper functions are kept."""
    lines = continuation.split("\n")
    first = 0 if starter.endswith("\n") or not starter else 1  # line 0 continues the starter
    for i in range(first, len(lines)):
        line = lines[i]
        if line[:1] in (" ", "\t", "#") or not line.strip():
            continue
        if line.startswith(("```", "~~~")) or _MAIN_GUARD.match(line):
            return "\n".join(lines[:i])
        if _is_prose(line) and parses(join_program(starter, "\n".join(lines[:i]))):
            return "\n".join(lines[:i])
    return continuation


def _is_prose(line: str) -> bool:
    """A sentence: two plain words in a row, no '=' and no open bracket, comma or backslash at
    the end (as a statement continued on the next line has), and it does not parse."""
    prose = _PROSE.match(line)
    if prose is None or prose["first"] in _NOT_PROSE or "=" in line:
        return False
    return not line.rstrip().endswith(("(", "[", "{", ",", "\\")) and not parses(line)


# --- small helpers --------------------------------------------------------------------------


def _finish(program: str) -> str:
    """No leading blank lines, exactly one trailing newline ('' stays '')."""
    lines = program.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    body = "\n".join(lines).rstrip()
    return body + "\n" if body else ""


def _code_like(code: str) -> bool:
    """A program, or a fragment (truncated, broken) with at least one line only code has."""
    if is_program(dedent(code)):
        return True
    return any(CODE_START.match(ln) or _CODE_LINE.match(ln) for ln in code.split("\n"))


def _used_names(code: str) -> set[str]:
    """Every name `code` reads (every identifier-like word when it does not parse)."""
    tree = parse(code)
    if tree is None:
        return set(re.findall(r"[A-Za-z_]\w*", code))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound_names(code: str) -> set[str]:
    """Names bound at module level (imports, defs, classes, assignments), outside any function
    or class body; for code that does not parse, those of its import lines and defs."""
    tree = parse(code)
    if tree is None:
        found = set(_TOP_DEF.findall(code))
        for line in code.split("\n"):
            if CODE_START.match(line) and line.lstrip().startswith(("import", "from")):
                found |= _import_bindings(line.strip())
        return found
    return {name for node in tree.body for name in _names_bound_by(node)}


def _names_bound_by(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
        return
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield from _bindings_of(node)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        yield node.id
    if isinstance(node, ast.Lambda):
        return
    for child in ast.iter_child_nodes(node):
        yield from _names_bound_by(child)


@functools.lru_cache(maxsize=256)  # starters repeat across every sample of a problem
def _import_statements(code: str) -> tuple[str, ...]:
    """The module-level import statements of `code`, as written (`__future__` ones left out:
    they are only valid first in a file)."""
    tree = parse(code)
    if tree is None:
        return ()
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and not _is_future(node):
            segment = ast.get_source_segment(code, node)
            if segment:
                found.append(segment)
    return tuple(found)


def _import_bindings(statement: str) -> set[str]:
    tree = parse(statement)
    if tree is None:
        return set()
    return {
        n
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for n in _bindings_of(node)
    }


def _bindings_of(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The names an import binds; a star import binds the marker '*module'."""
    for alias in node.names:
        if alias.name == "*":
            yield f"*{node.module if isinstance(node, ast.ImportFrom) else ''}"
        elif alias.asname:
            yield alias.asname
        elif isinstance(node, ast.Import):
            yield alias.name.split(".")[0]
        else:
            yield alias.name


def _is_future(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indented(lines: list[str], indent: str) -> list[str]:
    return [indent + line if line.strip() else "" for line in lines]


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")
