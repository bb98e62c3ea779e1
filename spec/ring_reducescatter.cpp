// Ring reduce-scatter: the first half of the ring all-reduce, shifted by one chunk so that rank r
// ends with chunk r (the reduce-scatter convention) rather than chunk r+1.
//
//   steps          N-1
//   bytes per rank every chunk except its own (chunk r), i.e. (N-1)/N x total when N divides
//                  the count (the bound)
//   wins           large messages: bandwidth-optimal; latency grows as N-1 hops
//
// Each piece is reduced as it arrives (RecvSpec::on_arrival), overlapping the next receive.

#include "algorithm_spec.h"
#include "ring_members.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return static_cast<uint32_t>(world_size - 1); }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  add_ring_reduce_scatter(schedule, 0, all_ranks(in.world_size), in.rank,
                          chunk_parts(ChunkLayout(in.count, in.world_size)));
  return schedule;
}

}  // namespace

const AlgorithmSpec& ring_reducescatter() {
  static const AlgorithmSpec spec{"reducescatter", "ring", "large messages: bandwidth-optimal, N-1 steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
