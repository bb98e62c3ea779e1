// Pairwise all-to-all: in step s (1..N-1) rank r sends its block for rank r+s and receives
// rank r-s's block for it, so every pair of ranks talks exactly once.
//
//   steps          N-1
//   bytes per rank N-1 blocks of floor(count/N) elements: (N-1)/N x total when N divides the
//                  count (the bound); the count % N trailing elements are not part of the
//                  exchange (collective.h)
//   wins           every size: each byte crosses the network once, N-1 steps, one peer at a
//                  time so no receiver is flooded
//
// In place, a received block would overwrite a block still to be sent in the same or a later step
// (block r - s arrives in step s and leaves in step N - s), so the transport holds those
// floor(N / 2) blocks in scratch until they are sent (transport/collectives/schedule.cpp).

#include "algorithm_spec.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return static_cast<uint32_t>(world_size - 1); }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size, r = in.rank;
  const size_t block = in.count / static_cast<size_t>(n);
  auto block_of = [&](int j) { return Range{static_cast<size_t>(j) * block, block}; };
  for (int s = 1; s < n; ++s) {
    const int to = (r + s) % n, from = (r - s + n) % n;
    schedule.send(static_cast<size_t>(s - 1), to, block_of(to));
    schedule.recv(static_cast<size_t>(s - 1), from, block_of(from), Arrival::Copy);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& pairwise_alltoall() {
  static const AlgorithmSpec spec{"alltoall", "pairwise",
                                  "every size: each byte crosses once, one peer per step", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
