#include "sizes.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "model/error.h"

namespace ringbench::topomodel {

using model::InputError;

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
    throw InputError(fmt::format("{}: '{}' is not a size (e.g. 4096, 64M, 1G = 1e9 bytes, 1Gi = 2^30)", flag, text));
  }
  const double bytes = number * scale;
  if (bytes < 1) throw InputError(fmt::format("{} must be at least 1 byte, got '{}'", flag, text));
  if (bytes > 1e18) throw InputError(fmt::format("{}: '{}' is too large", flag, text));
  return static_cast<uint64_t>(std::llround(bytes));
}

double parse_count(std::string_view text, std::string_view flag) {
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(value)) {
    throw InputError(fmt::format("{}: '{}' is not a number", flag, text));
  }
  if (value <= 0) throw InputError(fmt::format("{} must be > 0, got '{}'", flag, text));
  return value;
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
