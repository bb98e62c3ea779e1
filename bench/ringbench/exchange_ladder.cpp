#include "exchange_ladder.h"

#include <algorithm>
#include <cstddef>

#include "link_test.h"
#include "statistics/order_statistics.h"
#include "transport/communicator.h"

namespace ringbench {

int ladder_calls(uint64_t chunk_bytes, int back_to_back) {
  const uint64_t per_call = chunk_bytes * static_cast<uint64_t>(std::max(1, back_to_back));
  if (per_call == 0) return kLadderCalls;
  return static_cast<int>(std::clamp<uint64_t>(kLadderBudgetBytes / per_call, kLadderMinCalls, kLadderCalls));
}

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
    const int calls = ladder_calls(chunk, back_to_back);
    const double seconds = ring_exchange_seconds(comm, chunk, calls, back_to_back, workspace);
    points.push_back({chunk, seconds * 1e6, calls});
  }
  return points;
}

std::vector<uint64_t> reduction_ladder_chunks(uint64_t smallest_bytes, uint64_t largest_bytes, int world_size) {
  std::vector<uint64_t> chunks;
  if (world_size < 2 || largest_bytes == 0) return chunks;
  const uint64_t n = static_cast<uint64_t>(world_size);
  const uint64_t top = std::min(largest_bytes, kReductionLadderCapBytes) / 4 * 4;  // whole float32s
  uint64_t chunk = kReductionLadderFloorBytes;  // a power of two, so every step is whole float32s
  while (chunk < (smallest_bytes + n - 1) / n) chunk *= 2;
  for (; chunk < top; chunk *= 4) chunks.push_back(chunk);
  if (top > 0) chunks.push_back(top);
  return chunks;
}

std::vector<ExchangePoint> measure_reduction_ladder(Communicator& comm, uint64_t smallest_bytes, uint64_t largest_bytes) {
  std::vector<ExchangePoint> points;
  const std::vector<uint64_t> chunks = reduction_ladder_chunks(smallest_bytes, largest_bytes, comm.size());
  if (chunks.empty()) return points;
  // Zeros: a sum of zeros never reaches denormals, whose arithmetic is slow on x86.
  std::vector<std::byte> workspace(2 * static_cast<size_t>(chunks.back()));
  const int back_to_back = 2 * (comm.size() - 1);
  for (const uint64_t chunk : chunks) {
    // Call by call in turns, so that a drift of the machine (at 16 MiB on the 2-core VM, two
    // plain exchanges a second apart differed by 14%) falls on both alike.
    std::vector<double> plain_us, reducing_us;
    const int calls = ladder_calls(chunk, back_to_back);
    for (int call = 0; call < calls; ++call) {
      plain_us.push_back(ring_exchange_seconds(comm, chunk, 1, back_to_back, workspace, ExchangeWork::copy) * 1e6);
      reducing_us.push_back(ring_exchange_seconds(comm, chunk, 1, back_to_back, workspace, ExchangeWork::reduce) * 1e6);
    }
    points.push_back({chunk, stats::median(plain_us), calls, false});
    points.push_back({chunk, stats::median(reducing_us), calls, true});
  }
  return points;
}

}  // namespace ringbench
