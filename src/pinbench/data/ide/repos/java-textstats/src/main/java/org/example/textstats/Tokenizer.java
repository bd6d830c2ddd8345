package org.example.textstats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits English text into words and sentences and estimates syllable counts.
 *
 * <p>A word is a run of letters, optionally joined by apostrophes ({@code don't}); a number is
 * a run of digits with optional {@code .} or {@code ,} groups. A sentence ends at {@code .},
 * {@code !} or {@code ?} before whitespace, except after an abbreviation such as {@code Dr.}
 */
public final class Tokenizer {

    private static final Pattern TOKEN =
            Pattern.compile("\\p{L}+(?:['\\u2019]\\p{L}+)*|\\d+(?:[.,]\\d+)*");
    private static final Pattern SENTENCE_END = Pattern.compile("[.!?]+(?=\\s|$)");
    private static final String VOWELS = "aeiouy";

    private final boolean lowercase;
    private final boolean keepNumbers;

    /**
     * Creates a tokenizer.
     *
     * @param lowercase whether to lower-case every word
     * @param keepNumbers whether numbers such as {@code 3.14} are returned as tokens
     */
    public Tokenizer(boolean lowercase, boolean keepNumbers) {
        this.lowercase = lowercase;
        this.keepNumbers = keepNumbers;
    }

    public static Tokenizer standard() {
        return new Tokenizer(true, false);
    }

    /**
     * Returns the words of a text in order of appearance.
     *
     * <p>Typographic apostrophes are normalized to {@code '}; punctuation is dropped.
     *
     * @param text the text to split
     * @return the words, lower-cased if this tokenizer was created that way
     * @throws IllegalArgumentException if {@code text} is null
     */
    public List<String> words(String text) {
        if (text == null) {
            throw new IllegalArgumentException("text is null");
        }
        List<String> words = new ArrayList<>();
        Matcher matcher = TOKEN.matcher(text);
        while (matcher.find()) {
            String token = matcher.group().replace('\u2019', '\'');
            if (Character.isDigit(token.charAt(0)) && !keepNumbers) {
                continue;
            }
            words.add(lowercase ? token.toLowerCase(Locale.ROOT) : token);
        }
        return words;
    }

    /**
     * Splits a text into sentences, keeping each sentence's closing punctuation.
     *
     * @param text the text to split
     * @return the trimmed sentences; a trailing fragment without punctuation counts as one
     * @throws IllegalArgumentException if {@code text} is null
     */
    public static List<String> sentences(String text) {
        if (text == null) {
            throw new IllegalArgumentException("text is null");
        }
        List<String> sentences = new ArrayList<>();
        Matcher matcher = SENTENCE_END.matcher(text);
        int start = 0;
        while (matcher.find()) {
            String candidate = text.substring(start, matcher.end()).strip();
            if (matcher.group().equals(".") && endsWithAbbreviation(candidate)) {
                continue;
            }
            if (!candidate.isEmpty()) {
                sentences.add(candidate);
            }
            start = matcher.end();
        }
        String rest = text.substring(start).strip();
        if (!rest.isEmpty()) {
            sentences.add(rest);
        }
        return sentences;
    }

    /**
     * Estimates the number of syllables in an English word.
     *
     * <p>Counts groups of consecutive vowels ({@code y} included), then drops a silent final
     * {@code e} unless the word ends in {@code le}. Words of up to three letters have one
     * syllable. The result is a heuristic and is wrong for some words.
     *
     * @param word the word; characters other than ASCII letters are ignored
     * @return the estimated syllable count, 0 if the word has no letters, otherwise at least 1
     * @throws IllegalArgumentException if {@code word} is null
     */
    public static int countSyllables(String word) {
        if (word == null) {
            throw new IllegalArgumentException("word is null");
        }
        String w = word.toLowerCase(Locale.ROOT).replaceAll("[^a-z]", "");
        if (w.isEmpty()) {
            return 0;
        }
        if (w.length() <= 3) {
            return 1;
        }
        int count = 0;
        boolean previousVowel = false;
        for (int i = 0; i < w.length(); i++) {
            boolean vowel = VOWELS.indexOf(w.charAt(i)) >= 0;
            if (vowel && !previousVowel) {
                count++;
            }
            previousVowel = vowel;
        }
        char last = (char) w.charAt(w.length() - 1);
        if (last == 'e' && !w.endsWith("le") && count > 1) {
            count--;
        }
        return Math.max(1, count);
    }

    private static boolean endsWithAbbreviation(String candidate) {
        int start = candidate.lastIndexOf(' ') + 1;
        String lastWord = candidate.substring(start, candidate.length() - 1);
        return EnglishData.ABBREVIATIONS.contains(lastWord.toLowerCase(Locale.ROOT));
    }
}
