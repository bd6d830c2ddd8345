package org.example.textstats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TokenizerTest {

    @Test
    void standardTokenizerLowercasesAndDropsPunctuationAndNumbers() {
        List<String> words = Tokenizer.standard().words("Hello, World! It's 3.14 o'clock.");
        assertEquals(List.of("hello", "world", "it's", "o'clock"), words);
    }

    @Test
    void customTokenizerKeepsCaseAndNumbers() {
        List<String> words = new Tokenizer(false, true).words("Pi is 3.14, not 1,000.");
        assertEquals(List.of("Pi", "is", "3.14", "not", "1,000"), words);
    }

    @Test
    void typographicApostrophesAreNormalized() {
        assertEquals(List.of("don't", "panic"), Tokenizer.standard().words("Don\u2019t panic"));
    }

    @Test
    void wordsRejectsNull() {
        assertThrows(IllegalArgumentException.class, () -> Tokenizer.standard().words(null));
    }

    @Test
    void sentencesSplitOnTerminalPunctuation() {
        List<String> sentences = Tokenizer.sentences("It rained.  Did it stop?\nYes!!  Finally");
        assertEquals(List.of("It rained.", "Did it stop?", "Yes!!", "Finally"), sentences);
    }

    @Test
    void sentencesDoNotEndAfterAbbreviations() {
        String text = "Dr. Smith met Mr. Jones, e.g. at lunch. They talked about 3.5 percent.";
        assertEquals(List.of("Dr. Smith met Mr. Jones, e.g. at lunch.",
                "They talked about 3.5 percent."), Tokenizer.sentences(text));
    }

    @Test
    void sentencesRejectsNull() {
        assertThrows(IllegalArgumentException.class, () -> Tokenizer.sentences(null));
    }

    @ParameterizedTest(name = "{0} has {1} syllable(s)")
    @CsvSource({
        "cat, 1",
        "table, 2",
        "make, 1",
        "hello, 2",
        "syllable, 3",
        "beautiful, 3",
        "readability, 5",
        "queue, 1",
        "rhythm, 1",
        "123, 0",
    })
    void countsSyllables(String word, int expected) {
        assertEquals(expected, Tokenizer.countSyllables(word));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "I", "the", "eye", "you"})
    void shortWordsHaveOneSyllable(String word) {
        assertEquals(1, Tokenizer.countSyllables(word));
    }
}
