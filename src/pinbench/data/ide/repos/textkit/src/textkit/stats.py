"""Word counts, frequencies and a readability score."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import List, Optional, Tuple

from textkit.tokens import split_sentences, tokenize

VOWEL_GROUPS = re.compile(r"[aeiouy]+", re.IGNORECASE)
NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")


def count_syllables(word: str) -> int:
    word = word.lower().strip(".,;:!?\"'")
    if not word:
        return 0
    count = len(VOWEL_GROUPS.findall(word))
    if word.endswith("e") and not word.endswith(("le", "ee")) and count > 1:
        count -= 1
    return max(count, 1)


@dataclass(frozen=True)
class TextStats:
    """Counts that readability formulas are built from."""

    characters: int
    words: int
    sentences: int
    syllables: int

    @classmethod
    def from_text(cls, text: str) -> TextStats:
        """Count characters, words, sentences and syllables in `text`.

        Parameters
        ----------
        text : str
            Prose; numbers and punctuation are not counted as words.

        Returns
        -------
        TextStats
            The counts. A text with words has at least one sentence.
        """
        words = tokenize(text, filter=lambda token: token.kind == "word")
        sentences = len(split_sentences(text)) if words else 0
        return cls(
            characters=len(text),
            words=len(words),
            sentences=max(sentences, 1) if words else 0,
            syllables=sum(count_syllables(word) for word in words),
        )

    @property
    def words_per_sentence(self) -> float:
        return self.words / self.sentences if self.sentences else 0.0


def readability(text: str) -> float:
    """Flesch reading ease of `text`, rounded to two decimals.

    The score is ``206.835 - 1.015 * words_per_sentence - 84.6 *
    syllables_per_word``, with syllables estimated by
    :func:`count_syllables`. Higher is easier; plain English scores 60-70.

    Parameters
    ----------
    text : str
        Prose to score.

    Returns
    -------
    float
        The Flesch reading ease score.

    Raises
    ------
    ValueError
        If `text` contains no words.
    """
    stats = TextStats.from_text(text)
    if stats.words == 0:
        raise ValueError("text has no words")
    per_word = stats.syllables / stats.words
    score = 206.835 - 1.015 * stats.words_per_sentence - 84.6 * per_word
    return round(score, 2)


def word_frequencies(
    text: str, top: Optional[int] = None, lower: bool = True
) -> List[Tuple[str, int]]:
    """Count how often each word occurs.

    Parameters
    ----------
    text : str
        Input text; numbers and punctuation are ignored.
    top : int, optional
        Keep only the `top` most frequent words.
    lower : bool, optional
        Count case-insensitively (the default).

    Returns
    -------
    list of (str, int)
        Words with their counts, most frequent first, ties alphabetical.
    """
    words = tokenize(text, lower=lower, filter=lambda token: token.kind == "word")
    counts = Counter(words)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if top is not None:
        ranked = ranked[:top]
    return ranked


def first_number(text: str) -> float:
    return float(NUMBER_RE.search(text).group())
