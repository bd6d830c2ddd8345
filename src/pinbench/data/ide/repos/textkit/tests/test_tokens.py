import pytest

from textkit.tokens import Token, Vocabulary, iter_tokens, ngrams, split_sentences, tokenize


def test_iter_tokens_kinds():
    tokens = list(iter_tokens("Pay 3.50 now, Bob's dog!"))
    assert [(t.text, t.kind) for t in tokens] == [
        ("Pay", "word"),
        ("3.50", "number"),
        ("now", "word"),
        (",", "punct"),
        ("Bob's", "word"),
        ("dog", "word"),
        ("!", "punct"),
    ]
    assert tokens[1] == Token("3.50", "number", 4)
    assert tokens[1].end == 8


@pytest.mark.parametrize(
    "text, kwargs, expected",
    [
        ("Hello, World!", {}, ["Hello", "World"]),
        ("Hello, World!", {"lower": True}, ["hello", "world"]),
        ("route 66 east", {"filter": lambda t: t.kind == "word"}, ["route", "east"]),
        ("", {}, []),
    ],
)
def test_tokenize(text, kwargs, expected):
    assert tokenize(text, **kwargs) == expected


def test_ngrams():
    assert list(ngrams(["a", "b", "c"], 2)) == [("a", "b"), ("b", "c")]
    assert list(ngrams(["a"], 3)) == []
    with pytest.raises(ValueError):
        list(ngrams(["a"], 0))


def test_split_sentences(sample_text):
    assert split_sentences(sample_text) == [
        "The quick brown fox jumps over the lazy dog.",
        "It was 3.5 metres away!",
        "Nobody saw it happen.",
        "The dog slept on.",
    ]


class TestVocabulary:
    def test_counts_and_ids(self, sample_text):
        vocab = Vocabulary.from_texts([sample_text])
        assert "the" in vocab
        assert vocab.count("the") == 3
        assert vocab.most_common(2) == [("the", 3), ("dog", 2)]

    def test_min_count_hides_rare_tokens(self):
        vocab = Vocabulary(min_count=2)
        vocab.add(["a", "b", "a"])
        assert vocab.tokens == ["a"]
        assert len(vocab) == 1
        assert "b" not in vocab
