"""C#'s conditional compilation, as the compiler applies it before parsing: the lines of
branches that are not compiled, and the directives, are blanked (their line breaks kept, so
every line keeps its number and every column its place), because a grammar that reads both
branches of `#if A ... else ... #else ... else ... #endif` sees two `else`s and no method.

A condition is read by a small parser of C#'s preprocessor expressions (symbols, `true`,
`false`, `!`, `&&`, `||`, `==`, `!=`, parentheses), never evaluated as code. Symbols are those
given (none by default: a library's plain, newest-framework build, as `choose_variants` picks
it); `#define` and `#undef` in the file count from where they stand. A condition that does not
read takes its branch."""

from __future__ import annotations

import re

_DIRECTIVE = re.compile(r"^[\ufeff\s]*#\s*(if|elif|else|endif|define|undef)\b(.*)$")
_TOKEN = re.compile(r"\s*(\|\||&&|==|!=|!|\(|\)|[A-Za-z_][A-Za-z0-9_]*)")


class _Unreadable(Exception):
    pass


def active(text: str, symbols: frozenset[str] = frozenset()) -> str:
    """`text` with the lines of every branch that is not compiled blanked, and the
    conditional directives themselves (the grammar reads `#if` as a node of its own, which a
    statement such as a trailing `else` cannot continue)."""
    if "#" not in text:
        return text
    defined = set(symbols)
    lines = text.splitlines(keepends=True)
    # each open #if: (its enclosing code is compiled, a branch was taken, this branch compiles)
    stack: list[tuple[bool, bool, bool]] = []
    compiled = True
    out: list[str] = []
    for line in lines:
        found = _DIRECTIVE.match(line)
        if found is None:
            out.append(line if compiled else _blank(line))
            continue
        word, rest = found.group(1), _without_comment(found.group(2))
        if word == "if":
            taken = compiled and _holds(rest, defined)
            stack.append((compiled, taken, taken))
        elif word == "elif" and stack:
            outer, done, _ = stack[-1]
            now = outer and not done and _holds(rest, defined)
            stack[-1] = (outer, done or now, now)
        elif word == "else" and stack:
            outer, done, _ = stack[-1]
            stack[-1] = (outer, True, outer and not done)
        elif word == "endif" and stack:
            stack.pop()
        elif compiled and word in ("define", "undef"):
            name = rest.strip()
            if word == "define":
                defined.add(name)
            else:
                defined.discard(name)
        compiled = stack[-1][2] if stack else True
        out.append(_blank(line))
    return "".join(out)


def _blank(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _without_comment(rest: str) -> str:
    return rest.split("//", 1)[0]


def _holds(condition: str, defined: set[str]) -> bool:
    tokens: list[str] = []
    position = 0
    stripped = condition.rstrip()
    while position < len(stripped):
        found = _TOKEN.match(stripped, position)
        if found is None:
            return True  # not a condition this reader knows: the branch is kept
        tokens.append(found.group(1))
        position = found.end()
    try:
        value, at = _binary(tokens, 0, defined)
    except _Unreadable:
        return True
    return value if at == len(tokens) else True


# from the loosest binding to the tightest
_LEVELS = (("||",), ("&&",), ("==", "!="))
_APPLY = {
    "||": lambda a, b: a or b,
    "&&": lambda a, b: a and b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _binary(tokens: list[str], at: int, defined: set[str], level: int = 0) -> tuple[bool, int]:
    if level == len(_LEVELS):
        return _unary(tokens, at, defined)
    value, at = _binary(tokens, at, defined, level + 1)
    while at < len(tokens) and tokens[at] in _LEVELS[level]:
        operator = tokens[at]
        right, at = _binary(tokens, at + 1, defined, level + 1)
        value = _APPLY[operator](value, right)
    return value, at


def _unary(tokens: list[str], at: int, defined: set[str]) -> tuple[bool, int]:
    if at >= len(tokens):
        raise _Unreadable
    token = tokens[at]
    if token == "!":
        value, at = _unary(tokens, at + 1, defined)
        return not value, at
    if token == "(":
        value, at = _binary(tokens, at + 1, defined)
        if at >= len(tokens) or tokens[at] != ")":
            raise _Unreadable
        return value, at + 1
    if token in ("true", "false"):
        return token == "true", at + 1
    if token[0].isalpha() or token[0] == "_":
        return token in defined, at + 1
    raise _Unreadable
