"""textkit: small, dependency-free text utilities."""

from textkit.slug import slugify, transliterate, unique_slug
from textkit.stats import TextStats, readability, word_frequencies
from textkit.table import Table, parse_table, render_table
from textkit.tokens import Token, Vocabulary, iter_tokens, ngrams, split_sentences, tokenize
from textkit.wrap import WrapError, fill, iter_paragraphs, truncate, wrap

__all__ = [
    "Table",
    "TextStats",
    "Token",
    "Vocabulary",
    "WrapError",
    "fill",
    "iter_paragraphs",
    "iter_tokens",
    "ngrams",
    "parse_table",
    "readability",
    "render_table",
    "slugify",
    "split_sentences",
    "tokenize",
    "transliterate",
    "truncate",
    "unique_slug",
    "word_frequencies",
    "wrap",
]

__version__ = "1.2.0"
