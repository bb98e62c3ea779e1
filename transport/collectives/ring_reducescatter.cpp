// Ring reduce-scatter: the first half of the ring all-reduce, shifted by one chunk so that rank r
// ends with chunk r (the reduce-scatter convention) rather than chunk r+1.
//
//   steps          N-1
//   bytes per rank every chunk except its own (chunk r), i.e. (N-1)/N x total when N divides
//                  the count (the bound)
//   wins           large messages: bandwidth-optimal; latency grows as N-1 hops
//
// Each piece is reduced as it arrives (RecvSpec::on_arrival), overlapping the next receive.

#include "ring_reducescatter.h"

#include "ring_members.h"

namespace ringbench {
namespace {

class RingReduceScatter final : public ScheduledAlgorithm {
 public:
  Collective collective() const override { return Collective::ReduceScatter; }
  std::string_view name() const override { return "ring"; }
  std::string_view when_it_wins() const override { return "large messages: bandwidth-optimal, N-1 steps"; }
  uint32_t steps(int world_size) const override { return static_cast<uint32_t>(world_size - 1); }

  Schedule plan(const PlanInput& in) const override {
    Schedule schedule;
    add_ring_reduce_scatter(schedule, 0, all_ranks(in.world_size), in.rank,
                            chunk_parts(ChunkLayout(in.count, in.world_size)));
    return schedule;
  }
};

}  // namespace

const Algorithm& ring_reducescatter() {
  static const RingReduceScatter algorithm;
  return algorithm;
}

}  // namespace ringbench
