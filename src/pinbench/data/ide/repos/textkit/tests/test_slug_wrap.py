import pytest

from textkit.slug import slugify, transliterate, unique_slug
from textkit.wrap import WrapError, fill, iter_paragraphs, justify, truncate, wrap


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Café Crème 2023", "cafe-creme-2023"),
        ("Straße & Ærø", "strasse-aero"),
        ("  --Hello,   World--  ", "hello-world"),
        ("\u201cQuoted\u201d \u2014 text", "quoted-text"),
        ("!!!", ""),
    ],
)
def test_slugify(text, expected):
    assert slugify(text) == expected


def test_slugify_options():
    assert slugify("A Long Title Here", separator="_", max_length=8) == "a_long_t"
    assert slugify("A Long Title", max_length=7) == "a-long"
    assert slugify("Keep Case", lowercase=False) == "Keep-Case"
    with pytest.raises(ValueError):
        slugify("x", separator="a")


def test_transliterate():
    assert transliterate("Łódź €5") == "Lodz EUR5"


def test_unique_slug():
    assert unique_slug("Hello World", {"hello-world", "hello-world-2"}) == "hello-world-3"
    assert unique_slug("???", set()) == "item"


class TestWrap:
    def test_respects_width(self, sample_text):
        lines = wrap(sample_text, width=20)
        assert all(len(line) <= 20 for line in lines)
        assert " ".join(lines) == " ".join(sample_text.split())

    def test_long_words_are_broken(self):
        assert wrap("abcdefghij xy", width=4) == ["abcd", "efgh", "ij", "xy"]

    def test_indent(self):
        assert fill("one two three", width=9, indent="> ") == "> one two\n> three"

    def test_no_room(self):
        with pytest.raises(WrapError):
            wrap("text", width=2, indent="  ")

    def test_blank(self):
        assert wrap("   ") == []


def test_iter_paragraphs(sample_text):
    paragraphs = list(iter_paragraphs(sample_text))
    assert len(paragraphs) == 2
    assert paragraphs[1] == "Nobody saw it happen. The dog slept on."


@pytest.mark.parametrize(
    "line, width, expected",
    [("a b c", 7, "a  b  c"), ("ab cd", 6, "ab  cd"), ("single", 8, "single  ")],
)
def test_justify(line, width, expected):
    assert justify(line, width) == expected


@pytest.mark.parametrize(
    "text, width, expected",
    [
        ("short", 10, "short"),
        ("the quick brown fox", 12, "the quick..."),
        ("abcdefgh", 5, "ab..."),
        ("abcdefgh", 2, ".."),
    ],
)
def test_truncate(text, width, expected):
    assert truncate(text, width) == expected
