#ifndef STRKIT_CASE_H
#define STRKIT_CASE_H

#include <string>
#include <string_view>

namespace strkit {

/**
 * Converts ASCII letters to lower case; other bytes are kept as they are.
 *
 * @param text the text to convert
 * @return the converted copy
 */
std::string to_lower(std::string_view text);

/**
 * Converts ASCII letters to upper case; other bytes are kept as they are.
 *
 * @param text the text to convert
 * @return the converted copy
 */
std::string to_upper(std::string_view text);

/**
 * Converts an identifier or phrase to snake_case: "parseHTTPResponse" and
 * "Parse HTTP response" both give "parse_http_response".
 *
 * @param text camelCase, PascalCase, kebab-case or space separated words
 * @return the words in lower case joined by underscores
 */
std::string to_snake_case(std::string_view text);

/**
 * Converts snake_case, kebab-case or space separated words to camelCase.
 *
 * @param text the words to convert
 * @return the first word in lower case, each later word capitalized, no separators
 */
std::string to_camel_case(std::string_view text);

/**
 * Capitalizes the first letter of every word and lowers the rest.
 *
 * @param text the text to convert
 * @return the text in title case, with its spacing unchanged
 */
std::string to_title_case(std::string_view text);

/**
 * Spells UTF-8 text with ASCII letters only: accented Latin letters lose their accents
 * ("Crème brûlée" gives "Creme brulee"), ligatures are spelled out ("Æ" gives "AE").
 * Characters that have no ASCII spelling become '?'.
 *
 * @param text UTF-8 text
 * @return the ASCII spelling
 */
std::string fold_ascii(std::string_view text);

/**
 * Makes a URL slug of a title: ASCII letters and digits in lower case, every other run of
 * characters replaced by one separator, none at either end ("Crème Brûlée: 10 Tips!" gives
 * "creme-brulee-10-tips").
 *
 * @param text UTF-8 text
 * @param separator the character between words
 * @return the slug; empty when text has no letters or digits
 */
std::string slugify(std::string_view text, char separator = '-');

}  // namespace strkit

#endif  // STRKIT_CASE_H
