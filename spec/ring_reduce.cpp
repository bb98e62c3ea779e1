// Ring reduce: a ring reduce-scatter (rank r ends with the reduced chunk r), then every rank
// sends its chunk straight to the root in one step.
//
//   steps          N (N-1 ring steps, one gather step)
//   bytes per rank every chunk except its own, plus its own to the root when it is not the root:
//                  non-root (N-1)/N + 1/N = 1 x total, root (N-1)/N x total (N dividing the
//                  count); the root receives (N-1)/N x total in the last step, at once
//   wins           large messages: no rank sends more than the data once, and no rank receives
//                  more than 2(N-1)/N x data; latency N steps

#include "algorithm_spec.h"
#include "ring_members.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return world_size > 1 ? static_cast<uint32_t>(world_size) : 0; }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size, r = in.rank;
  if (n == 1) return schedule;
  const ChunkLayout chunks(in.count, n);
  add_ring_reduce_scatter(schedule, 0, all_ranks(n), r, chunk_parts(chunks));
  const size_t gather = static_cast<size_t>(n - 1);
  if (r != in.root) {
    schedule.send(gather, in.root, chunk_range(chunks, r));
  } else {
    for (int peer = 0; peer < n; ++peer)
      if (peer != r) schedule.recv(gather, peer, chunk_range(chunks, peer), Arrival::Copy);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& ring_reduce() {
  static const AlgorithmSpec spec{"reduce", "ring",
                                  "large messages: reduce-scatter + gather, 1 x data per rank", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
