package org.example.textstats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NGramsTest {

    @Test
    void bigramsOfAList() {
        assertEquals(List.of(List.of("a", "b"), List.of("b", "c"), List.of("c", "d")),
                NGrams.of(List.of("a", "b", "c", "d"), 2));
    }

    @Test
    void trigramsOfASinglePassIterable() {
        Iterator<Integer> once = Stream.of(1, 2, 3, 4, 5).iterator();
        Iterable<Integer> items = () -> once;
        assertEquals(List.of(List.of(1, 2, 3), List.of(2, 3, 4), List.of(3, 4, 5)),
                NGrams.of(items, 3));
    }

    @Test
    void fewerItemsThanNGiveNoNGrams() {
        assertTrue(NGrams.of(List.of("only"), 2).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, -100})
    void nMustBePositive(int n) {
        assertThrows(IllegalArgumentException.class, () -> NGrams.of(List.of("a"), n));
        assertThrows(IllegalArgumentException.class, () -> NGrams.characterNGrams("abc", n));
    }

    @Test
    void characterNGramsNormalizeCaseAndWhitespace() {
        List<String> grams = NGrams.characterNGrams("  Hello   World ", 3);
        assertEquals("hel", grams.get(0));
        assertEquals("o w", grams.get(4));
        assertEquals(9, grams.size());
    }

    @Test
    void frequenciesKeepFirstAppearanceOrder() {
        List<String> tokens = Tokenizer.standard().words("To be, or not to be.");
        Map<String, Integer> counts = NGrams.frequencies(tokens, 2);
        assertEquals(List.of("to be", "be or", "or not", "not to"), List.copyOf(counts.keySet()));
        assertEquals(2, counts.get("to be"));
    }
}
