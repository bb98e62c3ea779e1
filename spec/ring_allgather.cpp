// Ring all-gather: N-1 steps around the ring r -> r+1, each forwarding the chunk received in the
// step before.
//
//   steps          N-1
//   bytes per rank every chunk except the right neighbour's (chunk r+1), i.e. (N-1)/N x total
//                  when N divides the count (the bound)
//   wins           large messages: bandwidth-optimal; latency grows as N-1 hops

#include "algorithm_spec.h"
#include "ring_members.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return static_cast<uint32_t>(world_size - 1); }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  add_ring_allgather(schedule, 0, all_ranks(in.world_size), in.rank,
                     chunk_parts(ChunkLayout(in.count, in.world_size)));
  return schedule;
}

}  // namespace

const AlgorithmSpec& ring_allgather() {
  static const AlgorithmSpec spec{"allgather", "ring", "large messages: bandwidth-optimal, N-1 steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
