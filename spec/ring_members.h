#pragma once
// All ranks 0..N-1 as ring members in rank order, and the N-chunk layout as the ring's parts:
// the ring that the plain ring algorithms run on.

#include <numeric>
#include <vector>

#include "ring_phases.h"

namespace ringbench::spec {

inline std::vector<int> all_ranks(int world_size) {
  std::vector<int> ranks(static_cast<size_t>(world_size));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

inline PartOf chunk_parts(const ChunkLayout& chunks) {
  return [chunks](int i) { return chunk_range(chunks, i); };
}

}  // namespace ringbench::spec
