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

#include "algorithm_spec.h"
#include "ring_members.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return 2 * static_cast<uint32_t>(world_size - 1); }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size;
  const ChunkLayout chunks(in.count, n);
  // Member i's part is chunk i+1: a plain ring reduce-scatter leaves member i with part i, and the
  // all-reduce's convention is that rank r ends its reduce-scatter holding chunk r+1.
  const PartOf part = [chunks](int i) { return chunk_range(chunks, i + 1); };
  const std::vector<int> members = all_ranks(n);
  add_ring_reduce_scatter(schedule, 0, members, in.rank, part);
  add_ring_allgather(schedule, static_cast<size_t>(n - 1), members, in.rank, part);
  return schedule;
}

}  // namespace

const AlgorithmSpec& ring_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "ring", "large messages: bandwidth-optimal, 2(N-1) steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
