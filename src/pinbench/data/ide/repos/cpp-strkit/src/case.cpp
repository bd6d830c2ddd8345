#include "strkit/case.h"

#include <cctype>

#include "unicode_tables.h"

namespace strkit {
namespace {

bool is_upper(char c) {
    return std::isupper(static_cast<unsigned char>(c)) != 0;
}

bool is_lower(char c) {
    return std::islower(static_cast<unsigned char>(c)) != 0;
}

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool is_alnum(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool is_word_break(char c) {
    return c == '_' || c == '-' || std::isspace(static_cast<unsigned char>(c)) != 0;
}

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

char upper(char c) {
    return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

// Appends a separator unless the text is empty or already ends with one.
void push_separator(std::string& out, char separator) {
    if (!out.empty() && out.back() != separator) {
        out += separator;
    }
}

// Decodes the UTF-8 sequence at pos and moves pos past it. A malformed or truncated
// sequence gives U+FFFD and moves pos past the bytes that were read.
char32_t next_code_point(std::string_view text, std::size_t& pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) {
        ++pos;
        return lead;
    }
    if (lead < 0xC0 || lead >= 0xF8) {
        ++pos;
        return 0xFFFD;
    }
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    char32_t code = lead & (0x7FU >> length);
    if (pos + length > text.size()) {
        pos = text.size();
        return 0xFFFD;
    }
    for (std::size_t i = 1; i < length; ++i) {
        const auto byte = static_cast<unsigned char>(text[pos + i]);
        if ((byte & 0xC0U) != 0x80U) {
            pos += i;
            return 0xFFFD;
        }
        code = (code << 6U) | (byte & 0x3FU);
    }
    pos += length;
    return code;
}

}  // namespace

std::string to_lower(std::string_view text) {
    std::string lowered(text);
    for (char& c : lowered) {
        c = lower(c);
    }
    return lowered;
}

std::string to_upper(std::string_view text) {
    std::string raised(text);
    for (char& c : raised) {
        c = upper(c);
    }
    return raised;
}

/**
 * Converts camelCase, PascalCase, kebab-case or space separated words to snake_case. An
 * upper-case letter starts a new word after a lower-case letter or a digit, and at the end
 * of an acronym ("HTTPServer" gives "http_server").
 *
 * @param text the identifier or phrase to convert
 * @return the words in lower case, joined by single underscores
 */
std::string to_snake_case(std::string_view text) {
    std::string snake;
    snake.reserve(text.size() + text.size() / 4);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '_') {
            push_separator(snake, '_');
        } else if (c == '-') {
            push_separator(snake, '_');
        } else if (is_upper(c)) {
            const bool after_word = i > 0 && (is_lower(text[i - 1]) || is_digit(text[i - 1]));
            const bool ends_acronym =
                i > 0 && is_upper(text[i - 1]) && i + 1 < text.size() && is_lower(text[i + 1]);
            if (after_word || ends_acronym) {
                push_separator(snake, '_');
            }
            snake += lower(c);
        } else {
            snake += c;
        }
    }
    while (!snake.empty() && snake.back() == '_') {
        snake.pop_back();
    }
    return snake;
}

std::string to_camel_case(std::string_view text) {
    std::string camel;
    camel.reserve(text.size());
    bool upper_next = false;
    for (const char c : text) {
        if (is_word_break(c)) {
            upper_next = !camel.empty();
            continue;
        }
        if (upper_next) {
            camel += upper(c);
            upper_next = false;
        } else if (camel.empty()) {
            camel += lower(c);
        } else {
            camel += c;
        }
    }
    return camel;
}

/**
 * Capitalizes the first letter or digit of every word and lowers the others. An apostrophe
 * does not start a word ("don't" gives "Don't").
 *
 * @param text the text to convert
 * @return the converted copy, with its spacing unchanged
 */
std::string to_title_case(std::string_view text) {
    std::string title(text);
    bool word_start = true;
    for (char& c : title) {
        if (is_alnum(c)) {
            c = word_start ? upper(c) : lower(c);
            word_start = false;
        } else {
            word_start = c != '\'';
        }
    }
    return title;
}

/**
 * Spells UTF-8 text with ASCII only, through the generated folding table.
 *
 * @param text UTF-8 text
 * @return the text with accents dropped and ligatures spelled out; '?' for characters
 *         the table does not know
 */
std::string fold_ascii(std::string_view text) {
    std::string folded;
    folded.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        const char32_t code = next_code_point(text, pos);
        if (code < 0x80) {
            folded += static_cast<char>(code);
        } else if (const char* ascii = detail::ascii_fold(code)) {
            folded += ascii;
        } else {
            folded += '?';
        }
    }
    return folded;
}

std::string slugify(std::string_view text, char separator) {
    std::string slug;
    bool pending_separator = false;
    for (const char c : fold_ascii(text)) {
        if (!is_alnum(c)) {
            pending_separator = true;
            continue;
        }
        if (pending_separator && !slug.empty()) {
            slug += separator;
        }
        pending_separator = false;
        slug += lower(c);
    }
    return slug;
}

}  // namespace strkit
