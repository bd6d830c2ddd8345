"""Greedy line wrapping, justification and truncation."""

from __future__ import annotations

from typing import Iterator, List


class WrapError(ValueError):
    """Raised when text cannot be laid out in the requested width."""

    pass


def _break_word(word: str, width: int) -> List[str]:
    return [word[start : start + width] for start in range(0, len(word), width)]


def wrap(text: str, width: int = 70, indent: str = "") -> List[str]:
    """Wrap text greedily into lines of at most `width` characters.

    Whitespace runs collapse to single spaces. A word longer than the space
    left after `indent` is cut into pieces of exactly that size by
    :func:`_break_word`, so no line ever exceeds `width`.

    Parameters
    ----------
    text : str
        Text to wrap; newlines count as ordinary whitespace.
    width : int, optional
        Maximum line length, including `indent`.
    indent : str, optional
        Prefix for every line.

    Returns
    -------
    list of str
        The lines, without trailing newlines; empty for blank text.

    Raises
    ------
    WrapError
        If `indent` leaves no room for text.
    """
    available = width - len(indent)
    if available < 1:
        raise WrapError(f"width {width} leaves no room after indent {indent!r}")
    lines: List[str] = []
    current: List[str] = []
    length = 0
    for word in text.split():
        pieces = _break_word(word, available) if len(word) > available else [word]
        for piece in pieces:
            extra = len(piece) + (1 if current else 0)
            if current and length + extra > available:
                lines.append(indent + " ".join(current))
                current, length, extra = [], 0, len(piece)
            current.append(piece)
            length += extra
    if current:
        lines.append(indent + " ".join(current))
    return lines


def fill(text: str, width: int = 70, indent: str = "") -> str:
    return "\n".join(wrap(text, width, indent))


def iter_paragraphs(text: str) -> Iterator[str]:
    """Yield the paragraphs of `text`, one string each.

    Paragraphs are separated by one or more blank lines; the lines inside a
    paragraph are stripped and joined with single spaces.

    Args:
        text: Multi-line text.

    Yields:
        Each non-empty paragraph, in order.
    """
    buffer: List[str] = []
    for line in text.splitlines():
        if line.strip():
            buffer.append(line.strip())
        elif buffer:
            yield " ".join(buffer)
            buffer = []
    if buffer:
        yield " ".join(buffer)


def justify(line: str, width: int) -> str:
    words = line.split()
    if len(words) < 2:
        return line.strip().ljust(width)
    gaps = len(words) - 1
    spaces = width - sum(len(word) for word in words)
    if spaces < gaps:
        raise WidthError(f"{line!r} does not fit in {width} columns")
    per_gap, extra = divmod(spaces, gaps)
    out = ""
    for index, word in enumerate(words[:-1]):
        out += word + " " * (per_gap + (1 if index < extra else 0))
    return out + words[-1]


def truncate(text: str, width: int, placeholder: str = "...") -> str:
    if len(text) <= width:
        return text
    if width <= len(placeholder):
        return placeholder[:width]
    cut = text[: width - len(placeholder)]
    if " " in cut and text[len(cut)] != " ":
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip() + placeholder
