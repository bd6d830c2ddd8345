#ifndef STRKIT_UNICODE_TABLES_H
#define STRKIT_UNICODE_TABLES_H

namespace strkit {
namespace detail {

/**
 * Looks up the ASCII spelling of a Latin letter outside ASCII (U+00C0 to U+017F). The table
 * behind it is written by tools/gen_tables.py.
 *
 * @param code a Unicode code point
 * @return its ASCII letters ("e" for U+00E9, "ss" for U+00DF), or nullptr when the table has
 *         no entry for it
 */
const char* ascii_fold(char32_t code);

}  // namespace detail
}  // namespace strkit

#endif  // STRKIT_UNICODE_TABLES_H
