#include "strkit/wrap.h"

#include <stdexcept>

#include "strkit/split.h"
#include "strkit/trim.h"

namespace strkit {

/**
 * Creates a wrapper for lines of a given width, with no indents.
 *
 * @param width the maximum line length
 * @throws std::invalid_argument if width is zero
 */
Wrapper::Wrapper(std::size_t width) : width_(width) {
    if (width == 0) {
        throw std::invalid_argument("Wrapper: the width must be at least 1");
    }
}

const std::string& Wrapper::indent_for(std::size_t line) const {
    return line == 0 ? initial_indent_ : indent_;
}

/**
 * Wraps one paragraph: words are added to the current line while they fit, and a word
 * longer than a whole line is broken (or left whole when long words are not broken).
 *
 * @param text the paragraph to wrap
 * @return the lines, each at most width characters unless a long word is kept whole
 * @throws std::invalid_argument if an indent is as long as the width
 */
std::vector<std::string> Wrapper::wrap(std::string_view text) const {
    if (initial_indent_.size() >= width_ || indent_.size() >= width_) {
        throw std::invalid_argument("Wrapper::wrap: the indent leaves no room for text");
    }
    std::vector<std::string> lines;
    std::string line;
    bool line_has_words = false;
    for (const std::string& word : split_words(text)) {
        std::string_view rest = word;
        while (!rest.empty()) {
            if (!line_has_words) {
                line = indent_for(lines.size());
            }
            const std::size_t needed = rest.size() + (line_has_words ? 1 : 0);
            if (line.size() + needed <= width_) {
                if (line_has_words) {
                    line += ' ';
                }
                line.append(rest);
                line_has_words = true;
                rest = {};
            } else if (line_has_words) {
                lines.push_back(line);
                line_has_words = false;
            } else {
                const std::size_t room = break_long_words_ ? width_ - line.size() : rest.size();
                line.append(rest.substr(0, room));
                rest.remove_prefix(room);
                lines.push_back(line);
            }
        }
    }
    if (line_has_words) {
        lines.push_back(line);
    }
    return lines;
}

std::string Wrapper::fill(std::string_view text) const {
    std::vector<std::string> paragraphs;
    std::string paragraph;
    for (const std::string& line : split(text, '\n')) {
        if (!trim(line).empty()) {
            paragraph.append(line).append(" ");
        } else if (!paragraph.empty()) {
            paragraphs.push_back(join(wrap(paragraph), "\n"));
            paragraph.clear();
        }
    }
    if (!paragraph.empty()) {
        paragraphs.push_back(join(wrap(paragraph), "\n"));
    }
    return join(paragraphs, "\n\n");
}

std::string Wrapper::shorten(std::string_view text, std::size_t width,
                             std::string_view placeholder) {
    std::string collapsed = collapse_whitespace(text);
    if (collapsed.size() <= width) {
        return collapsed;
    }
    if (placeholder.size() >= width) {
        throw std::invalid_argument("Wrapper::shorten: the placeholder does not fit");
    }
    Wrapper wrapper(width - placeholder.size());
    wrapper.set_break_long_words(false);
    const std::vector<std::string> lines = wrapper.wrap(collapsed);
    const std::string first = lines.front();
    if (first.size() > wrapper.width()) {
        return std::string(trim_left(placeholder));
    }
    return std::string(first).append(placeholder);
}

}  // namespace strkit
