"""VersiCode's string metrics (Wu et al. 2024): answer extraction, exact match, ISM, PM, grammar
verification and their "@k" expectation, in two variants.

``Variant.VERSICODE`` reproduces the published scripts of github.com/wutong8023/VersiCode
(``util/evaluate/clear_ans.py``, ``evaluate_token.py``, ``evaluate_line.py``,
``evaluate_block.py`` at commit 0c00853), quirks included, so that numbers compare with the
paper's. ``Variant.CORRECTED`` fixes every point docs/versicode-metrics.md lists as questionable.

The scripts read identifiers from ``tokenize.tokenize``, whose output changed across CPython
releases (3.12 split f-strings into parts and made unterminated strings fatal). Scores here must
not depend on the interpreter scoring them, so this module never calls ``tokenize``: it carries
its own lexer, which reproduces the pure-Python tokenizer of CPython 3.8-3.11 (identical in those
releases) wherever that matters for NAME tokens and for the errors it raises.
"""

from __future__ import annotations

import ast
import codecs
import re
import sys
import textwrap
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Literal, NamedTuple, TypedDict

from pydantic import BaseModel, ConfigDict


class Variant(StrEnum):
    """Which definition a score follows."""

    VERSICODE = "versicode"  # the published scripts, faithfully
    CORRECTED = "corrected"  # this module's fixes, see docs/versicode-metrics.md


NO_ANSWER = "no_answer"
"""What VersiCode's ``clear_ans.py`` substitutes for an output without both tags; it is then
scored like any other answer (an identifier ``no_answer``)."""


class StringScores(BaseModel):
    """One answer's scores against one reference, and the definition that produced them."""

    model_config = ConfigDict(frozen=True)

    variant: Variant
    em: bool
    ism: float
    pm: float
    grammar: bool


class BatchScores(TypedDict):
    """``score_samples``' result: per-sample scores in input order, and their "@k"
    expectations, metric -> k -> expected best of k samples drawn from the n given."""

    variant: Variant
    n: int
    em: list[bool]
    ism: list[float]
    pm: list[float]
    grammar: list[bool]
    at_k: dict[str, dict[int, float]]


# --- answer extraction ------------------------------------------------------------------------

_START, _END = "<start>", "<end>"
_INLINE = re.compile(r"(`{1,3})([^`\n]+)\1")


def extract_answer(text: str, variant: Variant = Variant.VERSICODE) -> str:
    """The model's answer between ``<start>`` and ``<end>``.

    VERSICODE, as ``clear_ans.py``: unless both tags occur somewhere, ``"no_answer"``; otherwise
    the text from the end of the first ``<start>`` to the first ``<end>`` (searched from the
    beginning, so ``""`` when an ``<end>`` precedes the first ``<start>``), with every
    ```` ```python ```` and then every ```` ``` ```` removed wherever they occur. Nothing is
    stripped: whitespace around the answer stays and counts in exact match.

    CORRECTED: the first ``<end>`` after the first ``<start>``, else ``""`` (no answer, which
    scores 0 everywhere); a fence around the answer is unwrapped whatever its language tag
    (```` ```py ````, ```` ```Python ````) and even when its closing line is missing, or an
    inline code span (```` `x` ````); backticks inside the code are left alone; blank lines
    around it are dropped and a one-line answer stripped, a block's indentation kept.
    """
    if variant is Variant.VERSICODE:
        if _START not in text or _END not in text:
            return NO_ANSWER
        start = text.find(_START) + len(_START)
        return text[start : text.find(_END)].replace("```python", "").replace("```", "")
    start = text.find(_START)
    end = text.find(_END, start + len(_START)) if start >= 0 else -1
    if end < 0:
        return ""
    body = text[start + len(_START) : end]
    stripped = body.strip()
    inline = _INLINE.fullmatch(stripped)
    if stripped.startswith("```") and "\n" in stripped:  # a fence line; its closing optional
        body = stripped.split("\n", 1)[1].rstrip()
        body = body.removesuffix("```")
    elif inline is not None:
        body = inline.group(2)
    return _trim(body)


