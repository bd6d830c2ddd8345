#ifndef STRKIT_DISTANCE_H
#define STRKIT_DISTANCE_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strkit {

/**
 * Counts the single-character insertions, deletions and substitutions that turn one string
 * into another (the Levenshtein distance), comparing bytes.
 *
 * @param a the first string
 * @param b the second string
 * @return the edit distance; 0 when the strings are equal
 */
std::size_t levenshtein(std::string_view a, std::string_view b);

/**
 * Finds the candidate nearest to a word, for "did you mean ...?" messages.
 *
 * @param word the word as typed
 * @param candidates the known words
 * @param max_distance the largest edit distance still worth suggesting
 * @return the candidate with the smallest distance (the first one on a tie), or nothing
 *         when every candidate is further than max_distance
 */
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates,
                                         std::size_t max_distance = 2);

/**
 * Lists the candidates within an edit distance of a word, nearest first.
 *
 * @param word the word as typed
 * @param candidates the known words
 * @param max_distance the largest edit distance to include
 * @return the matching candidates ordered by distance, ties in their original order
 */
std::vector<std::string> suggestions(std::string_view word,
                                     const std::vector<std::string>& candidates,
                                     std::size_t max_distance = 2);

}  // namespace strkit

#endif  // STRKIT_DISTANCE_H
