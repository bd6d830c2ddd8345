import pytest

from textkit.stats import TextStats, count_syllables, first_number, readability, word_frequencies
from textkit.table import Table, parse_table, render_table


@pytest.mark.parametrize(
    "word, syllables",
    [("cat", 1), ("table", 2), ("make", 1), ("reading", 2), ("", 0), ("rhythm", 1)],
)
def test_count_syllables(word, syllables):
    assert count_syllables(word) == syllables


def test_text_stats(sample_text):
    stats = TextStats.from_text(sample_text)
    assert (stats.words, stats.sentences) == (21, 4)
    assert stats.words_per_sentence == pytest.approx(5.25)


def test_readability():
    assert readability("The cat sat on the mat.") == pytest.approx(116.15)
    with pytest.raises(ValueError):
        readability("42 !")


def test_word_frequencies(sample_text):
    assert word_frequencies(sample_text, top=2) == [("the", 3), ("dog", 2)]
    assert ("The", 2) in word_frequencies(sample_text, lower=False)


def test_first_number(sample_text):
    assert first_number(sample_text) == 3.5


class TestTable:
    def test_render_alignment(self):
        text = render_table(["item", "qty"], [["apple", 3], ["kiwi", 12]], align={1: "right"})
        assert text.splitlines() == [
            "| item  | qty |",
            "| ----- | --: |",
            "| apple |   3 |",
            "| kiwi  |  12 |",
        ]

    def test_from_dicts_escapes_and_fills(self, people):
        table = Table.from_dicts(people)
        assert table.headers == ["name", "role", "age"]
        assert table.rows[1] == ["Grace \\| Hopper", "", "85"]

    def test_too_many_cells(self):
        with pytest.raises(ValueError):
            Table(["a"]).add_row(1, 2)

    def test_bad_alignment(self):
        with pytest.raises(ValueError):
            Table(["a"], align={0: "middle"})

    def test_round_trip(self, people):
        table = Table.from_dicts(people)
        table.align[2] = "center"
        parsed = parse_table(str(table))
        assert parsed.headers == table.headers
        assert parsed.rows == table.rows
        assert parsed.align == {2: "center"}


def test_parse_table_requires_separator():
    with pytest.raises(ValueError, match="separator"):
        parse_table("| a | b |\n| 1 | 2 |")
