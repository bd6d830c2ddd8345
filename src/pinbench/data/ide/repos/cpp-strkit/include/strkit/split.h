#ifndef STRKIT_SPLIT_H
#define STRKIT_SPLIT_H

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace strkit {

/**
 * Splits text at every occurrence of a delimiter character.
 *
 * "a,,b" split at ',' gives {"a", "", "b"}; with skip_empty it gives {"a", "b"}.
 *
 * @param text the text to split
 * @param delimiter the character that separates the fields
 * @param skip_empty whether empty fields are left out of the result
 * @return the fields in the order they appear (empty text gives one empty field unless
 *         skip_empty is set)
 */
std::vector<std::string> split(std::string_view text, char delimiter, bool skip_empty = false);

/**
 * Splits text into the words between runs of ASCII whitespace.
 *
 * @param text the text to split
 * @return the words; none for text that is empty or only whitespace
 */
std::vector<std::string> split_words(std::string_view text);

/**
 * Joins strings with a separator between each pair of neighbours.
 *
 * @param parts the strings to join
 * @param separator what goes between two parts
 * @return the joined string; empty when there are no parts
 */
std::string join(const std::vector<std::string>& parts, std::string_view separator);

/**
 * Replaces every occurrence of one substring with another, scanning left to right without
 * overlaps ("aaa" with "aa" replaced by "b" gives "ba").
 *
 * @param text the text to search
 * @param from the substring to replace
 * @param to what replaces it
 * @return the text with every occurrence replaced
 * @throws std::invalid_argument if from is empty
 */
std::string replace_all(std::string_view text, std::string_view from, std::string_view to);

/**
 * Reads "key=value" pairs such as "host = example.org; port = 8080" into a map. Keys and
 * values are trimmed, empty pairs are skipped, and a later key replaces an earlier one.
 *
 * @param text the pairs to read
 * @param pair_delimiter the character between two pairs
 * @param key_delimiter the character between a key and its value
 * @return the values by key
 * @throws std::invalid_argument if a pair has no key delimiter or an empty key
 */
std::map<std::string, std::string> parse_key_values(std::string_view text,
                                                    char pair_delimiter = ';',
                                                    char key_delimiter = '=');

}  // namespace strkit

#endif  // STRKIT_SPLIT_H
