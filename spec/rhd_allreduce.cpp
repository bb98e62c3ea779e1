// Rabenseifner all-reduce: recursive-halving reduce-scatter, then recursive-doubling all-gather,
// on the largest power of two P <= N, with the R = N - P extra ranks folded in (fold.h).
//
//   steps          2 log2 P, plus 2 when N is not a power of two (fold in, hand back)
//   bytes per rank survivor: each round sends half of what the last one did, so the halving
//                    sends (P-1)/P x data and the doubling the same: 2(P-1)/P x data, exact
//                    to the chunk (block sizes follow the N-chunk layout);
//                  folding odd rank (r < 2R, odd): that, plus 1 x data handing the result back;
//                  folding even rank (r < 2R, even): 1 x data (its whole vector, once)
//   wins           medium to large messages when latency matters: the ring's bandwidth in
//                  2 log2 N steps instead of 2(N-1); non-powers of two pay up to 2 x data more
//                  on the folded pairs
//
// Each block is reduced by exactly one survivor and copied everywhere else, so all ranks end
// bit-identical.

#include "algorithm_spec.h"
#include "fold.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) {
  PowerOfTwoFold fold(world_size);
  return static_cast<uint32_t>(2 * fold.rounds() + (fold.extra > 0 ? 2 : 0));
}

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const PowerOfTwoFold fold(in.world_size);
  const ChunkLayout chunks(in.count, in.world_size);
  const Range whole{0, in.count};
  const int r = in.rank, v = fold.survivor(r);
  const size_t base = fold.extra > 0 ? 1 : 0, rounds = static_cast<size_t>(fold.rounds());
  const size_t hand_back = base + 2 * rounds;
  if (v < 0) {  // folds into r + 1, gets the result back at the end
    schedule.send(0, r + 1, whole);
    schedule.recv(hand_back, r + 1, whole, Arrival::Copy);
    return schedule;
  }
  const bool folded_into = r < 2 * fold.extra;
  if (folded_into) schedule.recv(0, r - 1, whole, Arrival::ReduceIncomingFirst);
  add_recursive_halving(schedule, base, fold, chunks, v);
  add_recursive_doubling_gather(schedule, base + rounds, fold, chunks, v);
  if (folded_into) schedule.send(hand_back, r - 1, whole);
  return schedule;
}

}  // namespace

const AlgorithmSpec& rhd_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "rhd",
                                  "medium/large messages, power-of-two N: ring's bytes in 2 log2 N steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
