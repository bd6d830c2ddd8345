package org.example.textstats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReadabilityTest {

    private static final String SIMPLE = "The cat sat on the mat.";
    private static final String DENSE =
            "Readability formulas estimate difficulty. Short words help.";

    @Test
    void analyzeCountsSentencesWordsAndSyllables() {
        Readability simple = Readability.analyze(SIMPLE);
        assertEquals(1, simple.sentenceCount());
        assertEquals(6, simple.wordCount());
        assertEquals(6, simple.syllableCount());

        Readability dense = Readability.analyze(DENSE);
        assertEquals(2, dense.sentenceCount());
        assertEquals(7, dense.wordCount());
        assertEquals(18, dense.syllableCount());
        assertEquals(3.5, dense.wordsPerSentence(), 1e-12);
    }

    @Test
    void fleschScoresOfASimpleSentence() {
        Readability simple = Readability.analyze(SIMPLE);
        assertEquals(116.145, simple.fleschReadingEase(), 1e-9);
        assertEquals(-1.45, simple.fleschKincaidGrade(), 1e-9);
    }

    @Test
    void denseTextScoresLower() {
        Readability dense = Readability.analyze(DENSE);
        assertEquals(-14.26, dense.fleschReadingEase(), 0.01);
        assertEquals("very confusing", Readability.describe(dense.fleschReadingEase()));
        assertTrue(dense.fleschKincaidGrade() > Readability.analyze(SIMPLE).fleschKincaidGrade());
    }

    @Test
    void colemanLiauIndexUsesLettersPerWord() {
        // 17 letters and 1 sentence in 6 words: 0.0588 * 283.33 - 0.296 * 16.67 - 15.8
        assertEquals(-4.0733, Readability.analyze(SIMPLE).colemanLiauIndex(), 1e-4);
    }

    @Test
    void smogIndexUsesPolysyllables() {
        assertEquals(11.208, Readability.analyze(DENSE).smogIndex(), 0.001);
        assertEquals(3.1291, Readability.analyze(SIMPLE).smogIndex(), 1e-9);
    }

    @Test
    void analyzeRejectsTextWithoutWords() {
        assertThrows(IllegalArgumentException.class, () -> Readability.analyze("123 456!"));
        assertThrows(IllegalArgumentException.class, () -> Readability.analyze(null));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "120, very easy",
        "95, very easy",
        "85, easy",
        "75, fairly easy",
        "65, standard",
        "55, fairly difficult",
        "45, difficult",
        "30, difficult",
        "29.9, very confusing",
        "-20, very confusing",
    })
    void describeUsesTheFleschBands(double readingEase, String label) {
        assertEquals(label, Readability.describe(readingEase));
    }

    @Test
    void describeRejectsNaN() {
        assertThrows(IllegalArgumentException.class, () -> Readability.describe(Double.NaN));
    }

    @Test
    void equalTextsGiveEqualResults() {
        assertEquals(Readability.analyze(SIMPLE), Readability.analyze("The dog sat on the log!"));
        assertEquals(Readability.analyze(SIMPLE).hashCode(),
                Readability.analyze("The dog sat on the log!").hashCode());
        assertNotEquals(Readability.analyze(SIMPLE), Readability.analyze(DENSE));
        assertTrue(Readability.analyze(SIMPLE).toString().contains("words=6"));
    }
}
