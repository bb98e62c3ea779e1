#pragma once
// Sizes as users type them: "8", "4K", "16M", "1G" (binary multiples, as osu and nccl-tests use),
// and osu's message-size range "[MIN:]MAX".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ringbench {

std::optional<uint64_t> parse_byte_size(std::string_view text);
// "MAX" means [default_min, MAX]; "MIN:MAX" both. nullopt if either side does not parse.
std::optional<std::pair<uint64_t, uint64_t>> parse_size_range(std::string_view text, uint64_t default_min);
// 8 -> "8", 65536 -> "64K", 16777216 -> "16M"; exact multiples only, else plain bytes.
std::string format_byte_size(uint64_t bytes);

}  // namespace ringbench
