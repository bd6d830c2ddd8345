"""Normalisers for the free-text fields of published datasets: change types, release dates,
dependency lists, and code stored with escaped newlines."""

from __future__ import annotations

import re
import warnings

from pinbench.tasks.generation.problem import ChangeCategory, ChangeType

# Ordered: the first matching rule wins. Patterns tolerate the misspellings seen in the wild
# ("arguement", "behavior", "fucntion", "dependancy", "sematic") and stray whitespace/newlines.
# Judgement calls, each from GitChameleon's own labels:
# - "name change (attribute)" is a rename first (the head phrase beats the qualifier);
# - "deprecation"/"removed": every such row replaces a removed API by another name
#   (np.round_ -> np.round, nltk.usage -> help), so it is a name change;
# - "other library", "No new feature" and "new func/method/class" all mean the task hinges on a
#   feature (or a dependency standing in for it) being present or absent;
# - "breaking change": in both GitChameleon releases every such row moves or renames an API
#   (geopy timezone -> reverse_timezone, sympy npartitions -> partition), so it is a name change.
_CHANGE_RULES: tuple[tuple[re.Pattern[str], ChangeCategory], ...] = (
    (re.compile(r"\bname change|renam|breaking"), ChangeCategory.NAME),
    (re.compile(r"argu?e?ment|param|attribute|\bargs?\b|keyword|kwarg"), ChangeCategory.ARGUMENT),
    (
        re.compile(r"\bname\b|func\w* name|method name|deprecat|removed|removal"),
        ChangeCategory.NAME,
    ),
    (re.compile(r"\bs[ey]m[ae]?n?tic|behaviou?r|output|return|default"), ChangeCategory.SEMANTICS),
    (
        re.compile(r"new|feature|added|addition|depend[ae]n|other librar"),
        ChangeCategory.FEATURE,
    ),
)


_NONE_WORDS = frozenset({"", "nan", "none", "null", "n/a", "-"})


def is_blank(raw: str | None) -> bool:
    """Whether a free-text cell means 'no value' (empty, or how pandas and people spell it)."""
    return (raw or "").strip().lower() in _NONE_WORDS


def normalize_change(raw: str | None) -> ChangeType:
    """Map a dataset's free-text change type onto the four categories, keeping the raw text."""
    text = raw or ""
    if text.strip() in {c.value for c in ChangeCategory}:  # already one of ours
        return ChangeType(category=ChangeCategory(text.strip()), raw=text)
    flat = " ".join(text.lower().replace("_", " ").split())
    for pattern, category in _CHANGE_RULES:
        if pattern.search(flat):
            return ChangeType(category=category, raw=text)
    return ChangeType(category=ChangeCategory.UNKNOWN, raw=text)


def normalize_release_date(raw: str | None) -> str | None:
    """'YYYY-MM' from the mixed formats of published datasets, or None when unknown.

    Accepts 2021-06, 2021-06-22, 2021/06, 22/06/2021 (day first), 03-18-2023 (month first
    when the first number cannot be a day-of-month ambiguity), June 2021, and a bare 2021 is
    rejected (a year alone cannot pin a month).
    """
    text = (raw or "").strip()
    if is_blank(text):
        return None
    if m := re.fullmatch(r"(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?(?:[T ].*)?", text):
        return _year_month(int(m[1]), int(m[2]))
    if m := re.fullmatch(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})", text):
        first, second, year = int(m[1]), int(m[2]), int(m[3])
        # 22/06/2021 is day-first; 03-18-2023 is month-first; 05/06/2021 is ambiguous and read
        # day-first (the convention of the datasets that use '/').
        month = second if first > 12 or (second <= 12 and "/" in text) else first
        return _year_month(year, month)
    if m := re.fullmatch(r"([A-Za-z]{3,9})\.?,? (\d{4})", text):
        month_index = _MONTHS.get(m[1][:3].lower())
        if month_index is not None:
            return _year_month(int(m[2]), month_index)
    return None


_MONTHS = {
    name: i + 1
    for i, name in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}


def _year_month(year: int, month: int) -> str | None:
    if 1990 <= year <= 2100 and 1 <= month <= 12:
        return f"{year:04d}-{month:02d}"
    return None


_OPERATOR = re.compile(r"(===|==|!=|~=|<=|>=|<|>)")


