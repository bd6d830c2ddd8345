package org.example.textstats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

class WordFrequencyTest {

    @Test
    void countsWordsCaseInsensitively() {
        WordFrequency frequency = WordFrequency.of("The cat and THE hat. The end.", false);
        assertEquals(3, frequency.count("the"));
        assertEquals(3, frequency.count("The"));
        assertEquals(0, frequency.count("dog"));
        assertEquals(7, frequency.totalWords());
        assertEquals(5, frequency.distinctWords());
    }

    @Test
    void stopWordsCanBeSkipped() {
        WordFrequency frequency = WordFrequency.of("The cat and the hat", true);
        assertEquals(0, frequency.count("the"));
        assertEquals(2, frequency.totalWords());
    }

    @Test
    void topOrdersByCountThenAlphabetically() {
        WordFrequency frequency = WordFrequency.of("beta alpha gamma beta alpha beta delta", false);
        assertEquals(List.of(new WordFrequency.WordCount("beta", 3),
                new WordFrequency.WordCount("alpha", 2),
                new WordFrequency.WordCount("delta", 1)), frequency.top(3));
        assertTrue(frequency.top(0).isEmpty());
        assertEquals(4, frequency.top(10).size());
    }

    @Test
    void topRejectsNegativeLimit() {
        assertThrows(IllegalArgumentException.class, () -> new WordFrequency(false).top(-1));
    }

    @Test
    void typeTokenRatio() {
        assertEquals(0.5, WordFrequency.of("red blue red blue", false).typeTokenRatio(), 1e-12);
        assertThrows(IllegalStateException.class, () -> new WordFrequency(false).typeTokenRatio());
    }

    @Test
    void addAndAddAll() {
        WordFrequency frequency = new WordFrequency(false);
        frequency.add("  Word ");
        frequency.addAll(List.of("word", "other"));
        assertEquals(2, frequency.count("word"));
        assertEquals(3, frequency.totalWords());
        assertThrows(IllegalArgumentException.class, () -> frequency.add(null));
        assertThrows(IllegalArgumentException.class, () -> frequency.addAll(null));
    }

    @Test
    void fromReaderCountsEveryLineAndClosesTheReader() throws IOException {
        StringReader reader = new StringReader("""
                One fish, two fish,
                red fish, blue fish.
                """);
        WordFrequency frequency = WordFrequency.fromReader(reader, false);
        assertEquals(4, frequency.count("fish"));
        assertEquals(8, frequency.totalWords());
        assertThrows(IOException.class, reader::read);
    }
}
