#include "sizes.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "model/error.h"
#include "model/input_limits.h"

namespace ringbench::topomodel {

using model::InputError;

namespace {

// The user's text for an error message, control characters as \xNN so the message stays one line.
std::string shown(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    out += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, ch);
  }
  return out;
}

}  // namespace

uint64_t parse_bytes(std::string_view text, std::string_view flag) {
  static const std::array<std::pair<std::string_view, double>, 7> kSuffixes = {{
      {"Ki", 1024.0}, {"Mi", 1024.0 * 1024}, {"Gi", 1024.0 * 1024 * 1024}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
  }};
  const std::string s(text);
  char* end = nullptr;
  const double number = std::strtod(s.c_str(), &end);
  std::string_view suffix(end, static_cast<size_t>(s.c_str() + s.size() - end));
  if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.remove_suffix(1);
  double scale = 1.0;
  bool known = suffix.empty();
  for (const auto& [name, value] : kSuffixes) {
    if (suffix == name) {
      scale = value;
      known = true;
    }
  }
  if (end == s.c_str() || !known || !std::isfinite(number)) {
    throw InputError(fmt::format("{}: '{}' is not a size (e.g. 4096, 64M, 1G = 1e9 bytes, 1Gi = 2^30)", flag, shown(text)));
  }
  const double bytes = number * scale;
  if (bytes < 1) throw InputError(fmt::format("{} must be at least 1 byte, got '{}'", flag, shown(text)));
  if (bytes > model::limits::kMaxBytes) {
    throw InputError(fmt::format("{}: '{}' is more than the limit of {:g} bytes", flag, shown(text), model::limits::kMaxBytes));
  }
  return static_cast<uint64_t>(std::llround(bytes));
}

double parse_count(std::string_view text, std::string_view flag, double max) {
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(value)) {
    throw InputError(fmt::format("{}: '{}' is not a number", flag, shown(text)));
  }
  if (value <= 0) throw InputError(fmt::format("{} must be > 0, got '{}'", flag, shown(text)));
  if (value > max) throw InputError(fmt::format("{} must be <= {:g}, got '{}'", flag, max, shown(text)));
  return value;
}

int64_t product_up_to(std::initializer_list<int> sizes, int64_t limit) {
  int64_t product = 1;
  for (const int size : sizes) {
    product *= size;
    if (product > limit) return limit + 1;
  }
  return product;
}

CLI::Validator integer_in(int64_t min, int64_t max) {
  auto check = [min, max](std::string& text) -> std::string {
    int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    // No leading zeros: CLI11 would then read "010" as octal 8 and fail on "08".
    const size_t digits = text.starts_with('-') ? 1 : 0;
    const bool leading_zero = text.size() > digits + 1 && text[digits] == '0';
    if (error != std::errc() || stop != end || leading_zero || value < min || value > max) {
      return fmt::format("must be an integer from {} to {}, got '{}'", min, max, shown(text));
    }
    return "";
  };
  return CLI::Validator(check, "");
}

CLI::Validator number_in(double min, double max, bool above_min) {
  auto check = [min, max, above_min](std::string& text) -> std::string {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const bool parsed = !text.empty() && end == text.c_str() + text.size() && std::isfinite(value);
    if (!parsed || (above_min ? !(value > min) : !(value >= min)) || !(value <= max)) {
      return fmt::format("must be a number {} {:g} and <= {:g}, got '{}'", above_min ? ">" : ">=", min, max, shown(text));
    }
    return "";
  };
  return CLI::Validator(check, "");
}

std::string human_bytes(double bytes) {
  static const std::array<const char*, 5> kUnits = {"B", "kB", "MB", "GB", "TB"};
  size_t unit = 0;
  while (bytes >= 1000.0 && unit + 1 < kUnits.size()) {
    bytes /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.4g} {}", bytes, kUnits[unit]);
}

}  // namespace ringbench::topomodel