def _trim(text: str) -> str:
    """Drop whitespace-only lines around the answer and trailing whitespace; strip a one-line
    answer, but keep the first line's indentation in a block (stripping it would misalign the
    block's lines)."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines).rstrip() if len(lines) > 1 else "".join(lines).strip()


# --- the lexer: CPython 3.8-3.11's tokenize, as far as NAME tokens and errors go --------------

_PREFIX = r"(?:[bB][rR]?|[rR][bBfF]?|[uU]|[fF][rR]?)?"  # exactly tokenize's string prefixes
_DIGITS = r"[0-9](?:_?[0-9])*"
_EXPONENT = rf"[eE][-+]?{_DIGITS}"
_POINTFLOAT = rf"(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:{_EXPONENT})?"
_FLOAT = rf"(?:{_POINTFLOAT}|{_DIGITS}{_EXPONENT})"
_INT = r"(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9])*)"
_NUMBER = rf"(?:{_DIGITS}[jJ]|{_FLOAT}[jJ]|{_FLOAT}|{_INT})"  # tokenize's order: imag, float, int
_SINGLE_LINE_STRING = (
    rf"{_PREFIX}(?:'[^\n'\\]*(?:\\.[^\n'\\]*)*(?:'|\\\r?\n)"
    rf'|"[^\n"\\]*(?:\\.[^\n"\\]*)*(?:"|\\\r?\n))'
)
# tokenize tries, after optional blanks: backslash-newline, comment, triple-quote opening,
# number, operators, one-line string, name. Of the operators only brackets (for nesting) and
# "..." matter: none contains a word character or a quote, but skipping "..." one character at
# a time would let its last "." start a number (".0x1f" would leave a name "x1f"). The others
# are skipped a character at a time, which changes no NAME token.
_TOKEN = re.compile(
    r"[ \f\t]*(?:(?P<cont>\\\r?\n)|(?P<comment>#[^\r\n]*)"
    rf"|(?P<triple>{_PREFIX}(?:'''|\"\"\"))|(?P<number>{_NUMBER})|(?P<ellipsis>\.\.\.)"
    rf"|(?P<bracket>[][(){{}}])|(?P<string>{_SINGLE_LINE_STRING})|(?P<name>\w+))"
)
# A stretch of line without a backslash, a triple quote or an f-string changes no state but the
# bracket depth, so three scans in C give what the token loop would: names, brackets, and quotes
# that open no complete string. Each first skips runs of characters that start nothing of
# interest. Only the name scan needs string prefixes (so that "rb" in rb'x' is no name): where a
# string starts and ends is the same with or without them.
_STRING_OR_COMMENT = r"'[^\n']*'|\"[^\n\"]*\"|#[^\r\n]*"
_NAMES = re.compile(
    rf"[^\w'\"#.]+|{_PREFIX}(?:'[^\n']*'|\"[^\n\"]*\")|#[^\r\n]*|{_NUMBER}|\.\.\.|(\w+)"
)
_BRACKETS = re.compile(rf"[^'\"#()\[\]{{}}]+|{_STRING_OR_COMMENT}|([][(){{}}])")
_STRAY_QUOTES = re.compile(rf"[^'\"#]+|{_STRING_OR_COMMENT}|(['\"])")
# What sends a line to the token loop; it may over-match (if'x'), which only costs time.
_STATEFUL = re.compile(r"\\|'''|\"\"\"|[fF][rR]?['\"]|[rR][fF]['\"]")
_TAILS = {  # the rest of a string after its opening quote(s), as tokenize matches it, per line
    "'": re.compile(r"[^'\\]*(?:\\.[^'\\]*)*'"),
    '"': re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"'),
    "'''": re.compile(r"[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"),
    '"""': re.compile(r'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'),
}
_TABSIZE = 8
# keyword.kwlist of CPython 3.10-3.13, pinned here (3.9 added "__peg_parser__"). Soft keywords
# (match, case, type, _) stay identifiers: they are ordinary names almost everywhere.
_KEYWORDS = frozenset(
    {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
        "return", "try", "while", "with", "yield",
    }
)  # fmt: skip


