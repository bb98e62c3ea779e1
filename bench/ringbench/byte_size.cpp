#include "byte_size.h"

#include <cctype>
#include <charconv>

namespace ringbench {

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  std::string_view suffix(end, static_cast<size_t>(text.data() + text.size() - end));
  if (suffix == "B") suffix = "";
  if (suffix.size() == 2 && (suffix[1] == 'B' || suffix[1] == 'b') ) suffix = suffix.substr(0, 1);
  if (suffix.size() == 3 && suffix.substr(1) == "iB") suffix = suffix.substr(0, 1);
  int shift = 0;
  if (suffix.empty()) shift = 0;
  else if (suffix.size() == 1) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<std::pair<uint64_t, uint64_t>> parse_size_range(std::string_view text, uint64_t default_min) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    auto max = parse_byte_size(text);
    if (!max) return std::nullopt;
    return std::pair{std::min(default_min, *max), *max};
  }
  auto min = parse_byte_size(text.substr(0, colon));
  auto max = parse_byte_size(text.substr(colon + 1));
  if (!min || !max) return std::nullopt;
  return std::pair{*min, *max};
}

std::string format_byte_size(uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + "G";
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= (1ull << 10) && bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

}  // namespace ringbench
