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
import textwrap
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from pinbench.tasks.base import compiles
from pinbench.tasks.generation.normalize import join_program
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.templates import Style

# Markdown fences. An opening fence may be indented (answers nest code in list items); a closing
# fence may be indented at most three columns more than its opening (CommonMark), so a fence
# inside an indented docstring of the code does not end the block.
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
_FENCE_RUN = re.compile(r"`+|~+")
_LANG = re.compile(r"[\w+.-]*")
_PYTHON_LANGS = frozenset({"", "python", "py", "pycon", "ipython"})  # version digits dropped
# A line that starts code in an unfenced answer.
_CODE_START = re.compile(
    r"^[ \t]*(import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import\b|(async[ \t]+)?def[ \t]+\w|"
    r"class[ \t]+\w|@\w)"
)
# Lines that only code has (used to tell a code fragment that does not parse from prose).
_CODE_LINE = re.compile(
    r"^[ \t]*(return\b|yield\b|raise\b|(for|while|if|with|try)\b.*:|"
    r"[A-Za-z_][\w.]*(\[[^\]]*\])?[ \t]*([-+*/%&|^@]|//|\*\*|>>|<<)?=[^=]|[A-Za-z_][\w.]*\()"
)
_TOP_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)
_REPL = re.compile(r"^(>>>|\.\.\.)( |$)")
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


def _extract(text: str, problem: Problem, style: Style) -> str:
    starter = _Starter.of(problem.starter_code.replace("\r\n", "\n"))
    if style is Style.COMPLETION:
        return _completion(text, starter.text)
    blocks = _python_blocks(text)
    others: list[str] = []
    whole = _strip_repl(text)
    if _is_program(_dedent(whole)):
        code = whole
    elif blocks:
        chosen = _choose(blocks, starter.target)
        code, others = blocks[chosen], blocks[:chosen] + blocks[chosen + 1 :]
    else:
        code = _unfenced(whole, starter.first_line)
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
        imports = _import_statements(_parsing_prefix(text.split("\n"), 0))
        return cls(text, names[-1] if names else None, first, open_line, imports)


# --- finding the code ---------------------------------------------------------------------


def _python_blocks(text: str) -> list[str]:
    """The contents of the fenced blocks tagged as Python (or untagged), REPL prompts removed."""
    lines = text.split("\n")
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        i += 1
        if opening is None:
            continue
        body, i = _block_body(lines, i, opening["fence"], len(opening["indent"]))
        if _language(opening["info"]) in _PYTHON_LANGS:
            code = _strip_repl("\n".join(body))
            if code.strip():
                blocks.append(code)
    return blocks


def _block_body(lines: list[str], start: int, fence: str, indent: int) -> tuple[list[str], int]:
    """The lines of the block opened just before `start`, and the index to read on from.

    A line that starts with the fence closes the block whatever follows on it: models end
    blocks with '```}' or '``` ```', and no line of Python starts with a fence (GitChameleon's
    harness closes there too). When what follows names a language ('```python'), the line
    also opens the next block (the model forgot to close this one)."""
    for end in range(start, len(lines)):
        rest = _closing_rest(lines[end], fence, indent)
        if rest is not None:
            return lines[start:end], end if _language(rest) else end + 1
    return _unterminated(lines[start:], fence, start)


def _language(info: str) -> str:
    """'Python3.11 title="x"' -> 'python': the first word, lower case, version digits dropped."""
    word = _LANG.match(info.strip())
    return re.sub(r"[\d.]+$", "", word.group().lower()) if word else ""


def _closing_rest(line: str, fence: str, indent: int) -> str | None:
    """What follows the fence on `line` when it closes a block opened by `fence` at `indent`
    (a run of at least as many of the same character, indented at most three columns more);
    None when it does not close it."""
    stripped = line.strip()
    run = _FENCE_RUN.match(stripped)
    lead = len(line) - len(line.lstrip())
    if run is None or run.group()[0] != fence[0] or len(run.group()) < len(fence):
        return None
    return stripped[run.end() :] if lead <= indent + 3 else None


