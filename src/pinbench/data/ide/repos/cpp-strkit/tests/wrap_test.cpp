#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "strkit/wrap.h"

using Lines = std::vector<std::string>;

TEST(Wrapper, RejectsZeroWidth) {
    EXPECT_THROW(strkit::Wrapper(0), std::invalid_argument);
    EXPECT_EQ(strkit::Wrapper(12).width(), 12U);
}

TEST(Wrapper, WrapsAtWordBoundaries) {
    const strkit::Wrapper wrapper(20);
    EXPECT_EQ(wrapper.wrap("The quick brown fox jumps over the lazy dog"),
              (Lines{"The quick brown fox", "jumps over the lazy", "dog"}));
    EXPECT_TRUE(wrapper.wrap("  \n ").empty());
}

TEST(Wrapper, IndentsFirstAndLaterLines) {
    strkit::Wrapper wrapper(16);
    wrapper.set_initial_indent("* ").set_indent("  ");
    EXPECT_EQ(wrapper.wrap("one two three four five six"),
              (Lines{"* one two three", "  four five six"}));
}

TEST(Wrapper, BreaksLongWordsUnlessAsked) {
    strkit::Wrapper wrapper(5);
    EXPECT_EQ(wrapper.wrap("abcdefghijkl xy"), (Lines{"abcde", "fghij", "kl xy"}));
    wrapper.set_break_long_words(false);
    EXPECT_EQ(wrapper.wrap("abcdefgh xy"), (Lines{"abcdefgh", "xy"}));
}

TEST(Wrapper, IndentAsWideAsTheLineThrows) {
    strkit::Wrapper wrapper(4);
    wrapper.set_indent("    ");
    EXPECT_THROW(wrapper.wrap("text"), std::invalid_argument);
}

TEST(Wrapper, FillKeepsParagraphsApart) {
    const strkit::Wrapper wrapper(10);
    EXPECT_EQ(wrapper.fill("one two three\nfour\n\n\n  five six  "),
              "one two\nthree four\n\nfive six");
    EXPECT_EQ(wrapper.fill(""), "");
}

TEST(Wrapper, ShortenCutsAfterTheLastWholeWord) {
    EXPECT_EQ(strkit::Wrapper::shorten("Hello   world", 20), "Hello world");
    EXPECT_EQ(strkit::Wrapper::shorten("Hello world, this is a long line", 20),
              "Hello world, [...]");
    EXPECT_EQ(strkit::Wrapper::shorten("Supercalifragilistic word", 10), "[...]");
    EXPECT_EQ(strkit::Wrapper::shorten("one two three", 9, "..."), "one...");
}

TEST(Wrapper, ShortenThrowsWhenThePlaceholderDoesNotFit) {
    EXPECT_THROW(strkit::Wrapper::shorten("a long sentence here", 4), std::invalid_argument);
}
