// Recursive-halving reduce-scatter (the first half of Rabenseifner's all-reduce): log2 P rounds,
// each sending half of the data still in play; N not a power of two is folded onto P (fold.h).
//
//   steps          log2 P, plus 2 when N is not a power of two (fold in, hand back)
//   bytes per rank survivor: (P-1) blocks' worth of the halving, = (N-1)/N x total when N = P
//                    divides the count; folding odd rank: that, plus its partner's chunk;
//                  folding even rank: 1 x total (its whole vector, once)
//   wins           small and medium messages: log2 N steps instead of N-1 at the same bytes
//                  when N is a power of two

#include "algorithm_spec.h"
#include "fold.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) {
  PowerOfTwoFold fold(world_size);
  return static_cast<uint32_t>(fold.rounds() + (fold.extra > 0 ? 2 : 0));
}

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const PowerOfTwoFold fold(in.world_size);
  const ChunkLayout chunks(in.count, in.world_size);
  const int r = in.rank, v = fold.survivor(r);
  const size_t base = fold.extra > 0 ? 1 : 0, hand_back = base + static_cast<size_t>(fold.rounds());
  if (v < 0) {
    schedule.send(0, r + 1, {0, in.count});
    schedule.recv(hand_back, r + 1, chunk_range(chunks, r), Arrival::Copy);
    return schedule;
  }
  const bool folded_into = r < 2 * fold.extra;
  if (folded_into) schedule.recv(0, r - 1, {0, in.count}, Arrival::ReduceIncomingFirst);
  add_recursive_halving(schedule, base, fold, chunks, v);
  if (folded_into) schedule.send(hand_back, r - 1, chunk_range(chunks, r - 1));
  return schedule;
}

}  // namespace

const AlgorithmSpec& rhd_reducescatter() {
  static const AlgorithmSpec spec{"reducescatter", "rhd",
                                  "small/medium messages, power-of-two N: log2 N steps at the ring's bytes", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
