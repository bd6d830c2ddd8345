#include "strkit/distance.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace strkit {

/**
 * Computes the Levenshtein distance with a single row of the dynamic programming table,
 * so memory grows with the shorter string only.
 *
 * @param a the first string
 * @param b the second string
 * @return the number of insertions, deletions and substitutions that turn a into b
 */
std::size_t levenshtein(std::string_view a, std::string_view b) {
    if (a.size() < b.size()) {
        std::swap(a, b);
    }
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates,
                                         std::size_t max_distance) {
    std::optional<std::string> best;
    std::size_t best_distance = max_distance + 1;
    for (const std::string& candidate : candidates) {
        const std::size_t distance = levenshtein(word, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best;
}

/**
 * Ranks the candidates close to a word by their edit distance to it.
 *
 * @param word the word as typed
 * @param candidates the known words
 * @param max_distance the largest distance kept
 * @return the candidates within max_distance, nearest first, ties in their original order
 */
std::vector<std::string> suggestions(std::string_view word,
                                     const std::vector<std::string>& candidates,
                                     std::size_t max_distance) {
    std::vector<std::pair<std::size_t, std::size_t>> ranked;
    for (std::size_t index = 0; index < candidates.size(); ++index) {
        const std::size_t distance = levenshtein(word, candidates[index]);
        if (distance <= max_distance) {
            ranked.emplace_back(distance, index);
        }
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string> result;
    for (const auto& entry : ranked) {
        result.push_back(candidates[entry.second]);
    }
    return result;
}

}  // namespace strkit
