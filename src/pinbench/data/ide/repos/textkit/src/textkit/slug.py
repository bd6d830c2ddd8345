"""URL slugs and ASCII transliteration."""

from __future__ import annotations

import re
import unicodedata
from typing import Container, Optional

from textkit._charmap import CHARMAP

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def transliterate(text: str, fallback: str = "") -> str:
    """Replace non-ASCII characters with ASCII look-alikes.

    Characters listed in the generated ``CHARMAP`` table (``"ß"`` becomes
    ``"ss"``, ``"Ø"`` becomes ``"O"``) are replaced first; any other character
    is decomposed with ``unicodedata.normalize("NFKD", ...)`` and its
    combining marks are dropped, so ``"é"`` becomes ``"e"``.

    Parameters
    ----------
    text : str
        Text in any script.
    fallback : str, optional
        Replacement for characters that have no ASCII form at all.

    Returns
    -------
    str
        Pure ASCII text.
    """
    out = []
    for char in text:
        if ord(char) < 128:
            out.append(char)
        elif char in CHARMAP:
            out.append(CHARMAP[char])
        else:
            decomposed = unicodedata.normalize("NFKD", char)
            out.append("".join(part for part in decomposed if ord(part) < 128))
    return "".join(out)


def slugify(
    text: str, separator: str = "-", max_length: Optional[int] = None, lowercase: bool = True
) -> str:
    """Turn a title into a URL slug such as ``"cafe-creme-2023"``.

    The text is transliterated to ASCII (see :func:`transliterate`), every run
    of characters other than letters and digits becomes one `separator`, and
    leading and trailing separators are removed.

    Parameters
    ----------
    text : str
        The title.
    separator : str, optional
        Joins the words, ``"-"`` by default.
    max_length : int, optional
        Cut the slug to at most this many characters, never ending on a
        separator.
    lowercase : bool, optional
        Lower-case the result (the default).

    Returns
    -------
    str
        The slug; empty if `text` has no letters or digits.

    Raises
    ------
    ValueError
        If `separator` is empty or contains a letter or digit.
    """
    if not separator or any(char.isalnum() for char in separator):
        raise ValueError(f"invalid separator: {separator!r}")
    ascii_text = transliterate(text)
    if lowercase:
        ascii_text = ascii_text.lower()
    slug = _NON_ALNUM.sub(separator, ascii_text).strip(separator)
    if max_length is not None and len(slug) > max_length:
        slug = slug[:max_length].rstrip(separator)
    return slug


def unique_slug(text: str, taken: Container[str], separator: str = "-") -> str:
    base = slugify(text, separator) or "item"
    candidate = base
    counter = 2
    while candidate in taken:
        candidate = f"{base}{separator}{counter}"
        counter += 1
    return candidate