def split_pins(raw: str | None) -> tuple[str, ...]:
    """Requirement strings from a free-text dependency list ('a==1 b==2', 'a==1, b', '', 'None').

    Pieces are split on whitespace and commas; a piece that starts with a version operator, or
    follows one that ends with it, continues the previous requirement ('numpy >= 1.2, <2').
    Whether each result is a valid requirement is left to the Problem model to say.
    """
    pins: list[str] = []
    for piece in re.split(r"[\s,]+", (raw or "").strip()):
        if piece.lower() in _NONE_WORDS:
            continue
        starts_op = _OPERATOR.match(piece) is not None
        if pins and (starts_op or pins[-1].endswith(("=", "<", ">"))):
            previous = pins[-1]
            complete = _OPERATOR.search(previous) is not None and not previous.endswith(
                ("=", "<", ">")
            )
            pins[-1] = previous + ("," if starts_op and complete else "") + piece
        else:
            pins.append(piece)
    return tuple(pins)


def join_program(starter: str, solution: str) -> str:
    """The complete reference program from a starter and the solution that completes it.

    GitChameleon's solutions continue the starter's last line ('output = ' + 'f(x)'), so the
    rule is plain concatenation, as its own harness does. Two exceptions: a solution that already
    repeats the starter is whole by itself; and where the starter ends with a complete line but no
    newline, concatenation would fuse two statements, so a newline goes in when (only when) that
    turns a program that does not compile into one that does.
    """
    if not starter.strip():
        return solution
    if solution.lstrip().startswith(starter.strip()):
        return solution
    joined = starter + solution
    if starter.endswith("\n") or _compiles(joined):
        return joined
    with_newline = f"{starter}\n{solution}"
    return with_newline if _compiles(with_newline) else joined


def _compiles(code: str) -> bool:
    """Whether `code` parses (never runs it); warnings about escapes in the data are not ours."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(code, "<program>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


_STRING_PREFIX = frozenset("rRbBuUfF")


def unescape_literal_newlines(code: str) -> str:
    r"""Repair code stored with literal '\n' pairs (GitChameleon 1.0) into real line breaks.

    A blind replace would corrupt string literals such as print('a\nb'), so this scans the code
    like Python's tokenizer does. Outside string literals a backslash can only start a line
    continuation, so every other escape there is an export artefact: '\n' (and the doubled
    '\\n' typo) become a newline, '\t' a tab, and '\"' / '\'' plain quotes. Inside a literal
    everything is kept, except that '\n' inside a non-raw triple-quoted literal of a fully
    escaped field becomes a real newline (the same string value, readable docstrings).
    Comments end at a '\n' pair only when the field has no real newline at all; CRLF becomes LF.
    """
    code = code.replace("\r\n", "\n")
    escaped = "\n" not in code
    out: list[str] = []
    i = 0
    while i < len(code):
        char = code[i]
        if char == "#":
            end = code.find("\\n" if escaped else "\n", i)
            end = len(code) if end == -1 else end
            out.append(code[i:end])
            i = end
        elif char in "\"'":
            i = _copy_literal(code, i, escaped, out)
        elif char == "\\":
            i = _outside_escape(code, i, out)
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _outside_escape(code: str, i: int, out: list[str]) -> int:
    """Handle a backslash met outside any literal; return where scanning resumes."""
    following = code[i + 1 : i + 2]
    if following == "n":
        out.append("\n")
        return i + 2
    if following == "t":
        out.append("\t")
        return i + 2
    if following == "\\" and code[i + 2 : i + 3] == "n":
        out.append("\n")
        return i + 3
    if following in ("'", '"'):
        # An escaped quote opens a literal closed by the same escaped quote.
        close = code.find("\\" + following, i + 2)
        if close == -1:
            out.append(following)
            return i + 2
        out.append(following + code[i + 2 : close] + following)
        return close + 2
    out.append("\\")
    return i + 1


def _copy_literal(code: str, i: int, escaped: bool, out: list[str]) -> int:
    """Copy the string literal opening at `i`; a quote that never closes is copied as a stray."""
    quote = code[i]
    triple = code.startswith(quote * 3, i)
    delimiter = quote * 3 if triple else quote
    newlines_to_real = triple and escaped and not _raw_prefix(code, i)
    body: list[str] = []
    j = i + len(delimiter)
    while j < len(code):
        if code.startswith(delimiter, j):
            out.append(delimiter + "".join(body) + delimiter)
            return j + len(delimiter)
        char = code[j]
        if char == "\\" and j + 1 < len(code):
            pair = code[j : j + 2]
            body.append("\n" if newlines_to_real and pair == "\\n" else pair)
            j += 2
            continue
        if char == "\n" and not triple:
            break  # a one-quote literal cannot span lines
        body.append(char)
        j += 1
    out.append(quote)
    return i + 1


def _raw_prefix(code: str, i: int) -> bool:
    """Whether the literal whose quote is at `i` carries an r prefix (rb'', Rf'', ...)."""
    start = i
    while start > 0 and i - start < 2 and code[start - 1] in _STRING_PREFIX:
        start -= 1
    if start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        return False  # the letters end an identifier, not a prefix
    return "r" in code[start:i].lower()
