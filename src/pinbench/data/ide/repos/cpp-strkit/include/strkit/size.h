#ifndef STRKIT_SIZE_H
#define STRKIT_SIZE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace strkit {

/**
 * Formats a byte count for people: 1536 gives "1.5 KiB" (binary units) or "1.5 kB"
 * (decimal units). Counts below one kilobyte are written exactly ("512 B").
 *
 * @param bytes the number of bytes
 * @param precision digits after the decimal point, 0 to 6
 * @param binary whether to use powers of 1024 (KiB, MiB) rather than of 1000 (kB, MB)
 * @return the formatted size
 * @throws std::invalid_argument if precision is outside 0 to 6
 */
std::string format_bytes(std::uint64_t bytes, int precision = 1, bool binary = true);

/**
 * Reads a size such as "512", "10 KiB", "1.5MB" or "2 g" as a number of bytes. Units are
 * matched without regard to case: "K", "M", "G", "T" and "KiB", "MiB", ... are powers of
 * 1024, "KB", "MB", ... powers of 1000; a bare number is bytes. Fractions are rounded to the
 * nearest byte.
 *
 * @param text the size to read
 * @return the number of bytes
 * @throws std::invalid_argument if there is no number or the unit is unknown (the message
 *         suggests the closest known unit)
 * @throws std::out_of_range if the size does not fit in 64 bits
 */
std::uint64_t parse_size(std::string_view text);

}  // namespace strkit

#endif  // STRKIT_SIZE_H
