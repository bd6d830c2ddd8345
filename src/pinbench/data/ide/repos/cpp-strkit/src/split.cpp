#include "strkit/split.h"

#include <cctype>
#include <stdexcept>

#include "strkit/trim.h"

namespace strkit {

/**
 * Splits text at every occurrence of a delimiter character, keeping empty fields unless
 * asked not to.
 *
 * @param text the text to split
 * @param delimiter the character that separates the fields
 * @param skip_empty whether empty fields are left out
 * @return the fields in the order they appear
 */
std::vector<std::string> split(std::string_view text, char delimiter, bool skip_empty) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(delimiter, start);
        const std::size_t length = end == std::string_view::npos ? end : end - start;
        const std::string_view field = text.substr(start, length);
        if (!field.empty() || !skip_empty) {
            fields.emplace_back(field);
        }
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return fields;
}

std::vector<std::string> split_words(std::string_view text) {
    std::vector<std::string> words;
    std::string current;
    for (const char c : text) {
        if (std::isspace(static_cast<unsigned char>(c)) != 0) {
            if (!current.empty()) {
                words.push_back(current);
                current.clear();
            }
        } else {
            current += c;
        }
    }
    if (!current.empty()) {
        words.push_back(current);
    }
    return words;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string joined;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            joined.append(separator);
        }
        joined = joined + parts[i];
    }
    return joined;
}

/**
 * Replaces every occurrence of a substring, left to right and without overlaps.
 *
 * @param text the text to search
 * @param from the substring to replace
 * @param to the replacement
 * @return the text with every occurrence of from replaced by to
 * @throws std::invalid_argument if from is empty
 */
std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
    if (from.empty()) {
        throw std::invalid_argument("replace_all: the text to replace is empty");
    }
    std::string result;
    result.reserve(text.size());
    std::size_t start = 0;
    std::size_t found = text.find(from);
    while (found != std::string_view::npos) {
        result.append(text.substr(start, found - start));
        result.append(to);
        start = found + from.size();
        found = text.find(from, start);
    }
    result.append(text.substr(start));
    return result;
}

std::map<std::string, std::string> parse_key_values(std::string_view text, char pair_delimiter,
                                                    char key_delimiter) {
    std::map<std::string, std::string> values;
    for (std::string pair : split(text, pair_delimiter, true)) {
        const std::string_view entry = trim(pair);
        if (entry.empty()) {
            continue;
        }
        const std::size_t at = entry.find(key_delimiter);
        if (at == std::string_view::npos) {
            throw std::invalid_argument("parse_key_values: no '" + std::string(1, key_delimiter) +
                                        "' in '" + std::string(entry) + "'");
        }
        const std::string_view key = trim(entry.substr(0, at));
        if (key.empty()) {
            throw std::invalid_argument("parse_key_values: empty key in '" +
                                        std::string(entry) + "'");
        }
        values[std::string(key)] = std::string(trim(entry.substr(at + 1)));
    }
    return values;
}

}  // namespace strkit
