#include <gtest/gtest.h>

#include <string>

#include "strkit/case.h"

TEST(Case, LowerAndUpperTouchOnlyAsciiLetters) {
    EXPECT_EQ(strkit::to_lower("Hello, World 42"), "hello, world 42");
    EXPECT_EQ(strkit::to_upper("Hello, World 42"), "HELLO, WORLD 42");
}

TEST(SnakeCase, SplitsCamelCaseAndAcronyms) {
    EXPECT_EQ(strkit::to_snake_case("parseHttpResponse"), "parse_http_response");
    EXPECT_EQ(strkit::to_snake_case("parseHTTPResponse"), "parse_http_response");
    EXPECT_EQ(strkit::to_snake_case("HTTPServer"), "http_server");
    EXPECT_EQ(strkit::to_snake_case("version2Name"), "version2_name");
}

TEST(SnakeCase, JoinsWordsAndKebabCase) {
    EXPECT_EQ(strkit::to_snake_case("Parse HTTP response"), "parse_http_response");
    EXPECT_EQ(strkit::to_snake_case("max-line--length-"), "max_line_length");
    EXPECT_EQ(strkit::to_snake_case("already_snake"), "already_snake");
}

TEST(CamelCase, JoinsWordsCapitalized) {
    EXPECT_EQ(strkit::to_camel_case("hello_world"), "helloWorld");
    EXPECT_EQ(strkit::to_camel_case("Max-line length"), "maxLineLength");
    EXPECT_EQ(strkit::to_camel_case("__private_name"), "privateName");
}

TEST(TitleCase, CapitalizesEveryWord) {
    EXPECT_EQ(strkit::to_title_case("the QUICK brown fox"), "The Quick Brown Fox");
    EXPECT_EQ(strkit::to_title_case("don't stop-me now"), "Don't Stop-Me Now");
}

TEST(FoldAscii, DropsAccentsAndSpellsOutLigatures) {
    EXPECT_EQ(strkit::fold_ascii("Cr\xC3\xA8me Br\xC3\xBBl\xC3\xA9" "e"), "Creme Brulee");
    EXPECT_EQ(strkit::fold_ascii("Stra\xC3\x9F" "e"), "Strasse");
    EXPECT_EQ(strkit::fold_ascii("\xC5\x81\xC3\xB3" "d\xC5\xBA"), "Lodz");
    EXPECT_EQ(strkit::fold_ascii("\xC3\x86sir"), "AEsir");
}

TEST(FoldAscii, UnknownOrMalformedCharactersBecomeQuestionMarks) {
    EXPECT_EQ(strkit::fold_ascii("\xE6\x97\xA5\xE6\x9C\xAC"), "??");
    EXPECT_EQ(strkit::fold_ascii("a\xFF" "b"), "a?b");
    EXPECT_EQ(strkit::fold_ascii("cut \xC3"), "cut ?");
}

TEST(Slugify, MakesLowerCaseHyphenatedSlugs) {
    EXPECT_EQ(strkit::slugify("Cr\xC3\xA8me Br\xC3\xBBl\xC3\xA9" "e: 10 Tips!"),
              "creme-brulee-10-tips");
    EXPECT_EQ(strkit::slugify("  --Hello,   World--  "), "hello-world");
}

TEST(Slugify, UsesTheGivenSeparator) {
    EXPECT_EQ(strkit::slugify("Hello, World", '_'), "hello_world");
    EXPECT_EQ(strkit::slugify("!!!"), "");
}
