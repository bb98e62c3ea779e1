// Ring all-reduce: a reduce-scatter followed by an all-gather around the ring r -> r+1.
//
//   steps          2(N-1)
//   bytes per rank 2(N-1) chunk sends = 2(N-1)/N x data when N divides the count (the bound)
//   reduced        N-1 chunks per rank, (N-1)/N x data
//   wins           large messages: bandwidth-optimal for any N; latency grows as 2(N-1) hops
//
// The buffer is cut into N chunks (ChunkLayout). Reduce-scatter step s: rank r sends chunk
// r-s to r+1 and receives chunk r-s-1 from r-1, reducing it into its own copy. After N-1 steps
// rank r holds the complete chunk r+1. All-gather step s: rank r sends chunk r+1-s and receives
// chunk r-s straight into place. The chunk a step sends is always the one the step before
// produced, which is what lets the transport run the whole plan as one stream. Each final chunk
// is computed once, by one rank, and copied to the others, so every rank ends bit-identical.
//
// Rounds (NCCL's chunk loop). With a segment (PlanInput::segment_bytes) smaller than a chunk, the
// buffer is cut into R = ceil(chunk / segment) slices and the plan above runs on each in turn, R x
// 2(N-1) steps, each step moving at most a segment. Why: a step forwards what the step before
// received, so in one round a piece is forwarded a whole chunk after it arrived; once the host's
// buffers outgrow its last-level cache the piece is back in memory by then, and the kernel copies
// it into the socket from memory. In rounds a piece is forwarded a segment after it arrived,
// from the core's own cache (2-vCPU AMD EPYC VM, N = 2, 16-64 MiB: rounds of 512 KiB ran the ring
// 1.04-1.32x faster, level with the pipelined tree; docs/performance.md). Slices but the last hold
// a multiple of N elements, so every rank sends exactly the bytes of one round. Without a
// segment, or with one at least a chunk, one round: the plan as it always was.

#include <algorithm>

#include "algorithm_spec.h"
#include "ring_members.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return 2 * static_cast<uint32_t>(world_size - 1); }

// One round: the ring all-reduce of `count` elements from element `first`, its steps from `first_tag`.
void add_round(Schedule& schedule, size_t first_tag, const std::vector<int>& members, int rank, size_t first,
               size_t count) {
  const int n = static_cast<int>(members.size());
  const ChunkLayout chunks(count, n);
  // Member i's part is chunk i+1: a plain ring reduce-scatter leaves member i with part i, and the
  // all-reduce's convention is that rank r ends its reduce-scatter holding chunk r+1.
  const PartOf part = [chunks, first](int i) {
    const Range chunk = chunk_range(chunks, i + 1);
    return Range{first + chunk.offset, chunk.count};
  };
  add_ring_reduce_scatter(schedule, first_tag, members, rank, part);
  add_ring_allgather(schedule, first_tag + static_cast<size_t>(n - 1), members, rank, part);
}

// The elements of each round but the last: a multiple of N, at most a segment per chunk; the whole
// count (one round) without a segment smaller than a chunk.
size_t round_elements(const PlanInput& in) {
  const auto n = static_cast<size_t>(in.world_size);
  const size_t chunk = (in.count + n - 1) / n;
  const size_t segment = in.segment_bytes / std::max<size_t>(1, in.element_bytes);
  if (n < 2 || segment == 0 || chunk <= segment) return in.count;
  const size_t rounds = (chunk + segment - 1) / segment;
  const size_t per_round = in.count / rounds / n * n;
  return per_round == 0 ? in.count : per_round;
}

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const std::vector<int> members = all_ranks(in.world_size);
  const size_t per_round = round_elements(in);
  const size_t steps_per_round = 2 * static_cast<size_t>(in.world_size - 1);
  size_t first = 0, tag = 0;
  do {
    // The last round takes the rest, so no round is left with a few elements.
    const size_t rest = in.count - first;
    const size_t count = rest < 2 * per_round ? rest : per_round;
    add_round(schedule, tag, members, in.rank, first, count);
    first += count;
    tag += steps_per_round;
  } while (first < in.count);
  return schedule;
}

}  // namespace

const AlgorithmSpec& ring_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "ring", "large messages: bandwidth-optimal, 2(N-1) steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
