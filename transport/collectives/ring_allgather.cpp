// Ring all-gather: N-1 steps around the ring r -> r+1, each forwarding the chunk received in the
// step before.
//
//   steps          N-1
//   bytes per rank every chunk except the right neighbour's (chunk r+1), i.e. (N-1)/N x total
//                  when N divides the count (the bound)
//   wins           large messages: bandwidth-optimal; latency grows as N-1 hops

#include "ring_allgather.h"

#include "ring_members.h"

namespace ringbench {
namespace {

class RingAllGather final : public ScheduledAlgorithm {
 public:
  Collective collective() const override { return Collective::AllGather; }
  std::string_view name() const override { return "ring"; }
  std::string_view when_it_wins() const override { return "large messages: bandwidth-optimal, N-1 steps"; }
  uint32_t steps(int world_size) const override { return static_cast<uint32_t>(world_size - 1); }

  Schedule plan(const PlanInput& in) const override {
    Schedule schedule;
    add_ring_allgather(schedule, 0, all_ranks(in.world_size), in.rank,
                       chunk_parts(ChunkLayout(in.count, in.world_size)));
    return schedule;
  }
};

}  // namespace

const Algorithm& ring_allgather() {
  static const RingAllGather algorithm;
  return algorithm;
}

}  // namespace ringbench