def _column(indent: str) -> int:
    """tokenize's width of an indentation with tabs (to the next multiple of 8) or form feeds
    (back to 0)."""
    column = 0
    for char in indent:
        if char == " ":
            column += 1
        elif char == "\t":
            column = (column // _TABSIZE + 1) * _TABSIZE
        else:
            column = 0
    return column


class _Lexed(NamedTuple):
    names: tuple[str, ...]
    failed: bool  # tokenize would raise while iterating (strict lexing only)
    stray_quote: bool  # a quote starting no complete string: CPython 3.11 rejects the source
    fstrings: tuple[str, ...]  # complete f-string literals, in order


def _lex(lines: Sequence[str], tolerant: bool) -> _Lexed:
    """NAME tokens of ``lines`` (physical lines, each with its ``\\n`` but perhaps the last) as
    CPython 3.11's ``tokenize._tokenize`` yields them, and whether it would raise.

    tolerant=False is that tokenizer: an unterminated one-line string is an error token and the
    lexing goes on inside it; an unterminated multi-line string, an open bracket or a trailing
    backslash at the end, an inconsistent dedent are errors. tolerant=True never fails, takes the
    rest of the line after an unterminated quote for a string, and expands the replacement fields
    of f-strings into the names of their expressions.
    """
    names: list[str] = []
    fstrings: list[str] = []
    stray = False
    parenlev = 0
    continued = False
    indents = [0]
    tail: re.Pattern[str] | None = None  # the open multi-line string's remainder, if any
    open_string: list[str] = []
    # Set by a one-line string continued with backslash-newline, cleared only when an open
    # string closes: a later triple-quoted string left open is then swallowed line by line
    # instead of raising "EOF in multi-line string", as tokenize does.
    needcont = False
    for line in lines:
        pos, end = 0, len(line)
        if tail is not None:
            closing = tail.match(line)
            if closing is not None:
                pos = closing.end()
                tail, needcont = None, False
                _string_token("".join(open_string) + line[:pos], tolerant, names, fstrings)
            elif needcont and not line.endswith(("\\\n", "\\\r\n")):
                tail = None  # an error token swallowing this whole line
                stray = True
                continue
            else:
                open_string.append(line)
                continue
        elif parenlev == 0 and not continued:
            pos = len(line) - len(line.lstrip(" \t\f"))
            column = pos if line.count(" ", 0, pos) == pos else _column(line[:pos])
            if pos == end:  # blanks without a newline: the last line; tokenize stops here
                break
            if line[pos] in "#\r\n":  # comment-only or blank line: skipped whole
                continue
            if column > indents[-1]:
                indents.append(column)
            while column < indents[-1]:
                if column not in indents and not tolerant:
                    return _Lexed(tuple(names), True, stray, tuple(fstrings))
                indents.pop()
        else:
            continued = False
        rest = line[pos:] if pos else line
        if _STATEFUL.search(rest) is None:
            quoted = "'" in rest or '"' in rest
            unterminated = quoted and any(_STRAY_QUOTES.findall(rest))
            if not (unterminated and tolerant):  # else the token loop ends the line there
                stray = stray or unterminated
                found = _NAMES.findall(rest)
                if rest.isascii():
                    names.extend(filter(None, found))
                else:
                    names.extend(name for name in found if name and name[0].isidentifier())
                code = "".join(_BRACKETS.findall(rest)) if quoted or "#" in rest else rest
                parenlev += code.count("(") + code.count("[") + code.count("{")
                parenlev -= code.count(")") + code.count("]") + code.count("}")
                continue
        while pos < end:
            match = _TOKEN.match(line, pos)
            if match is None:
                if line[pos] in "'\"":
                    stray = True
                    if tolerant:
                        break
                pos += 1
                continue
            kind = match.lastgroup
            start, pos = match.start(match.lastindex or 0), match.end()
            if kind == "name":
                if line[start].isidentifier():
                    names.append(line[start:pos])
            elif kind == "bracket":
                parenlev += 1 if line[start] in "([{" else -1
            elif kind == "cont":
                continued = True
            elif kind == "triple":
                tail = _TAILS[line[pos - 3 : pos]]
                closing = tail.match(line, pos)
                if closing is None:  # needcont is left as it was, stale: tokenize's quirk
                    open_string = [line[start:]]
                    break
                tail, pos = None, closing.end()
                _string_token(line[start:pos], tolerant, names, fstrings)
            elif kind == "string":
                if line[pos - 1] == "\n":  # continued by a backslash-newline
                    quote = line[start:pos].lstrip("bBrRuUfF")[0]
                    tail, open_string, needcont = _TAILS[quote], [line[start:]], True
                    break
                _string_token(line[start:pos], tolerant, names, fstrings)
    failed = not tolerant and (tail is not None or parenlev != 0 or continued)
    return _Lexed(tuple(names), failed, stray, tuple(fstrings))


def _string_token(token: str, tolerant: bool, names: list[str], fstrings: list[str]) -> None:
    """Record a complete string literal: f-strings are kept for the 3.11 grammar check and, when
    lexing tolerantly, contribute the names in their replacement fields."""
    prefix = token[: len(token) - len(token.lstrip("bBrRuUfF"))]
    if "f" not in prefix and "F" not in prefix:
        return
    fstrings.append(token)
    if tolerant:
        for expression in _fstring_fields(token)[0]:
            names.extend(_lex(_physical_lines(expression), tolerant=True).names)


_OTHER_LINE_BREAKS = re.compile("[\r\v\f\x1c-\x1e\x85\u2028\u2029]")


def _physical_lines(text: str) -> list[str]:
    """``text`` split after each ``\\n`` (only ``\\n``: tokenize reads lines with
    ``BytesIO.readline``, so ``\\r`` and other line boundaries stay inside lines)."""
    if _OTHER_LINE_BREAKS.search(text) is None:
        return text.splitlines(keepends=True)
    lines = text.split("\n")
    last = lines.pop()
    physical = [line + "\n" for line in lines]
    if last:
        physical.append(last)
    return physical


def _fstring_fields(token: str) -> tuple[list[str], bool]:
    """The expressions of an f-string literal's replacement fields (format specs' nested fields
    included) and whether CPython 3.11's f-string parser would accept the literal: no lone
    ``}``, every field closed and non-empty, no backslash in an expression (not even in its
    strings), no ``#`` outside them, specs nested at most once. (What else 3.11 rejects there,
    3.12 rejects as well, so ``compile`` has already refused it.)"""
    body = token.lstrip("bBrRuUfF")
    quote = body[:3] if body[:3] in ("'''", '"""') else body[:1]
    body = body[len(quote) : len(body) - len(quote)]
    expressions: list[str] = []
    ok = True

    def field(i: int, level: int) -> int:
        """Parse the field opened just before ``i``; return the index after its ``}``."""
        nonlocal ok
        if level >= 2:
            ok = False
        start, depth = i, 0
        while i < len(body):
            char = body[i]
            if char == "#":  # a comment; inside a quoted string it would be allowed
                ok = False
            elif char in "([{":
                depth += 1
            elif char in ")]" or (char == "}" and depth > 0):
                depth -= 1
            elif char in "'\"":
                i = _skip_string(body, i)
                continue
            elif depth == 0 and (
                char == "}" or char == ":" or (char == "!" and body[i + 1 : i + 2] != "=")
            ):
                expression = body[start:i]
                if not expression.strip() or "\\" in expression:  # even inside its strings
                    ok = False
                expressions.append(expression)
                if char == "!":  # conversion: up to the spec or the end of the field
                    while i < len(body) and body[i] not in ":}":
                        i += 1
                    if i == len(body):
                        ok = False
                        return i
                    char = body[i]
                return spec(i + 1, level) if char == ":" else i + 1
            i += 1
        ok = False
        expressions.append(body[start:])
        return len(body)

    def spec(i: int, level: int) -> int:
        """Parse a format spec starting at ``i``; its nested fields are expressions too."""
        nonlocal ok
        while i < len(body):
            if body[i] == "{":
                i = field(i + 1, level + 1)
            elif body[i] == "}":
                return i + 1
            else:
                i += 1
        ok = False
        return i

    i = 0
    while i < len(body):
        if body.startswith(("{{", "}}"), i):
            i += 2
        elif body[i] == "{":
            i = field(i + 1, 0)
        elif body[i] == "}":
            ok = False
            i += 1
        else:
            i += 1
    return expressions, ok


def _skip_string(text: str, i: int) -> int:
    """The index after the string literal starting with the quote at ``i`` (or the end)."""
    quote = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else text[i]
    i += len(quote)
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text.startswith(quote, i):
            return i + len(quote)
        else:
            i += 1
    return i


# --- how tokenize.tokenize() reads the bytes: BOM, PEP 263 cookie ------------------------------

_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)
_BLANK = re.compile(r"^[ \t\f]*(?:[#\r\n]|$)", re.ASCII)
_Decoded = Literal["creation error", "iteration error"]


