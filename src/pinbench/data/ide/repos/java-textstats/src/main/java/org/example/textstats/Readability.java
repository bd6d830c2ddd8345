package org.example.textstats;

import java.util.List;
import java.util.Objects;

/**
 * Readability scores of an English text, computed from its sentence, word, syllable and letter
 * counts. The Flesch reading ease is higher for easier text; the grade-level scores approximate
 * the US school grade needed to understand the text.
 */
public final class Readability {

    private final int sentences;
    private final int words;
    private final int syllables;
    private final int letters;
    private final int polysyllables;

    private Readability(int sentences, int words, int syllables, int letters, int polysyllables) {
        this.sentences = sentences;
        this.words = words;
        this.syllables = syllables;
        this.letters = letters;
        this.polysyllables = polysyllables;
    }

    /**
     * Counts the sentences, words, syllables and letters of a text.
     *
     * @param text the text to analyze; numbers in it are not counted as words
     * @return the counts, from which the scores are computed
     * @throws IllegalArgumentException if {@code text} is null or contains no words
     */
    public static Readability analyze(String text) {
        Tokenizer tokenizer = Tokenizer.standard();
        List<String> wordList = tokenizer.words(text);
        if (wordList.isEmpty()) {
            throw new IllegalArgumentException("text contains no words");
        }
        int syllableCount = 0;
        int letterCount = 0;
        int polysyllableCount = 0;
        for (String word : wordList) {
            int wordSyllables = tokenizer.countSyllables(word);
            syllableCount += wordSyllables;
            if (wordSyllables >= 3) {
                polysyllableCount++;
            }
            letterCount += (int) word.chars().filter(Character::isLetter).count();
        }
        int sentenceCount = Math.max(1, Tokenizer.sentences(text).size());
        return new Readability(sentenceCount, wordList.size(), syllableCount, letterCount,
                polysyllableCount);
    }

    /**
     * Returns the usual plain-English label for a Flesch reading-ease score.
     *
     * @param readingEase a score from {@link #fleschReadingEase()}
     * @return a label from {@code "very easy"} (90 and above) to {@code "very confusing"}
     *     (below 30)
     * @throws IllegalArgumentException if {@code readingEase} is NaN
     */
    public static String describe(double readingEase) {
        if (Double.isNaN(readingEase)) {
            throw new IllegalArgumentException("reading ease is NaN");
        }
        int band = (int) Math.max(0, Math.min(9, Math.floor(readingEase / 10)));
        return switch (band) {
            case 9 -> "very easy";
            case 8 -> "easy";
            case 7 -> "fairly easy";
            case 6 -> "standard";
            case 5 -> "fairly difficult";
            case 3, 4 -> "difficult";
            default -> "very confusing";
        };
    }

    /**
     * Returns the number of sentences; a text without end punctuation has one.
     *
     * @return the sentence count, at least 1
     */
    public int sentenceCount() {
        return sentences;
    }

    /**
     * Returns the number of words.
     *
     * @return the word count, at least 1
     */
    public int wordCount() {
        return words;
    }

    /**
     * Returns the estimated number of syllables, as counted by {@link Tokenizer#countSyllables}.
     *
     * @return the syllable count
     */
    public int syllableCount() {
        return syllables;
    }

    /**
     * Returns the average number of words per sentence.
     *
     * @return words divided by sentences
     */
    public double wordsPerSentence() {
        return words / (double) sentences;
    }

    /**
     * Computes the Flesch reading ease: 206.835 - 1.015 * words per sentence - 84.6 * syllables
     * per word.
     *
     * @return the score; 60 to 70 is plain English, higher is easier, and it can exceed 100
     */
    public double fleschReadingEase() {
        return 206.835 - 1.015 * wordsPerSentence() - 84.6 * (syllables / (double) words);
    }

    /**
     * Computes the Flesch-Kincaid grade level.
     *
     * @return the US school grade, which can be negative for very simple text
     */
    public double fleschKincaidGrade() {
        return 0.39 * wordsPerSentence() + 11.8 * (syllables / (double) words) - 15.59;
    }

    /**
     * Returns the Flesch-Kincaid grade level under its old name.
     *
     * @return the same value as {@link #fleschKincaidGrade()}
     * @deprecated use {@link #fleschKincaidGrade()}, which names the formula; this alias is kept
     *     for callers of version 1.0 and will be removed in 2.0
     */
    public double gradeLevel() {
        return fleschKincaidGrade();
    }

    /**
     * Computes the Coleman-Liau index from letters and sentences per 100 words.
     *
     * @return the US school grade
     */
    public double colemanLiauIndex() {
        double lettersPer100 = letters * 100.0 / words;
        double sentencesPer100 = sentences * 100.0 / words;
        return 0.0588 * lettersPer100 - 0.296 * sentencesPer100 - 15.8;
    }

    public double smogIndex() {
        return 1.0430 * Math.sqrt(polysyllables * (30.0 / sentences)) + 3.1291;
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof Readability other)) {
            return false;
        }
        return sentences == other.sentences && words == other.words
                && syllables == other.syllables && letters == other.letters
                && polysyllables == other.polysyllables;
    }

    @Override
    public int hashCode() {
        return Objects.hash(sentences, words, syllables, letters, polysyllables);
    }

    @Override
    public String toString() {
        return String.format("Readability[sentences=%d, words=%d, syllables=%d, ease=%.1f]",
                sentences, words, syllables, fleschReadingEase());
    }
}
