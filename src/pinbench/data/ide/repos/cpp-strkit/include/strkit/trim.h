#ifndef STRKIT_TRIM_H
#define STRKIT_TRIM_H

#include <string>
#include <string_view>

namespace strkit {

/**
 * Removes leading ASCII whitespace.
 *
 * @param text the text to trim
 * @return a view of text without its leading whitespace
 */
std::string_view trim_left(std::string_view text);

/**
 * Removes trailing ASCII whitespace.
 *
 * @param text the text to trim
 * @return a view of text without its trailing whitespace
 */
std::string_view trim_right(std::string_view text);

/**
 * Removes leading and trailing ASCII whitespace.
 *
 * @param text the text to trim
 * @return a view of text without whitespace at either end
 */
std::string_view trim(std::string_view text);

/**
 * Tells whether text begins with a prefix.
 *
 * @param text the text to look at
 * @param prefix the prefix to look for
 * @return true when text starts with prefix (always for an empty prefix)
 */
bool starts_with(std::string_view text, std::string_view prefix);

/**
 * Tells whether text ends with a suffix.
 *
 * @param text the text to look at
 * @param suffix the suffix to look for
 * @return true when text ends with suffix (always for an empty suffix)
 */
bool ends_with(std::string_view text, std::string_view suffix);

/**
 * Trims text and replaces every run of whitespace inside it with a single space.
 *
 * @param text the text to tidy
 * @return the collapsed text
 */
std::string collapse_whitespace(std::string_view text);

}  // namespace strkit

#endif  // STRKIT_TRIM_H