def _tokenize_input(code: str) -> list[str] | _Decoded:
    """The lines ``tokenize.tokenize(io.BytesIO(code.encode("utf-8")).readline)`` lexes.

    "creation error": the script's call itself raises (a lone surrogate cannot be encoded; a
    cookie names an unknown codec, or one other than utf-8 after a BOM). "iteration error": a
    line does not decode with the cookie's codec, which tokenize raises while iterating. Under
    another cookie tokenize decodes the UTF-8 bytes with it: ``# coding: latin-1`` turns ``ï``
    into ``Ã¯``.
    """
    bom = False
    if not code.isascii():
        try:
            code.encode("utf-8")
        except UnicodeEncodeError:
            return "creation error"
        if code.startswith("\ufeff"):
            bom, code = True, code[1:]
    lines = _physical_lines(code)
    if "coding" not in code:
        return lines
    encoding = "utf-8"
    for index in range(min(2, len(lines))):
        cookie = _COOKIE.match(lines[index])
        if cookie is not None:
            name = _normal_encoding_name(cookie.group(1))
            try:
                codecs.lookup(name)
            except LookupError:
                return "creation error"
            if bom and name != "utf-8":
                return "creation error"
            encoding = name
            break
        if not _BLANK.match(lines[index]):
            break
    if encoding == "utf-8":
        return lines
    try:
        return [line.encode("utf-8").decode(encoding) for line in lines]
    except Exception:  # a codec may raise anything; tokenize would, while iterating
        return "iteration error"


