#include "strkit/trim.h"

namespace strkit {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

/**
 * Removes leading ASCII whitespace (space, tab, newline, carriage return, form feed,
 * vertical tab).
 *
 * @param text the text to trim
 * @return the part of text after its leading whitespace
 */
std::string_view trim_left(std::string_view text) {
    std::size_t start = 0;
    while (start < text.size() && is_space(text[start])) {
        ++start;
    }
    return text.substr(start);
}

std::string_view trim_right(std::string_view text) {
    std::size_t end = text.size();
    while (end > 0 && is_space(text[end - 1])) {
        --end;
    }
    return text.substr(0, end);
}

std::string_view trim(std::string_view text) {
    return trim_left(trim_right(text));
}

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/**
 * Trims text and turns every run of whitespace inside it into one space.
 *
 * @param text the text to tidy
 * @return the collapsed copy
 */
std::string collapse_whitespace(std::string_view text) {
    std::string collapsed;
    collapsed.reserve(text.size());
    bool pending_space = false;
    for (const char c : trim(text)) {
        if (is_space(c)) {
            pending_space = true;
            continue;
        }
        if (pending_space) {
            collapsed += ' ';
            pending_space = false;
        }
        collapsed += c;
    }
    return collapsed;
}

}  // namespace strkit
