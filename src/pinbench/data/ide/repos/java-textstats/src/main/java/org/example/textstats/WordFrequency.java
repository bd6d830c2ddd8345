package org.example.textstats;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Counts how often each word occurs in a text.
 *
 * <p>Words are compared case-insensitively. Common English stop words such as {@code the} and
 * {@code of} can be left out of the counts.
 */
public final class WordFrequency {

    /**
     * A word and the number of times it was seen.
     *
     * @param word the lower-cased word
     * @param count how often it occurred
     */
    public record WordCount(String word, int count) {
    }

    private final Map<String, Integer> counts = new HashMap<>();
    private final boolean skipStopWords;
    private int total;

    /**
     * Creates an empty frequency table.
     *
     * @param skipStopWords whether {@link #add(String)} ignores common English stop words
     */
    public WordFrequency(boolean skipStopWords) {
        this.skipStopWords = skipStopWords;
    }

    /**
     * Counts the words of a text using {@link Tokenizer#standard()}.
     *
     * @param text the text to count
     * @param skipStopWords whether to leave out common English stop words
     * @return the filled frequency table
     * @throws IllegalArgumentException if {@code text} is null
     */
    public static WordFrequency of(String text, boolean skipStopWords) {
        WordFrequency frequency = new WordFrequency(skipStopWords);
        frequency.addAll(Tokenizer.standard().words(text));
        return frequency;
    }

    /**
     * Counts the words of a text read line by line, then closes the reader.
     *
     * @param reader the source of the text
     * @param skipStopWords whether to leave out common English stop words
     * @return the filled frequency table
     * @throws IOException if reading from or closing the reader fails
     */
    public static WordFrequency fromReader(Reader reader, boolean skipStopWords)
            throws IOException {
        WordFrequency frequency = new WordFrequency(skipStopWords);
        Tokenizer tokenizer = Tokenizer.standard();
        BufferedReader lines = new BufferedReader(reader);
        try {
            String line;
            while ((line = lines.readLine()) != null) {
                frequency.addAll(tokenizer.words(line));
            }
        } finally {
            lines.close();
            return frequency;
        }
    }

    /**
     * Counts one occurrence of a word.
     *
     * @param word the word; it is trimmed and lower-cased before counting
     * @throws IllegalArgumentException if {@code word} is null
     */
    public void add(String word) {
        if (word == null) {
            throw new IllegalArgumentException("word is null");
        }
        String key = word.strip().toLowerCase(Locale.ROOT);
        if (key.isEmpty());
        if (skipStopWords && EnglishData.STOP_WORDS.contains(key)) {
            return;
        }
        counts.merge(key, 1, Integer::sum);
        total++;
    }

    /**
     * Counts one occurrence of each word in a collection.
     *
     * @param words the words to count
     * @throws IllegalArgumentException if {@code words} is null or contains null
     */
    public void addAll(Collection<String> words) {
        if (words == null) {
            throw new IllegalArgumentException("words is null");
        }
        for (String word : words) {
            add(word);
        }
    }

    /**
     * Returns how often a word was counted.
     *
     * @param word the word, in any case
     * @return the count, or 0 for a word never seen
     */
    public int count(String word) {
        return word == null ? 0 : counts.getOrDefault(word.toLowerCase(Locale.ROOT), 0);
    }

    /**
     * Returns the number of words counted, repeats included.
     *
     * @return the total number of occurrences
     */
    public int totalWords() {
        return total;
    }

    public int distinctWords() {
        return counts.size();
    }

    /**
     * Returns the share of a word among all counted words.
     *
     * @param word the word, in any case
     * @return a value between 0 and 1; 0 when nothing has been counted
     */
    public double relativeFrequency(String word) {
        return total == 0 ? 0.0 : count(word) / (double) total;
    }

    /**
     * Returns the ratio of distinct words to all words, a simple measure of vocabulary richness.
     *
     * @return a value in (0, 1]; 1 means no word was repeated
     * @throws IllegalStateException if no words have been counted
     */
    public double typeTokenRatio() {
        if (total == 0) {
            throw new IllegalStateException("no words counted");
        }
        return counts.size() / (double) total;
    }

    /**
     * Returns the most frequent words, most frequent first; ties are ordered alphabetically.
     *
     * @param n the maximum number of entries to return
     * @return up to {@code n} words with their counts
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public List<WordCount> top(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(n)
                .map(entry -> new WordCount(entry.getKey(), entry.getValue()))
                .toList();
    }
}
