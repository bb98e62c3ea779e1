// Recursive-doubling all-gather: log2 P rounds in which partners swap everything they hold, so
// the data held doubles each round; N not a power of two is folded onto P (fold.h).
//
//   steps          log2 P, plus 3 when N is not a power of two (fold in, two hand-back sends)
//   bytes per rank survivor: in round k, the blocks of the 2^k virtual ranks it then holds (a
//                    block is one chunk, two for a survivor that took in a folded partner):
//                    P-1 blocks in all, which is everything but its own block only when every
//                    block is one chunk (N = P: (N-1)/N x total when N divides the count);
//                  folding odd rank: that, plus everything but its partner's chunk;
//                  folding even rank: its own chunk
//   wins           small messages: log2 N steps against the ring's N-1, same bytes at N = 2^k
//
// The folded pair's hand-back is two sends (chunks before the partner's, chunks after), so the
// partner's own chunk is not sent back to it; two frames to one peer need two steps.

#include "algorithm_spec.h"
#include "fold.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) {
  PowerOfTwoFold fold(world_size);
  return static_cast<uint32_t>(fold.rounds() + (fold.extra > 0 ? 3 : 0));
}

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size, r = in.rank;
  const PowerOfTwoFold fold(n);
  const ChunkLayout chunks(in.count, n);
  const int v = fold.survivor(r);
  const size_t base = fold.extra > 0 ? 1 : 0, hand_back = base + static_cast<size_t>(fold.rounds());
  if (v < 0) {
    schedule.send(0, r + 1, chunk_range(chunks, r));
    schedule.recv(hand_back, r + 1, chunks_range(chunks, 0, r), Arrival::Copy);
    schedule.recv(hand_back + 1, r + 1, chunks_range(chunks, r + 1, n), Arrival::Copy);
    return schedule;
  }
  const bool folded_into = r < 2 * fold.extra;
  if (folded_into) schedule.recv(0, r - 1, chunk_range(chunks, r - 1), Arrival::Copy);
  add_recursive_doubling_gather(schedule, base, fold, chunks, v);
  if (folded_into) {
    schedule.send(hand_back, r - 1, chunks_range(chunks, 0, r - 1));
    schedule.send(hand_back + 1, r - 1, chunks_range(chunks, r, n));
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& recursive_doubling_allgather() {
  static const AlgorithmSpec spec{"allgather", "recursive-doubling",
                                  "small messages: log2 N steps instead of N-1", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
