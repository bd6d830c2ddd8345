"""Reading code out of a model's answer, for every task whose answers are Python: the fenced
blocks tagged Python (or untagged; CommonMark's rules for where a fence ends), the code part
of an unfenced answer, REPL prompts removed, and whether a program compiles. Generation's
starter-aware assembly (`tasks/generation/extract.py`) is built on these."""

from __future__ import annotations

import ast
import functools
import re
import textwrap
import warnings

from pinbench.envs.node.syntax import ParserUnavailable, syntax_error


def compiles(program: str) -> bool:
    """Whether `program` compiles as a module (it is never run). Stricter than parsing: compile
    also rejects what only the compiler sees ('return' outside a function, a duplicate
    argument). Warnings (invalid escapes) are noise here; bytes and null characters are not a
    program."""
    if not isinstance(program, str) or "\x00" in program:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(program, "<program>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return False
    return True


def compiles_as(program: str, language: str) -> bool:
    """Whether `program` compiles in its language, never running it: Python's compiler;
    JavaScript: Node's parser; TypeScript: the TypeScript parser (its types are the sandbox's
    business). Without a parser here, it does not count as compiling."""
    if language == "python":
        return compiles(program)
    return bool(program.strip()) and _parses(program, language == "typescript")


@functools.lru_cache(maxsize=1024)  # a task's score and the run's compile rate ask alike
def _parses(program: str, typescript: bool) -> bool:
    try:
        return syntax_error(program, typescript) is None
    except ParserUnavailable:
        return False


# Markdown fences. An opening fence may be indented (answers nest code in list items); a closing
# fence may be indented at most three columns more than its opening (CommonMark), so a fence
# inside an indented docstring of the code does not end the block.
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
_FENCE_RUN = re.compile(r"`+|~+")
_LANG = re.compile(r"[\w+.-]*")
_PYTHON_LANGS = frozenset({"", "python", "py", "pycon", "ipython"})  # version digits dropped


# A line that starts code in an unfenced answer.
CODE_START = re.compile(
    r"^[ \t]*(import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import\b|(async[ \t]+)?def[ \t]+\w|"
    r"class[ \t]+\w|@\w)"
)
_REPL = re.compile(r"^(>>>|\.\.\.)( |$)")


def python_blocks(text: str) -> list[str]:
    """The contents of the fenced blocks tagged as Python (or untagged), REPL prompts removed."""
    return [code for code in map(strip_repl, fenced_blocks(text, _PYTHON_LANGS)) if code.strip()]


def fenced_blocks(text: str, languages: frozenset[str]) -> list[str]:
    """The contents of the fenced blocks tagged with one of `languages` ('' is untagged)."""
    lines = text.split("\n")
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        i += 1
        if opening is None:
            continue
        body, i = _block_body(lines, i, opening["fence"], len(opening["indent"]))
        if _language(opening["info"]) in languages:
            code = "\n".join(body)
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


def choose_block(blocks: list[str], target: str | None) -> int:
    """The index of the block that defines the starter's function, else of the first that is a
    program, else 0: answers often show usage, installs or output in blocks before the
    solution, and a usage example names the function without a `def`."""
    if target is not None:
        for i, code in enumerate(blocks):
            if defines(code, target, anywhere=True):
                return i
    return next((i for i, code in enumerate(blocks) if is_program(dedent(code))), 0)


def unfenced(text: str, starter_first: str) -> str:
    """An answer without fences: the longest run of lines that parses, from the first line that
    starts code (an import, def, class, decorator, or the starter's first line)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if CODE_START.match(line) or (starter_first and line.strip() == starter_first):
            return parsing_prefix(lines, i)
    return ""


def parsing_prefix(lines: list[str], start: int) -> str:
    """The longest `lines[start:end]` that parses (dedented), or ''."""
    for end in range(len(lines), start, -1):
        chunk = dedent("\n".join(lines[start:end]))
        if parses(chunk):
            return chunk
    return ""


def strip_repl(code: str) -> str:
    """Without '>>> ' / '... ' prompts, when every non-blank line has one (a REPL transcript
    with output lines is left alone: its output lines are not code)."""
    lines = code.split("\n")
    if not any(line.strip() for line in lines):
        return code
    if not all(_REPL.match(line) for line in lines if line.strip()):
        return code
    return "\n".join(line[4:] if line.strip() else line for line in lines)


@functools.lru_cache(maxsize=64)
def parse(code: str) -> ast.Module | None:
    """The syntax tree of `code`, or None; never raises (deep nesting, null bytes included).
    Cached: one extraction asks about the same text several times (trees are only read)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None


def parses(code: str) -> bool:
    return parse(code) is not None


def is_program(code: str) -> bool:
    """Parses and does something: prose such as 'Sorry' or a lone string parses too."""
    tree = parse(code)
    if tree is None:
        return False
    trivial = (ast.Name, ast.Constant)
    return any(not (isinstance(s, ast.Expr) and isinstance(s.value, trivial)) for s in tree.body)


def defines(code: str, name: str, *, anywhere: bool = False) -> bool:
    """Whether `code` has `def name(` at column 0 (`anywhere`: at any indentation). A textual
    test, so that it also answers for code that does not parse (truncated answers)."""
    indent = r"[ \t]*" if anywhere else ""
    pattern = rf"^{indent}(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\("
    return re.search(pattern, code, re.MULTILINE) is not None


def dedent(code: str) -> str:
    """`code` dedented, but untouched when a line already starts at column 0 (textwrap.dedent
    would also blank whitespace-only lines, changing strings of a valid program)."""
    if any(line.strip() and line[:1] not in (" ", "\t") for line in code.split("\n")):
        return code
    return textwrap.dedent(code)


def code_answer(text: str, name: str | None = None) -> str:
    """The code of a free-form answer: the fenced block that defines `name` (else the first
    block), the code part of an unfenced answer, else the whole text dedented."""
    blocks = python_blocks(text)
    if blocks:
        return dedent(blocks[choose_block(blocks, name)])
    return unfenced(text, "") or dedent(text.strip("\n"))
