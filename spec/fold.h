#pragma once
// Folding any N onto a power of two, for the recursive halving/doubling algorithms (the standard
// MPICH/Rabenseifner scheme). With P the largest power of two <= N and R = N - P "extra" ranks:
//   - ranks 0..2R-1 pair up (2i, 2i+1); the even one folds into the odd one and sits out the
//     power-of-two phase; the odd one takes part as survivor i;
//   - ranks 2R..N-1 take part as survivors r - R.
// Survivor v holds a "block" of the N-chunk layout: chunks {2v, 2v+1} (its own and its folded
// partner's) for v < R, chunk v + R otherwise. Blocks are contiguous and in survivor order, so
// halving and doubling work on block ranges, and at the end each survivor owns exactly the
// chunks of the ranks it stands for: no re-layout is needed to hand results back.

#include "schedule.h"

namespace ringbench::spec {

struct PowerOfTwoFold {
  explicit PowerOfTwoFold(int n) : world(n), pof2(1 << floor_log2(n)), extra(n - (1 << floor_log2(n))) {}
  int world, pof2, extra;

  // -1 for a rank that folds into its odd partner and sits out.
  int survivor(int rank) const {
    if (rank < 2 * extra) return rank % 2 == 1 ? rank / 2 : -1;
    return rank - extra;
  }
  int rank_of(int survivor) const { return survivor < extra ? 2 * survivor + 1 : survivor + extra; }
  int first_chunk(int survivor) const { return survivor < extra ? 2 * survivor : survivor + extra; }
  int rounds() const { return floor_log2(pof2); }
  // Elements of blocks [first, last).
  Range blocks(const ChunkLayout& chunks, int first, int last) const {
    return chunks_range(chunks, first_chunk(first), first_chunk(last));
  }
};

// Recursive halving reduce-scatter among the survivors, tags first..first+rounds-1. Round i
// pairs survivor v with v ^ (P/2 >> i): each keeps the half of their common block range that
// contains its own block and sends the other half, so the data sent halves every round. After
// the last round survivor v holds the full reduction of its block.
inline void add_recursive_halving(Schedule& schedule, size_t first_tag, const PowerOfTwoFold& fold,
                                  const ChunkLayout& chunks, int v) {
  int lo = 0, hi = fold.pof2;
  size_t tag = first_tag;
  for (int mask = fold.pof2 / 2; mask >= 1; mask /= 2, ++tag) {
    const int peer = fold.rank_of(v ^ mask), mid = lo + mask;
    const bool upper = (v & mask) != 0;
    schedule.send(tag, peer, upper ? fold.blocks(chunks, lo, mid) : fold.blocks(chunks, mid, hi));
    schedule.recv(tag, peer, upper ? fold.blocks(chunks, mid, hi) : fold.blocks(chunks, lo, mid), Arrival::Reduce);
    (upper ? lo : hi) = mid;
  }
}

// Recursive doubling all-gather among the survivors: survivor v starts with its block; round i
// pairs v with v ^ (1 << i) and they swap everything each holds (2^i blocks), straight into place.
inline void add_recursive_doubling_gather(Schedule& schedule, size_t first_tag, const PowerOfTwoFold& fold,
                                          const ChunkLayout& chunks, int v) {
  size_t tag = first_tag;
  for (int mask = 1; mask < fold.pof2; mask *= 2, ++tag) {
    const int peer = fold.rank_of(v ^ mask);
    const int mine = v & ~(mask - 1), theirs = (v ^ mask) & ~(mask - 1);
    schedule.send(tag, peer, fold.blocks(chunks, mine, mine + mask));
    schedule.recv(tag, peer, fold.blocks(chunks, theirs, theirs + mask), Arrival::Copy);
  }
}

}  // namespace ringbench::spec
