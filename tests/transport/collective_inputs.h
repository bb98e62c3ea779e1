#pragma once
// Inputs whose results are exact in every dtype, and the exact result each rank must hold, for
// every collective under the buffer convention of transport/collective.h. Values are small
// integers (exact in float32), products stay within a few powers of two, and every element's
// value depends on its index, so a chunk landing in the wrong place is caught.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "transport/collective.h"
#include "transport/collectives/chunk_layout.h"
#include "transport/data_type.h"

namespace ringbench::testing {

// The message sizes every collective is tested at, as a function of N: the edge cases of the
// chunk layout, an awkward prime, and one far past 4 KiB socket buffers.
enum class CountKind { Zero, One, NMinus1, NPlus1, Prime, Large };
inline constexpr const char* kCountNames[] = {"zero", "one", "nminus1", "nplus1", "prime", "large"};
inline size_t count_for(CountKind kind, int n) {
  switch (kind) {
    case CountKind::Zero: return 0;
    case CountKind::One: return 1;
    case CountKind::NMinus1: return static_cast<size_t>(n - 1);
    case CountKind::NPlus1: return static_cast<size_t>(n + 1);
    case CountKind::Prime: return 10007;
    case CountKind::Large: return 300007;  // > 1 MiB of float32: far past 4 KiB socket buffers
  }
  return 0;
}

// Rank `rank`'s contribution to a reduction, element i (as in ring_allreduce_test.cpp).
inline double reduce_input(ReduceOp op, int rank, size_t i) {
  if (op == ReduceOp::Prod) {
    if ((i + static_cast<size_t>(rank)) % 7 == 0) return 2.0;
    return ((i * 3 + static_cast<size_t>(rank)) % 5 == 0) ? -1.0 : 1.0;
  }
  return static_cast<double>(static_cast<int>((i * 7 + static_cast<size_t>(rank) * 13) % 41) - 20);
}

inline double reduced(ReduceOp op, int n, size_t i) {
  double acc = reduce_input(op, 0, i);
  for (int r = 1; r < n; ++r) {
    double v = reduce_input(op, r, i);
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: acc += v; break;  // avg: the sum, divided below
      case ReduceOp::Prod: acc *= v; break;
      case ReduceOp::Min: acc = std::min(acc, v); break;
      case ReduceOp::Max: acc = std::max(acc, v); break;
    }
  }
  return op == ReduceOp::Avg ? acc / n : acc;
}

// A value identifying element i of data that originates at `origin`.
inline double marked(int origin, size_t i) {
  return static_cast<double>(origin * 4099 + static_cast<int>(i % 2003)) - 1000.0;
}
inline double poison(int rank) { return -100000.0 - rank; }

struct Expectation {
  std::vector<double> input;                  // this rank's buffer on entry
  std::vector<std::optional<double>> result;  // what it must hold on return; nullopt: unspecified
};

inline Expectation expectation(Collective collective, ReduceOp op, int n, int rank, size_t count, int root) {
  Expectation e{std::vector<double>(count), std::vector<std::optional<double>>(count)};
  const ChunkLayout chunks(count, n);
  auto chunk_of = [&](size_t i) {
    int c = 0;
    while (chunks.offset(c) + chunks.size(c) <= i) ++c;
    return c;
  };
  const size_t block = count / static_cast<size_t>(n);
  for (size_t i = 0; i < count; ++i) {
    switch (collective) {
      case Collective::AllReduce:
        e.input[i] = reduce_input(op, rank, i);
        e.result[i] = reduced(op, n, i);
        break;
      case Collective::ReduceScatter:
        e.input[i] = reduce_input(op, rank, i);
        if (chunk_of(i) == rank) e.result[i] = reduced(op, n, i);
        break;
      case Collective::Reduce:
        e.input[i] = reduce_input(op, rank, i);
        if (rank == root) e.result[i] = reduced(op, n, i);
        break;
      case Collective::AllGather:
        e.input[i] = chunk_of(i) == rank ? marked(rank, i) : poison(rank);
        e.result[i] = marked(chunk_of(i), i);
        break;
      case Collective::Broadcast:
        e.input[i] = rank == root ? marked(root, i) : poison(rank);
        e.result[i] = marked(root, i);
        break;
      case Collective::AllToAll: {
        // Element i of my block j is meant for rank j; the trailing count % n elements stay put.
        const size_t j = block ? i / block : 0;
        if (block == 0 || j >= static_cast<size_t>(n)) {
          e.input[i] = poison(rank);
          e.result[i] = poison(rank);
        } else {
          e.input[i] = marked(rank * 8 + static_cast<int>(j), i);
          // What rank j sent to me: its block `rank`, element for element.
          const size_t sender_index = static_cast<size_t>(rank) * block + (i - j * block);
          e.result[i] = marked(static_cast<int>(j) * 8 + rank, sender_index);
        }
        break;
      }
    }
  }
  return e;
}

inline bool reduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}
inline bool rooted(Collective c) { return c == Collective::Broadcast || c == Collective::Reduce; }

}  // namespace ringbench::testing
