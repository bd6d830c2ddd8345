#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "strkit/distance.h"
#include "strkit/size.h"

TEST(FormatBytes, SmallCountsAreExact) {
    EXPECT_EQ(strkit::format_bytes(0), "0 B");
    EXPECT_EQ(strkit::format_bytes(1023), "1023 B");
}

TEST(FormatBytes, BinaryUnits) {
    EXPECT_EQ(strkit::format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(strkit::format_bytes(1048576), "1.0 MiB");
    EXPECT_EQ(strkit::format_bytes(1234567, 2), "1.18 MiB");
    EXPECT_EQ(strkit::format_bytes(5ULL << 40, 0), "5 TiB");
}

TEST(FormatBytes, DecimalUnits) {
    EXPECT_EQ(strkit::format_bytes(1500, 1, false), "1.5 kB");
    EXPECT_EQ(strkit::format_bytes(2500000000ULL, 1, false), "2.5 GB");
}

TEST(FormatBytes, RejectsBadPrecision) {
    EXPECT_THROW(strkit::format_bytes(10, -1), std::invalid_argument);
    EXPECT_THROW(strkit::format_bytes(10, 7), std::invalid_argument);
}

TEST(ParseSize, ReadsBareNumbersAndUnits) {
    EXPECT_EQ(strkit::parse_size("512"), 512U);
    EXPECT_EQ(strkit::parse_size(" 42 B "), 42U);
    EXPECT_EQ(strkit::parse_size("10 KiB"), 10240U);
    EXPECT_EQ(strkit::parse_size("1.5MB"), 1500000U);
    EXPECT_EQ(strkit::parse_size("2 g"), 2147483648ULL);
    EXPECT_EQ(strkit::parse_size("1 kb"), 1000U);
    EXPECT_EQ(strkit::parse_size("0.1 KiB"), 102U);
}

TEST(ParseSize, RejectsTextWithoutANumber) {
    EXPECT_THROW(strkit::parse_size(""), std::invalid_argument);
    EXPECT_THROW(strkit::parse_size("KiB"), std::invalid_argument);
    EXPECT_THROW(strkit::parse_size("1.2.3 MB"), std::invalid_argument);
}

TEST(ParseSize, UnknownUnitSuggestsTheClosest) {
    try {
        strkit::parse_size("10 MiBs");
        FAIL() << "no exception";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("did you mean 'MiB'"), std::string::npos)
            << error.what();
    }
    EXPECT_THROW(strkit::parse_size("3 parsecs"), std::invalid_argument);
}

TEST(ParseSize, TooLargeIsOutOfRange) {
    EXPECT_THROW(strkit::parse_size("16777216 TiB"), std::out_of_range);
    EXPECT_EQ(strkit::parse_size("16777215 TiB"), 16777215ULL << 40);
}

TEST(Levenshtein, CountsEdits) {
    EXPECT_EQ(strkit::levenshtein("kitten", "sitting"), 3U);
    EXPECT_EQ(strkit::levenshtein("flaw", "lawn"), 2U);
    EXPECT_EQ(strkit::levenshtein("", "abc"), 3U);
    EXPECT_EQ(strkit::levenshtein("same", "same"), 0U);
}

TEST(ClosestMatch, FindsTheNearestCandidate) {
    const std::vector<std::string> words{"width", "length", "height"};
    EXPECT_EQ(strkit::closest_match("lenght", words), std::optional<std::string>("length"));
    EXPECT_EQ(strkit::closest_match("colour", words), std::nullopt);
}

TEST(Suggestions, OrderedByDistanceThenPosition) {
    const std::vector<std::string> words{"dog", "cart", "cat", "cut", "bat"};
    EXPECT_EQ(strkit::suggestions("cat", words, 1),
              (std::vector<std::string>{"cat", "cart", "cut", "bat"}));
    EXPECT_TRUE(strkit::suggestions("zebra", words).empty());
}
