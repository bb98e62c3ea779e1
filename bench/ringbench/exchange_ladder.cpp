#include "exchange_ladder.h"

#include <algorithm>
#include <cstddef>

#include "link_test.h"
#include "transport/communicator.h"

namespace ringbench {

std::vector<uint64_t> ladder_chunks(uint64_t largest_bytes, int world_size) {
  std::vector<uint64_t> chunks;
  if (world_size < 2 || largest_bytes == 0) return chunks;
  const uint64_t n = static_cast<uint64_t>(world_size);
  const uint64_t row_chunk = (largest_bytes + n - 1) / n;
  const uint64_t top = std::min(largest_bytes, kLadderCapBytes);
  for (uint64_t chunk = 2 * row_chunk; chunk < top; chunk *= 2) chunks.push_back(chunk);
  if (top > row_chunk) chunks.push_back(top);
  return chunks;
}

std::vector<ExchangePoint> measure_exchange_ladder(Communicator& comm, uint64_t largest_bytes) {
  std::vector<ExchangePoint> points;
  const std::vector<uint64_t> chunks = ladder_chunks(largest_bytes, comm.size());
  if (chunks.empty()) return points;
  // Two chunk slots of the largest: ring_exchange_seconds carves its slots from them (the bytes
  // moved are the same as with N slots), so the ladder adds 2 x 16 MiB at most.
  std::vector<std::byte> workspace(2 * static_cast<size_t>(chunks.back()));
  const int back_to_back = 2 * (comm.size() - 1);
  for (const uint64_t chunk : chunks) {
    const double seconds = ring_exchange_seconds(comm, chunk, kLadderCalls, back_to_back, workspace);
    points.push_back({chunk, seconds * 1e6, kLadderCalls});
  }
  return points;
}

}  // namespace ringbench
