#include "strkit/size.h"

#include <cctype>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "strkit/distance.h"
#include "strkit/trim.h"

namespace strkit {
namespace {

struct Unit {
    const char* name;
    std::uint64_t factor;
};

constexpr std::uint64_t kKibi = 1024;
constexpr std::uint64_t kKilo = 1000;

const Unit kUnits[] = {
    {"B", 1},
    {"K", kKibi},
    {"KiB", kKibi},
    {"KB", kKilo},
    {"M", kKibi * kKibi},
    {"MiB", kKibi * kKibi},
    {"MB", kKilo * kKilo},
    {"G", kKibi * kKibi * kKibi},
    {"GiB", kKibi * kKibi * kKibi},
    {"GB", kKilo * kKilo * kKilo},
    {"T", kKibi * kKibi * kKibi * kKibi},
    {"TiB", kKibi * kKibi * kKibi * kKibi},
    {"TB", kKilo * kKilo * kKilo * kKilo},
};

const char* const kBinaryNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
const char* const kDecimalNames[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
constexpr std::size_t kNameCount = 7;

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i]))) {
            return false;
        }
    }
    return true;
}

const Unit* find_unit(std::string name) {
    if (name.empty()) {
        return &kUnits[0];
    }
    for (const Unit& unit : kUnits) {
        if (equal_ignoring_case(name, unit.name)) {
            return &unit;
        }
    }
    return nullptr;
}

std::vector<std::string> unit_names() {
    std::vector<std::string> names;
    for (const Unit& unit : kUnits) {
        names.emplace_back(unit.name);
    }
    return names;
}

}  // namespace

/**
 * Formats a byte count with the largest unit that keeps the number at least 1.
 *
 * @param bytes the number of bytes
 * @param precision digits after the decimal point
 * @param binary whether the units are powers of 1024 rather than of 1000
 * @return the size as a number and a unit, such as "1.5 KiB"
 * @throws std::invalid_argument if precision is outside 0 to 6
 */
std::string format_bytes(std::uint64_t bytes, int precision, bool binary) {
    if (precision < 0 || precision > 6) {
        throw std::invalid_argument("format_bytes: precision must be between 0 and 6");
    }
    const double base = binary ? 1024.0 : 1000.0;
    const char* const* names = binary ? kBinaryNames : kDecimalNames;
    auto value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= base && unit + 1 < kNameCount) {
        value /= base;
        ++unit;
    }
    if (unit == 0) {
        return std::to_string(bytes) + " B";
    }
    std::ostringstream out;
    out << std::fixed << std::setprecision(precision) << value << ' ' << names[unit];
    return out.str();
}

std::uint64_t parse_size(std::string_view text) {
    const std::string_view input = trim(text);
    std::size_t length = 0;
    while (length < input.size() &&
           (std::isdigit(static_cast<unsigned char>(input[length])) != 0 || input[length] == '.')) {
        ++length;
    }
    if (length == 0) {
        throw std::invalid_argument("parse_size: no number in '" + std::string(text) + "'");
    }
    const std::string number(input.substr(0, length));
    std::size_t used = 0;
    double value = 0.0;
    try {
        value = std::stod(number, &used);
    } catch (const std::invalid_argument&) {
        used = 0;
    }
    if (used != number.size()) {
        throw std::invalid_argument("parse_size: '" + number + "' is not a number");
    }
    const std::string unit_text(trim(input.substr(length)));
    const Unit* unit = find_unit(unit_text);
    if (unit == nullptr) {
        std::string message = "parse_size: unknown unit '" + unit_text + "'";
        if (const std::optional<std::string> near = closest_match(unit_text, unit_names(), 1)) {
            message += " (did you mean '" + *near + "'?)";
        }
        throw std::invalid_argument(message);
    }
    const double bytes = std::round(value * static_cast<double>(unit->factor));
    if (bytes >= 18446744073709551616.0) {
        throw std::out_of_range("parse_size: '" + std::string(text) + "' does not fit in 64 bits");
    }
    return static_cast<std::uint64_t>(bytes);
}

}  // namespace strkit
