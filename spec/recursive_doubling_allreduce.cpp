// Recursive-doubling all-reduce: log2 P rounds in which partners r and r ^ 2^i swap their whole
// vectors and both reduce; N not a power of two is folded onto P (fold.h).
//
//   steps          log2 P, plus 2 when N is not a power of two (fold in, hand back)
//   bytes per rank survivor: log2 P x data; folding odd rank: (log2 P + 1) x data;
//                  folding even rank: 1 x data
//   wins           tiny messages: the fewest steps of any all-reduce here (latency-optimal);
//                  loses as soon as log2 N x data costs more than the saved steps
//
// Both partners compute the same value, so the operand order is fixed: the lower group's partial
// result is always the left operand (Arrival::ReduceIncomingFirst when the partner is the lower
// one). Every rank therefore runs the same float operations and all end bit-identical.

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
  const Range whole{0, in.count};
  const int r = in.rank, v = fold.survivor(r);
  const size_t base = fold.extra > 0 ? 1 : 0, hand_back = base + static_cast<size_t>(fold.rounds());
  if (v < 0) {
    schedule.send(0, r + 1, whole);
    schedule.recv(hand_back, r + 1, whole, Arrival::Copy);
    return schedule;
  }
  const bool folded_into = r < 2 * fold.extra;
  if (folded_into) schedule.recv(0, r - 1, whole, Arrival::ReduceIncomingFirst);
  size_t tag = base;
  for (int mask = 1; mask < fold.pof2; mask *= 2, ++tag) {
    const int partner = v ^ mask;
    schedule.send(tag, fold.rank_of(partner), whole);
    schedule.recv(tag, fold.rank_of(partner), whole,
                  partner < v ? Arrival::ReduceIncomingFirst : Arrival::Reduce);
  }
  if (folded_into) schedule.send(hand_back, r - 1, whole);
  return schedule;
}

}  // namespace

const AlgorithmSpec& recursive_doubling_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "recursive-doubling",
                                  "tiny messages: fewest steps (log2 N), latency-optimal", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
