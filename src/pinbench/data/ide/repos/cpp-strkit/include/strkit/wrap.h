#ifndef STRKIT_WRAP_H
#define STRKIT_WRAP_H

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strkit {

/**
 * Word-wraps text to a maximum line width, like Python's textwrap: words are kept whole
 * where they fit, whitespace between them becomes one space, and every line can start with
 * an indent (the first line with its own).
 *
 * @code
 * strkit::Wrapper wrapper(20);
 * wrapper.set_indent("  ");
 * std::string text = wrapper.fill("The quick brown fox jumps over the lazy dog.");
 * @endcode
 */
class Wrapper {
public:
    /**
     * Creates a wrapper for lines of at most width characters.
     *
     * @param width the maximum line length, indents included
     * @throws std::invalid_argument if width is zero
     */
    explicit Wrapper(std::size_t width);

    /**
     * Sets the indent of the first line of each paragraph.
     *
     * @param indent the prefix of first lines
     * @return this wrapper
     */
    Wrapper& set_initial_indent(std::string indent) {
        initial_indent_ = indent;
        return *this;
    }

    /**
     * Sets the indent of every line after the first.
     *
     * @param indent the prefix of later lines
     * @return this wrapper
     */
    Wrapper& set_indent(std::string indent) {
        indent_ = std::move(indent);
        return *this;
    }

    /**
     * Chooses what happens to a word longer than a line: broken across lines (the default)
     * or left whole on a line of its own.
     *
     * @param enabled whether long words are broken
     * @return this wrapper
     */
    Wrapper& set_break_long_words(bool enabled) {
        break_long_words_ = enabled;
        return *this;
    }

    /**
     * Tells the maximum line length.
     *
     * @return the width given to the constructor
     */
    std::size_t width() const { return width_; }

    /**
     * Wraps one paragraph into lines.
     *
     * @param text the paragraph; its line breaks count as spaces
     * @return the lines, without newlines; none when text has no words
     * @throws std::invalid_argument if an indent leaves no room for text
     */
    std::vector<std::string> wrap(std::string_view text) const;

    /**
     * Wraps text into a single string. Paragraphs (separated by blank lines) are wrapped
     * separately and kept apart by one blank line.
     *
     * @param text the text to wrap
     * @return the wrapped lines joined by newlines, with no newline at the end
     */
    std::string fill(std::string_view text) const;

    /**
     * Collapses whitespace and cuts text to fit in width characters, ending with a
     * placeholder after the last whole word that fits.
     *
     * @param text the text to shorten
     * @param width the maximum length of the result
     * @param placeholder what marks the cut
     * @return text itself (collapsed) when it fits, else its shortened form
     * @throws std::invalid_argument if the placeholder does not fit in width
     */
    static std::string shorten(std::string_view text, std::size_t width,
                               std::string_view placeholder = " [...]");

private:
    const std::string& indent_for(std::size_t line) const;

    std::size_t width_;
    std::string initial_indent_;
    std::string indent_;
    bool break_long_words_ = true;
};

}  // namespace strkit

#endif  // STRKIT_WRAP_H
