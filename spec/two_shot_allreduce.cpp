// Two-shot all-reduce: a direct reduce-scatter, then a direct all-gather. In step 0 every rank
// sends chunk j of its vector straight to rank j and reduces the N-1 copies of its own chunk r
// that arrive; in step 1 it sends the finished chunk r straight to every other rank. The name is
// the one ML-infrastructure users know from TensorRT-LLM's NVLink all-reduce strategies (its
// "one-shot" is naive here); the split is Rabenseifner's reduce-scatter + all-gather, with each
// half done in one round of direct sends instead of log2 N or N-1 rounds.
//
//   steps          2 (each one exchange with every peer at once, so it cannot deadlock)
//   bytes per rank 2(N-1) chunk sends = 2(N-1)/N x data when N divides the count (the bound,
//                  the ring's bytes)
//   reduced        N-1 chunks per rank, (N-1)/N x data
//   wins           mid-size messages on a few ranks: the ring's bytes in 2 steps instead of
//                  2(N-1), where naive's 1 step pays (N-1) x data; every rank talks to N-1
//                  peers at once, so it does not scale to many ranks
//
// Each final chunk is computed once, by its owner, and copied to the others, so every rank ends
// bit-identical (the owner reduces the copies in the order they arrive).

#include "algorithm_spec.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return world_size > 1 ? 2 : 0; }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const ChunkLayout chunks(in.count, in.world_size);
  const Range mine = chunk_range(chunks, in.rank);
  for (int peer = 0; peer < in.world_size; ++peer) {
    if (peer == in.rank) continue;
    schedule.send(0, peer, chunk_range(chunks, peer));
    schedule.recv(0, peer, mine, Arrival::Reduce);
    schedule.send(1, peer, mine);
    schedule.recv(1, peer, chunk_range(chunks, peer), Arrival::Copy);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& two_shot_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "two-shot",
                                  "mid sizes on few ranks: the ring's bytes in 2 steps, N-1 peers at once", steps,
                                  plan};
  return spec;
}

}  // namespace ringbench::spec
