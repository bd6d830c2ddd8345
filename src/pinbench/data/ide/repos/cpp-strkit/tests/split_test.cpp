#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "strkit/split.h"
#include "strkit/trim.h"

using Strings = std::vector<std::string>;

TEST(Split, KeepsEmptyFields) {
    EXPECT_EQ(strkit::split("a,,b", ','), (Strings{"a", "", "b"}));
    EXPECT_EQ(strkit::split("", ','), (Strings{""}));
    EXPECT_EQ(strkit::split("a,b,", ','), (Strings{"a", "b", ""}));
}

TEST(Split, SkipsEmptyFieldsWhenAsked) {
    EXPECT_EQ(strkit::split(",a,,b,", ',', true), (Strings{"a", "b"}));
    EXPECT_TRUE(strkit::split(",,", ',', true).empty());
}

TEST(Split, WordsIgnoreRunsOfWhitespace) {
    EXPECT_EQ(strkit::split_words("  the\tquick \n brown "), (Strings{"the", "quick", "brown"}));
    EXPECT_TRUE(strkit::split_words(" \t ").empty());
}

TEST(Join, PutsTheSeparatorBetweenParts) {
    EXPECT_EQ(strkit::join({"a", "b", "c"}, ", "), "a, b, c");
    EXPECT_EQ(strkit::join({"only"}, "-"), "only");
    EXPECT_EQ(strkit::join({}, "-"), "");
}

TEST(ReplaceAll, ReplacesEveryOccurrenceWithoutOverlap) {
    EXPECT_EQ(strkit::replace_all("a-b-c", "-", " + "), "a + b + c");
    EXPECT_EQ(strkit::replace_all("aaa", "aa", "b"), "ba");
    EXPECT_EQ(strkit::replace_all("nothing here", "xyz", "!"), "nothing here");
}

TEST(ReplaceAll, ThrowsOnEmptyPattern) {
    EXPECT_THROW(strkit::replace_all("abc", "", "x"), std::invalid_argument);
}

TEST(ParseKeyValues, ReadsTrimmedPairs) {
    const std::map<std::string, std::string> expected{{"host", "example.org"}, {"port", "8080"}};
    EXPECT_EQ(strkit::parse_key_values(" host = example.org; port=8080 ; "), expected);
}

TEST(ParseKeyValues, LaterKeysWinWithCustomDelimiters) {
    const auto values = strkit::parse_key_values("a:1,b:2,a:3", ',', ':');
    ASSERT_EQ(values.size(), 2U);
    EXPECT_EQ(values.at("a"), "3");
    EXPECT_EQ(values.at("b"), "2");
}

TEST(ParseKeyValues, ThrowsOnPairWithoutKey) {
    EXPECT_THROW(strkit::parse_key_values("a=1; oops"), std::invalid_argument);
    EXPECT_THROW(strkit::parse_key_values(" = 1"), std::invalid_argument);
}

TEST(Trim, RemovesWhitespaceAtEitherEnd) {
    EXPECT_EQ(strkit::trim("  x y \t\n"), "x y");
    EXPECT_EQ(strkit::trim_left("  x "), "x ");
    EXPECT_EQ(strkit::trim_right("  x \r\n"), "  x");
    EXPECT_EQ(strkit::trim(" \t "), "");
}

TEST(Trim, StartsAndEndsWith) {
    EXPECT_TRUE(strkit::starts_with("strkit.h", "strkit"));
    EXPECT_FALSE(strkit::starts_with("kit", "strkit"));
    EXPECT_TRUE(strkit::ends_with("strkit.h", ".h"));
    EXPECT_FALSE(strkit::ends_with("strkit.h", ".cpp"));
    EXPECT_TRUE(strkit::ends_with("any", ""));
}

TEST(Trim, CollapsesInnerWhitespace) {
    EXPECT_EQ(strkit::collapse_whitespace("  one \t two\n\nthree  "), "one two three");
    EXPECT_EQ(strkit::collapse_whitespace("   "), "");
}
