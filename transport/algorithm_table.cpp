#include "algorithm_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "algorithm.h"
#include "spec/segments.h"

namespace ringbench {
namespace {

std::string bytes_text(double bytes) {
  if (bytes == std::floor(bytes)) return fmt::format("{}", static_cast<uint64_t>(bytes));
  return fmt::format("{:.2f}", bytes);
}

}  // namespace

std::string algorithm_table_markdown(int world_size, uint64_t bytes) {
  const size_t element_bytes = 4;  // float32
  const size_t count = bytes / element_bytes;
  std::string table = fmt::format(
      "Payload bytes sent per rank for one call at N = {} on a {}-byte float32 buffer ({} elements; "
      "hierarchical on one host), from the formulas the byte check uses. Steps are for one pipeline "
      "segment: tree and pipelined-chain add one step per further segment (ringbench --segment; {} KiB "
      "when a caller names none), and the ring all-reduce cut in rounds takes 2(N-1) steps per round, "
      "for the same bytes.\n\n",
      world_size, count * element_bytes, count, spec::kDefaultSegmentBytes / 1024);
  table += "| collective | algorithm | steps | bytes sent per rank | lower bound | when it wins |\n";
  table += "|---|---|---:|---:|---:|---|\n";
  for (const Algorithm* a : all_algorithms()) {
    uint64_t most = 0, least = UINT64_MAX;
    for (int rank = 0; rank < world_size; ++rank) {
      const uint64_t sent = a->payload_bytes_sent(rank, world_size, count, element_bytes, 0);
      most = std::max(most, sent);
      least = std::min(least, sent);
    }
    const std::string sent = most == least ? fmt::format("{}", most) : fmt::format("{} to {}", least, most);
    table += fmt::format("| {} | {} | {} | {} | {} | {} |\n", to_string(a->collective()), a->name(),
                         a->steps(world_size), sent,
                         bytes_text(lower_bound_bytes(a->collective(), world_size, count * element_bytes)),
                         a->when_it_wins());
  }
  return table;
}

}  // namespace ringbench
