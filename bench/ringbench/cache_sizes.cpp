#include "cache_sizes.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <string>

namespace ringbench {

uint64_t parse_cache_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return 0;
  const std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  if (unit.empty()) return value;
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  return 0;
}

CacheSizes read_cache_sizes(const std::filesystem::path& cache_dir) {
  CacheSizes sizes;
  int last_level = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, error)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    std::ifstream level_file(entry.path() / "level"), size_file(entry.path() / "size");
    int level = 0;
    std::string size_text;
    if (!(level_file >> level) || !(size_file >> size_text)) continue;
    const uint64_t bytes = parse_cache_size(size_text);
    if (level == 2) sizes.core_bytes = bytes;
    if (level > last_level) last_level = level, sizes.last_level_bytes = bytes;
  }
  return sizes;
}

}  // namespace ringbench
