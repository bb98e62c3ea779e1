// Naive all-reduce: every rank sends its whole vector to every other rank and reduces locally.
// The foil that shows what ring saves.
//
//   steps          1 (every send and receive in one exchange, so it cannot deadlock)
//   bytes per rank (N-1) x data, every rank the same
//   wins           never on bandwidth (N/2 times the ring's bytes); at best ties for tiny
//                  messages on few ranks, where one step of latency beats 2(N-1)
//
// Every incoming vector is reduced in (N-1 x data per rank). The transport lands them in scratch
// first and reduces in rank order, so that every rank runs the same float operations.

#include "algorithm_spec.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return world_size > 1 ? 1 : 0; }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const Range whole{0, in.count};
  for (int peer = 0; peer < in.world_size; ++peer) {
    if (peer == in.rank) continue;
    schedule.send(0, peer, whole);
    schedule.recv(0, peer, whole, Arrival::Reduce);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& naive_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "naive",
                                  "never on bandwidth; the foil: one step, but (N-1) x data per rank", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
