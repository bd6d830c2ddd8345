package org.example.textstats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Word and character n-grams, their frequencies and n-gram based text similarity. */
public final class NGrams {

    private NGrams() {
    }

    /**
     * Returns every run of {@code n} consecutive items, in order.
     *
     * <p>The items are read once through a ring buffer, so any {@link Iterable} works, including
     * one that can be traversed only once.
     *
     * @param <T> the item type
     * @param items the sequence, for example the words of a sentence
     * @param n the length of each n-gram
     * @return the n-grams; empty if there are fewer than {@code n} items
     * @throws IllegalArgumentException if {@code items} is null or {@code n} is less than 1
     */
    public static <T> List<List<T>> of(Iterable<T> items, int n) {
        if (items == null || n < 1) {
            throw new IllegalArgumentException("items must not be null and n must be at least 1");
        }
        T[] ring = (T[]) new Object[n];
        List<List<T>> grams = new ArrayList<>();
        int seen = 0;
        for (T item : items) {
            ring[seen % n] = item;
            seen++;
            if (seen >= n) {
                List<T> gram = new ArrayList<>(n);
                for (int k = 0; k < n; k++) {
                    gram.add(ring[(seen + k) % n]);
                }
                grams.add(Collections.unmodifiableList(gram));
            }
        }
        return grams;
    }

    public static List<String> characterNGrams(String text, int n) {
        if (text == null || n < 1) {
            throw new IllegalArgumentException("text must not be null and n must be at least 1");
        }
        String normalized = text.toLowerCase(Locale.ROOT).strip().replaceAll("\\s+", " ");
        List<String> grams = new ArrayList<>();
        for (int i = 0; i + n <= normalized.length(); i++) {
            grams.add(normalized.substring(i, i + n));
        }
        return grams;
    }

    /**
     * Counts the word n-grams of a token list, joining each n-gram's words with a space.
     *
     * @param tokens the words, for example from {@link Tokenizer#words(String)}
     * @param n the length of each n-gram
     * @return each distinct n-gram with its count, in order of first appearance
     * @throws IllegalArgumentException if {@code tokens} is null or {@code n} is less than 1
     */
    public static Map<String, Integer> frequencies(List<String> tokens, int n) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (List<String> gram : of(tokens, n)) {
            counts.merge(String.join(" ", gram), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * Measures how alike two texts are by the Jaccard index of their character n-gram sets.
     *
     * @param a the first text
     * @param b the second text
     * @param n the n-gram length; 3 works well for short strings
     * @return a value from 0 (nothing shared) to 1 (same n-grams); 1 if both texts are too short
     *     to have any n-gram
     * @throws IllegalArgumentException if either text is null or {@code n} is less than 1
     */
    public static double similarity(String a, String b, int n) {
        Set<String> left = new HashSet<>(characterNGrams(a, n));
        Set<String> right = new HashSet<>(characterNGrams(b, n));
        if (left.isEmpty() && right.isEmpty()) {
            return 1.0;
        }
        Set<String> union = new HashSet<>(left);
        union.addAll(right);
        left.retainAll(right);
        return left.size() / (double) union.size();
    }
}