def _normal_encoding_name(name: str) -> str:
    """tokenize's ``_get_normal_name``: spellings of utf-8 and latin-1 folded, others kept."""
    folded = name[:12].lower().replace("_", "-")
    if folded == "utf-8" or folded.startswith("utf-8-"):
        return "utf-8"
    latin = ("latin-1", "iso-8859-1", "iso-latin-1")
    if folded in latin or folded.startswith(tuple(f"{spelling}-" for spelling in latin)):
        return "iso-8859-1"
    return name


# --- identifiers ------------------------------------------------------------------------------

_CACHE = 1 << 16


def identifiers(code: str, variant: Variant = Variant.VERSICODE) -> tuple[str, ...]:
    """The identifier sequence ISM compares, the same on every interpreter.

    VERSICODE, as the scripts' ``get_token``: NAME tokens of ``tokenize.tokenize`` on CPython
    3.8-3.11, keywords included, nothing inside f-strings. When ``tokenize`` raises while
    iterating (unterminated triple-quoted string, unclosed bracket or stray closing one, trailing
    backslash, inconsistent dedent) the script keeps the spent generator: ``()``. When the call
    itself raises (see ``_tokenize_input``) it keeps ``code.splitlines()``, lines standing in for
    identifiers.

    CORRECTED: the same lexing without its failure modes (an unterminated quote opens a string
    to the end of its line, errors void nothing), hard keywords dropped, the names of f-string
    replacement fields' expressions included in place, text never re-decoded by a cookie.
    """
    if variant is Variant.VERSICODE:
        return _versicode_identifiers(code)
    return _corrected_identifiers(code)


@lru_cache(maxsize=_CACHE)
def _versicode_identifiers(code: str) -> tuple[str, ...]:
    lines = _tokenize_input(code)
    if lines == "creation error":
        return tuple(code.splitlines())
    if lines == "iteration error":
        return ()
    lexed = _lex(lines, tolerant=False)
    return () if lexed.failed else lexed.names


@lru_cache(maxsize=_CACHE)
def _versicode_line_identifiers(line: str) -> tuple[str, ...]:
    """The scripts' ``get_token_per_line`` for one line: its NAME tokens, or when tokenize
    raises ``line.split(" ")``. (Where the script itself would crash, a cookie naming an unknown
    codec alone on a line or a lone surrogate, the same fallback is taken.)"""
    lines = _tokenize_input(line)
    if isinstance(lines, str):
        return tuple(line.split(" "))
    lexed = _lex(lines, tolerant=False)
    return tuple(line.split(" ")) if lexed.failed else lexed.names


@lru_cache(maxsize=_CACHE)
def _corrected_identifiers(code: str) -> tuple[str, ...]:
    names = _lex(_physical_lines(code), tolerant=True).names
    return tuple(name for name in names if name not in _KEYWORDS)


# --- grammar ----------------------------------------------------------------------------------


