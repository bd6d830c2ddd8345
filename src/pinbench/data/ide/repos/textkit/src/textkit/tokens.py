"""A small regex tokenizer, sentence splitter and vocabulary."""

from __future__ import annotations

import re
from collections import Counter
from typing import Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple

TOKEN_RE = re.compile(
    r"(?P<number>\d+(?:[.,]\d+)*)"
    r"|(?P<word>\w+(?:['\u2019-]\w+)*)"
    r"|(?P<punct>[^\w\s])"
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


class Token(NamedTuple):
    """One token: its text, its kind and its offset in the input."""

    text: str
    kind: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def iter_tokens(text: str) -> Iterator[Token]:
    """Yield the tokens of `text` in order.

    Parameters
    ----------
    text : str
        Input text; any Unicode letter counts as a word character.

    Yields
    ------
    Token
        ``Token(text, kind, start)``, where `kind` is the name of the
        ``TOKEN_RE`` group that matched (``match.lastgroup``): ``"number"``,
        ``"word"`` or ``"punct"``. Whitespace never forms a token.
    """
    for match in TOKEN_RE.finditer(text):
        kind = match.lastgroup
        if kind is None:
            continue
        yield Token(match.group(), kind, match.start())


def tokenize(
    text: str, lower: bool = False, filter: Optional[Callable[[Token], bool]] = None
) -> List[str]:
    """Split text into word and number tokens, dropping punctuation.

    Parameters
    ----------
    text : str
        Input text.
    lower : bool, optional
        Lower-case every token.
    filter : callable, optional
        Predicate on :class:`Token`; tokens for which it is false are dropped.

    Returns
    -------
    list of str
        Token texts in input order.
    """
    words = []
    for token in iter_tokens(text):
        if token.kind == "punct":
            continue
        if filter is not None and not filter(token):
            continue
        words.append(token.text.lower() if lower else token.text)
    return words


def ngrams(tokens: List[str], n: int = 2) -> Iterator[Tuple[str, ...]]:
    """Yield the contiguous n-grams of a token list.

    Parameters
    ----------
    tokens : list of str
        Tokens, e.g. from :func:`tokenize`.
    n : int, optional
        Length of each n-gram, 2 by default.

    Yields
    ------
    tuple of str
        Each window of `n` consecutive tokens; nothing if there are fewer.

    Raises
    ------
    ValueError
        If `n` is less than 1 (raised on first iteration).
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    for start in range(len(tokens) - n + 1):
        yield tuple(tokens[start : start + n])


def split_sentences(text: str) -> List[str]:
    parts = SENTENCE_END.split(text.strip())
    sentences = []
    for part in parts:
        cleaned = " ".join(part.split())
        if cleaned:
            sentences.append(cleaned)
    return sentences


class Vocabulary:
    """Token counts with stable integer ids, in first-seen order."""

    def __init__(self, min_count: int = 1) -> None:
        self.min_count = min_count
        self._counts: Counter[str] = Counter()
        self._ids: Dict[str, int] = {}

    @classmethod
    def from_texts(cls, texts: Iterable[str], lower: bool = True, min_count: int = 1) -> Vocabulary:
        vocab = cls(min_count)
        for text in texts:
            vocab.add(tokenize(text, lower=lower))
        return vocab

    def add(self, tokens: Iterable[str]) -> None:
        for token in tokens:
            if token not in self._ids:
                self._ids[token] = len(self._ids)
            self._counts[token] += 1

    @property
    def tokens(self) -> List[str]:
        return [token for token in self._ids if self._counts[token] >= self.min_count]

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and token in self.tokens

    def count(self, token: str) -> int:
        return self._counts[token]

    def most_common(self, n: int = 10) -> List[Tuple[str, int]]:
        ranked = sorted(self.tokens, key=lambda token: (-self._counts[token], self._ids[token]))
        return [(token, self._counts[token]) for token in ranked[:n]]