def _unterminated(body: list[str], fence: str, start: int) -> tuple[list[str], int]:
    """A block without a closing fence line, and the index to read on from.

    A fence glued to the end of a code line ('    return x```') closes it there, as it does
    for GitChameleon's harness (only here: in a block that has a closing line, such a fence
    is inline code in a string, 'Call ```f()```'). Otherwise the model ran out of tokens: the
    block runs to the end of the text, without a fence cut short on its last line ('``')."""
    for i, line in enumerate(body):
        code = line.rstrip()
        if code.endswith(fence) and code.rstrip(fence[0]).strip():
            return [*body[:i], code.rstrip(fence[0])], start + i + 1
    end = len(body)
    while end and not body[end - 1].strip(f"{fence[0]} \t"):
        end -= 1
    return body[:end], start + len(body)


def _choose(blocks: list[str], target: str | None) -> int:
    """The index of the block that defines the starter's function, else of the first that is a
    program, else 0: answers often show usage, installs or output in blocks before the
    solution, and a usage example names the function without a `def`."""
    if target is not None:
        for i, code in enumerate(blocks):
            if _defines(code, target, anywhere=True):
                return i
    return next((i for i, code in enumerate(blocks) if _is_program(_dedent(code))), 0)


def _unfenced(text: str, starter_first: str) -> str:
    """An answer without fences: the longest run of lines that parses, from the first line that
    starts code (an import, def, class, decorator, or the starter's first line)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _CODE_START.match(line) or (starter_first and line.strip() == starter_first):
            return _parsing_prefix(lines, i)
    return ""


def _parsing_prefix(lines: list[str], start: int) -> str:
    """The longest `lines[start:end]` that parses (dedented), or ''."""
    for end in range(len(lines), start, -1):
        chunk = _dedent("\n".join(lines[start:end]))
        if _parses(chunk):
            return chunk
    return ""


def _strip_repl(code: str) -> str:
    """Without '>>> ' / '... ' prompts, when every non-blank line has one (a REPL transcript
    with output lines is left alone: its output lines are not code)."""
    lines = code.split("\n")
    if not any(line.strip() for line in lines):
        return code
    if not all(_REPL.match(line) for line in lines if line.strip()):
        return code
    return "\n".join(line[4:] if line.strip() else line for line in lines)


# --- assembling the program -----------------------------------------------------------------


def _assemble(code: str, starter: _Starter, others: list[str]) -> str:
    """The program for `code`: the body put into the starter when that is all the answer gave,
    otherwise the answer with the imports it lacks: the starter's (the answer was asked to keep
    them), and those of the answer's other blocks that bind a name it uses but never binds (a
    model sometimes puts its imports in a block of their own; an import merely shown, say of
    the old API in a chain of thought, is not taken)."""
    target = starter.target
    answered_body = starter.open_line or _looks_like_body(code)
    if target is not None and answered_body and not _defines(_dedent(code), target):
        return _attach_body(starter, target, code)
    code = _dedent(code)
    code = _add_imports(code, list(starter.imports))
    unbound = _used_names(code) - _bound_names(code)
    extra = [s for block in others for s in _import_statements(block)]
    return _add_imports(code, [s for s in extra if _import_bindings(s) & unbound])


def _looks_like_body(code: str) -> bool:
    """Indented code, or code with a `return`/`yield` outside any function, is a body."""
    first = next((ln for ln in code.split("\n") if ln.strip() and not _is_comment(ln)), "")
    if first[:1] in (" ", "\t"):
        return True
    tree = _parse(code)
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
    body_lines = _dedent(body).strip("\n").split("\n")
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
    tree = _parse(line.strip())
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
    start = max(i for i, ln in enumerate(lines) if _defines(ln, target))
    header_end, end = _function_span(lines, start)
    inner = [ln for ln in lines[header_end + 1 : end] if not _is_placeholder(ln)]
    indent = next((_indent_of(ln) for ln in inner if ln.strip()), "    ")
    head = [*lines[: header_end + 1], *inner]
    return "\n".join([*head, *_indented(body, indent), *lines[end:]])


def _function_span(lines: list[str], start: int) -> tuple[int, int]:
    """(index of the line ending the def header, index after the function's last line)."""
    header_end = start
    for i in range(start, len(lines)):
        if i > start and _CODE_START.match(lines[i]) and lines[i][:1] not in (" ", "\t"):
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
    tree = _parse(code)
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
        if _is_prose(line) and _parses(join_program(starter, "\n".join(lines[:i]))):
            return "\n".join(lines[:i])
    return continuation


def _is_prose(line: str) -> bool:
    """A sentence: two plain words in a row, no '=' and no open bracket, comma or backslash at
    the end (as a statement continued on the next line has), and it does not parse."""
    prose = _PROSE.match(line)
    if prose is None or prose["first"] in _NOT_PROSE or "=" in line:
        return False
    return not line.rstrip().endswith(("(", "[", "{", ",", "\\")) and not _parses(line)


# --- small helpers --------------------------------------------------------------------------


def _finish(program: str) -> str:
    """No leading blank lines, exactly one trailing newline ('' stays '')."""
    lines = program.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    body = "\n".join(lines).rstrip()
    return body + "\n" if body else ""


@functools.lru_cache(maxsize=64)
def _parse(code: str) -> ast.Module | None:
    """The syntax tree of `code`, or None; never raises (deep nesting, null bytes included).
    Cached: one extraction asks about the same text several times (trees are only read)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None


def _parses(code: str) -> bool:
    return _parse(code) is not None


def _is_program(code: str) -> bool:
    """Parses and does something: prose such as 'Sorry' or a lone string parses too."""
    tree = _parse(code)
    if tree is None:
        return False
    trivial = (ast.Name, ast.Constant)
    return any(not (isinstance(s, ast.Expr) and isinstance(s.value, trivial)) for s in tree.body)


def _code_like(code: str) -> bool:
    """A program, or a fragment (truncated, broken) with at least one line only code has."""
    if _is_program(_dedent(code)):
        return True
    return any(_CODE_START.match(ln) or _CODE_LINE.match(ln) for ln in code.split("\n"))


def _defines(code: str, name: str, *, anywhere: bool = False) -> bool:
    """Whether `code` has `def name(` at column 0 (`anywhere`: at any indentation). A textual
    test, so that it also answers for code that does not parse (truncated answers)."""
    indent = r"[ \t]*" if anywhere else ""
    pattern = rf"^{indent}(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\("
    return re.search(pattern, code, re.MULTILINE) is not None


def _used_names(code: str) -> set[str]:
    """Every name `code` reads (every identifier-like word when it does not parse)."""
    tree = _parse(code)
    if tree is None:
        return set(re.findall(r"[A-Za-z_]\w*", code))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound_names(code: str) -> set[str]:
    """Names bound at module level (imports, defs, classes, assignments), outside any function
    or class body; for code that does not parse, those of its import lines and defs."""
    tree = _parse(code)
    if tree is None:
        found = set(_TOP_DEF.findall(code))
        for line in code.split("\n"):
            if _CODE_START.match(line) and line.lstrip().startswith(("import", "from")):
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
    tree = _parse(code)
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
    tree = _parse(statement)
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


def _dedent(code: str) -> str:
    """`code` dedented, but untouched when a line already starts at column 0 (textwrap.dedent
    would also blank whitespace-only lines, changing strings of a valid program)."""
    if any(line.strip() and line[:1] not in (" ", "\t") for line in code.split("\n")):
        return code
    return textwrap.dedent(code)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indented(lines: list[str], indent: str) -> list[str]:
    return [indent + line if line.strip() else "" for line in lines]


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def code_answer(text: str, name: str | None = None) -> str:
    """The code of a free-form answer: the fenced block that defines `name` (else the first
    block), the code part of an unfenced answer, else the whole text dedented."""
    blocks = _python_blocks(text)
    if blocks:
        return _dedent(blocks[_choose(blocks, name)])
    return _unfenced(text, "") or _dedent(text.strip("\n"))