@contextmanager
def _quiet() -> Iterator[None]:
    """Compiling warns about invalid escapes and the like; under ``-W error`` those warnings
    would turn into SyntaxErrors, so they are silenced to keep the verdict the same."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def grammar_ok(code: str, variant: Variant = Variant.VERSICODE) -> bool:
    """Whether the code is valid Python 3.11, whichever interpreter runs this.

    VERSICODE, as the block script's ``is_code_valid``: ``compile(code, "<string>", "exec")``
    succeeds, so symbol-table errors count too (``return`` outside a function, ``nonlocal`` at
    module level) and an indented answer fails. CORRECTED: the code, dedented, parses; a
    fragment's ``return`` is grammatical in its context.

    On 3.12 and later the verdict is brought back to 3.11's: the source must also parse with
    ``feature_version=(3, 11)`` (no PEP 695 syntax) and pass CPython 3.11's lexical rules for
    strings and f-strings (PEP 701's nested quotes, backslashes and comments in f-string
    expressions, unterminated strings that 3.12 reads as f-string parts are all rejected).
    """
    with _quiet():
        return _grammar_ok(code, variant)


def _grammar_ok(code: str, variant: Variant) -> bool:
    source = code if variant is Variant.VERSICODE else _dedent(code)
    if variant is Variant.CORRECTED and not source.strip():
        return False  # no code at all is not grammatical code
    try:
        if variant is Variant.VERSICODE:
            compile(source, "<string>", "exec", dont_inherit=True)
        else:
            ast.parse(source)
    except Exception:  # the script's bare except: SyntaxError, ValueError (NUL), RecursionError
        return False
    return sys.version_info < (3, 12) or _valid_in_311(source)


def _valid_in_311(source: str) -> bool:
    """Given that this interpreter accepts ``source``: would CPython 3.11 also?"""
    try:
        ast.parse(source, feature_version=(3, 11))
    except Exception:
        return False
    return _lexically_311(source)


def _lexically_311(source: str) -> bool:
    """Lexed by 3.11's rules: no unterminated string, no error of tokenize's, and only f-strings
    CPython 3.11's f-string parser accepts, their expressions' own f-strings included. (Each of
    these makes CPython 3.11's compile fail too; it never rejects what 3.11 accepts.)"""
    lexed = _lex(_physical_lines(source), tolerant=False)
    if lexed.stray_quote or lexed.failed:
        return False
    for fstring in lexed.fstrings:
        expressions, ok = _fstring_fields(fstring)
        if not ok or not all(_lexically_311(expression) for expression in expressions):
            return False
    return True


# --- exact match, ISM, PM ---------------------------------------------------------------------


def exact_match(answer: str, reference: str, variant: Variant = Variant.VERSICODE) -> bool:
    """VERSICODE, as ``evaluate_token.py``: ``answer == reference``, character for character,
    so ``" add"`` misses ``"add"``. CORRECTED: equal up to layout: line endings, common
    indentation, trailing blanks on lines and blank lines around."""
    if variant is Variant.VERSICODE:
        return answer == reference
    return _layout_free(answer) == _layout_free(reference)


def _dedent(code: str) -> str:
    """``textwrap.dedent``, skipped when the first line starts in column 0 (most answers): then
    there is no common margin, and the whitespace-only lines dedent would empty change neither a
    parse nor ``_layout_free``."""
    return code if code[:1] not in (" ", "\t", "\n") else textwrap.dedent(code)


def _layout_free(code: str) -> str:
    lines = _dedent(code.replace("\r\n", "\n")).split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def ism(
    answer: str,
    reference: str,
    variant: Variant = Variant.VERSICODE,
    *,
    core_token: str | None = None,
    verify_grammar: bool = False,
) -> float:
    """Identifier Sequence Match of one answer.

    VERSICODE, as ``get_ISM``: 0 unless ``core_token`` is a substring of the answer and, with
    ``verify_grammar`` (block-level and editing scripts), the answer compiles; then, over every
    pair (reference identifier, answer identifier), the longest common *character* prefix of the
    two strings; the first pair reaching the maximum (reference outer, answer inner) sets the
    denominator, the longer of its two identifiers. 0 when no pair shares a first character.

    CORRECTED: 0 unless ``core_token``'s identifiers occur consecutively among the answer's and,
    with ``verify_grammar``, the answer parses; then the longest common subsequence of the two
    identifier sequences over the longer one's length (1 when both are empty).
    """
    with _quiet():
        return _Reference.of(reference, variant, core_token).ism(answer, verify_grammar)


def pm(
    answer: str,
    reference: str,
    variant: Variant = Variant.VERSICODE,
    *,
    core_token: str | None = None,
    verify_grammar: bool = False,
) -> float:
    """Prefix Match of one answer.

    VERSICODE, as ``get_PM``: the same gates as ISM; then both codes are split at ``\\n`` and
    each line lexed alone (a line tokenize rejects, such as one half of a call spanning lines,
    becomes ``line.split(" ")``); over every pair (reference line, answer line) the longest
    common prefix of their identifier lists; the first pair reaching the maximum sets the
    denominator, the longer of its two lines. 0 when no pair shares a first identifier.

    CORRECTED: the same gates as corrected ISM; then the longest common prefix of the two
    whole identifier sequences over the longer one's length (1 when both are empty).
    """
    with _quiet():
        return _Reference.of(reference, variant, core_token).pm(answer, verify_grammar)


def score_answer(
    answer: str,
    reference: str,
    variant: Variant = Variant.VERSICODE,
    *,
    core_token: str | None = None,
    verify_grammar: bool = False,
) -> StringScores:
    """All four scores of one answer; ``grammar`` is reported whether or not it gates ISM/PM."""
    scorer = _Reference.of(reference, variant, core_token)
    with _quiet():
        return StringScores(
            variant=variant,
            em=scorer.exact(answer),
            ism=scorer.ism(answer, verify_grammar),
            pm=scorer.pm(answer, verify_grammar),
            grammar=_grammar_ok(answer, variant),
        )


@dataclass(frozen=True)
class _Reference:
    """A reference prepared once for scoring many answers against it."""

    text: str
    variant: Variant
    core_token: str | None
    identifiers: tuple[str, ...]
    # VERSICODE ISM: every prefix of a reference identifier -> index of the first identifier
    # (in order of first occurrence) that has it; the distinct identifiers in that order.
    prefixes: dict[str, int]
    distinct: tuple[str, ...]
    # VERSICODE PM: identifier list of each line, and line indices by first identifier.
    lines: tuple[tuple[str, ...], ...]
    lines_by_head: dict[str, tuple[int, ...]]
    # CORRECTED ISM: identifier -> bit mask of its positions, for the bit-parallel LCS.
    masks: dict[str, int]
    core_names: tuple[str, ...]
    layout_free: str

    @staticmethod
    @lru_cache(maxsize=1024)
    def of(text: str, variant: Variant, core_token: str | None) -> _Reference:
        names = identifiers(text, variant)
        prefixes: dict[str, int] = {}
        distinct = tuple(dict.fromkeys(names))
        lines: tuple[tuple[str, ...], ...] = ()
        by_head: dict[str, list[int]] = {}
        masks: dict[str, int] = {}
        if variant is Variant.VERSICODE:
            for index, name in enumerate(distinct):
                for length in range(1, len(name) + 1):
                    prefixes.setdefault(name[:length], index)
            lines = tuple(_versicode_line_identifiers(line) for line in text.split("\n"))
            for index, line in enumerate(lines):
                if line:
                    by_head.setdefault(line[0], []).append(index)
        else:
            for position, name in enumerate(names):
                masks[name] = masks.get(name, 0) | 1 << position
        core_names = () if core_token is None else _corrected_identifiers(core_token)
        return _Reference(
            text=text,
            variant=variant,
            core_token=core_token,
            identifiers=names,
            prefixes=prefixes,
            distinct=distinct,
            lines=lines,
            lines_by_head={head: tuple(indices) for head, indices in by_head.items()},
            masks=masks,
            core_names=core_names,
            layout_free=_layout_free(text) if variant is Variant.CORRECTED else "",
        )

    def exact(self, answer: str) -> bool:
        if self.variant is Variant.VERSICODE:
            return answer == self.text
        return _layout_free(answer) == self.layout_free

    def uses_core_token(self, answer: str) -> bool:
        """The first gate of ISM and PM (the second is grammar, with ``verify_grammar``)."""
        if not self.core_token:  # None, or "" which the script finds in every answer
            return True
        if self.variant is Variant.VERSICODE:
            return self.core_token in answer
        return _uses(answer, self.core_token, self.core_names)

    def ism(self, answer: str, verify_grammar: bool) -> float:
        if not self.uses_core_token(answer):
            return 0.0
        if verify_grammar and not _grammar_ok(answer, self.variant):
            return 0.0
        return self.ungated_ism(answer)

    def pm(self, answer: str, verify_grammar: bool) -> float:
        if not self.uses_core_token(answer):
            return 0.0
        if verify_grammar and not _grammar_ok(answer, self.variant):
            return 0.0
        return self.ungated_pm(answer)

    def ungated_ism(self, answer: str) -> float:
        if self.variant is Variant.VERSICODE:
            return self._versicode_ism(_versicode_identifiers(answer))
        return self._lcs_ratio(_corrected_identifiers(answer))

    def ungated_pm(self, answer: str) -> float:
        if self.variant is Variant.VERSICODE:
            return self._versicode_pm(answer)
        names = _corrected_identifiers(answer)
        longer = max(len(names), len(self.identifiers))
        return 1.0 if longer == 0 else _common_prefix(names, self.identifiers) / longer

    def _versicode_ism(self, names: tuple[str, ...]) -> float:
        """``longest_common_prefix_between_lists_with_elements`` without the quadratic loop:
        each answer identifier's longest prefix that is a prefix of some reference identifier
        (prefix sets are closed under shortening, so a binary search finds it); the pair the
        script keeps is the first maximal one, reference outer, answer inner."""
        best = (0, 0, 0)  # (prefix length, -reference index, -answer index): max() picks it
        partner = ""
        for answer_index, name in enumerate(dict.fromkeys(names)):
            if name in self.prefixes:
                length = len(name)
            else:
                low, high = 0, len(name) - 1  # the prefix of length low is known to be in
                while low < high:
                    middle = (low + high + 1) // 2
                    if name[:middle] in self.prefixes:
                        low = middle
                    else:
                        high = middle - 1
                length = low
            if length:
                candidate = (length, -self.prefixes[name[:length]], -answer_index)
                if candidate > best:
                    best, partner = candidate, name
        length, reference_index, _ = best
        if not length:
            return 0.0
        return length / max(len(self.distinct[-reference_index]), len(partner))

    def _versicode_pm(self, answer: str) -> float:
        """``longest_common_prefix_with_lengths`` over the line pairs sharing a first
        identifier (the others have a common prefix of 0), the first maximal pair kept."""
        best = (0, 0, 0)  # (prefix length, -reference line, -answer line): max() picks it
        lengths = (0, 0)
        for answer_index, line in enumerate(answer.split("\n")):
            names = _versicode_line_identifiers(line)
            if not names:
                continue
            for reference_index in self.lines_by_head.get(names[0], ()):
                reference_line = self.lines[reference_index]
                length = _common_prefix(names, reference_line)
                candidate = (length, -reference_index, -answer_index)
                if candidate > best:
                    best, lengths = candidate, (len(reference_line), len(names))
        return best[0] / max(lengths) if best[0] else 0.0

    def _lcs_ratio(self, names: tuple[str, ...]) -> float:
        """Longest common subsequence over the longer length, bit-parallel (Hyyrö 2004): one
        pass over the answer, each step a few operations on an integer as wide as the
        reference."""
        longer = max(len(names), len(self.identifiers))
        if longer == 0:
            return 1.0
        full = (1 << len(self.identifiers)) - 1
        row = full
        for name in names:
            matches = row & self.masks.get(name, 0)
            row = ((row + matches) | (row - matches)) & full
        return (len(self.identifiers) - row.bit_count()) / longer


def _common_prefix(first: Sequence[str], second: Sequence[str]) -> int:
    if first == second:
        return len(first)
    length = 0
    for left, right in zip(first, second, strict=False):
        if left != right:
            break
        length += 1
    return length


def _uses(answer: str, core_token: str, core_names: tuple[str, ...]) -> bool:
    """Whether the answer uses the core token: its identifiers consecutively among the answer's
    (so not merely in a comment or a string), or, for a core token without identifiers, the
    token as a whole word of the text."""
    if not core_names:
        return re.search(rf"(?<!\w){re.escape(core_token)}(?!\w)", answer) is not None
    names = _corrected_identifiers(answer)
    width = len(core_names)
    return any(
        names[start : start + width] == core_names
        for start in range(len(names) - width + 1)
        if names[start] == core_names[0]
    )


# --- @k ---------------------------------------------------------------------------------------


# --- batches ----------------------------------------------------------------------------------


def score_samples(
    answers: Sequence[str],
    reference: str,
    ks: Sequence[int],
    variant: Variant = Variant.VERSICODE,
    *,
    core_token: str | None = None,
    verify_grammar: bool = False,
) -> BatchScores:
    """Score n sampled answers (already extracted) against one reference and reduce each metric
    to its expected best of k, for every k in ``ks``.

    The reference is lexed once and answers repeated among the samples are scored once; the
    per-answer work is linear in its length (no pair loops), so scoring 100 answers costs about
    100 lexings and 100 compilations.
    """
    # Imported here: this module also loads on its own under other interpreters, where only
    # it is on the path (tests compare its tokenisation across Python versions).
    from pinbench.metrics.passk import expected_best_at_k

    n = len(answers)
    for k in ks:
        if not 1 <= k <= n:
            raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    scorer = _Reference.of(reference, variant, core_token)
    scored: dict[str, tuple[bool, float, float, bool]] = {}
    with _quiet():
        for answer in answers:
            if answer not in scored:
                grammar = _grammar_ok(answer, variant)
                gated = (grammar or not verify_grammar) and scorer.uses_core_token(answer)
                scored[answer] = (
                    scorer.exact(answer),
                    scorer.ungated_ism(answer) if gated else 0.0,
                    scorer.ungated_pm(answer) if gated else 0.0,
                    grammar,
                )
    rows = [scored[answer] for answer in answers]
    em = [row[0] for row in rows]
    ism_scores = [row[1] for row in rows]
    pm_scores = [row[2] for row in rows]
    grammar_scores = [row[3] for row in rows]
    columns: dict[str, Sequence[float]] = {
        "em": [float(x) for x in em],
        "ism": ism_scores,
        "pm": pm_scores,
        "grammar": [float(x) for x in grammar_scores],
    }
    return BatchScores(
        variant=variant,
        n=n,
        em=em,
        ism=ism_scores,
        pm=pm_scores,
        grammar=grammar_scores,
        at_k={
            metric: {k: expected_best_at_k(values, k) for k in ks}
            for metric, values in columns.items()
        },
    )
