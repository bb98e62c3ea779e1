#pragma once
// An algorithm as a schedule: the list of exchanges one rank makes in one call. The transport
// runs it (transport/collectives/schedule.h), the byte check and the documented table sum its
// sends, and the model's closed forms are tested against it (tests/spec), so each algorithm has
// exactly one description of who sends what to whom.
//
// A schedule is a vector of steps indexed by tag. All ranks number steps the same way, and a pair
// of ranks that talk in step t both list that transfer in step t; every rank walks its steps in
// increasing order. That makes any schedule deadlock-free by induction on t: once every rank has
// finished the steps before t, each transfer of step t has both ends inside one exchange that
// drives them together. Steps where a rank has nothing to do are empty and skipped.
//
// Ranges are in elements of the caller's buffer. Plans are pure functions of
// (rank, world size, count, element size, root, hosts), so any rank can compute any other rank's
// schedule: the tests use that to check that every send has a matching receive.
//
// This folder depends on nothing but the C++ standard library: no sockets, MPI, HDF5 or fmt.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "chunk_layout.h"

namespace ringbench::spec {

struct Range {
  size_t offset = 0;  // first element
  size_t count = 0;   // elements
  friend bool operator==(const Range&, const Range&) = default;
};

// Chunk i of a layout, and chunks [first, last) as one contiguous range (no wrap-around).
inline Range chunk_range(const ChunkLayout& layout, int i) { return {layout.offset(i), layout.size(i)}; }
inline Range chunks_range(const ChunkLayout& layout, int first, int last) {
  if (last <= first) return {layout.offset(first), 0};
  size_t begin = layout.offset(first);
  return {begin, layout.offset(last - 1) + layout.size(last - 1) - begin};
}

// What happens to received elements.
enum class Arrival {
  Copy,                // written straight into the buffer range
  Reduce,              // buffer = buffer op incoming, piece by piece as it arrives
  ReduceIncomingFirst, // buffer = incoming op buffer: used where the sender holds the lower ranks'
                       // partial result, so that partners computing the same value use the same
                       // operand order and get bit-identical floats
};
inline bool reduces(Arrival arrival) { return arrival != Arrival::Copy; }

struct SendOp {
  int peer;
  Range range;
};
struct RecvOp {
  int peer;
  Range range;
  Arrival arrival;
};

// One exchange: at most one send and one receive per peer (the exchange contract).
struct Step {
  std::vector<SendOp> sends;
  std::vector<RecvOp> recvs;
  bool empty() const { return sends.empty() && recvs.empty(); }
};

struct Schedule {
  std::vector<Step> steps;  // index = step tag
  Step& at(size_t tag) {
    if (steps.size() <= tag) steps.resize(tag + 1);
    return steps[tag];
  }
  void send(size_t tag, int peer, Range range) { at(tag).sends.push_back({peer, range}); }
  void recv(size_t tag, int peer, Range range, Arrival arrival) { at(tag).recvs.push_back({peer, range, arrival}); }
  // Elements this rank sends in the whole call, and elements it reduces into its buffer.
  uint64_t elements_sent() const;
  uint64_t elements_reduced() const;
};

// Everything a plan may depend on. host_of_rank is empty when the caller does not know the
// placement; plans that follow hosts then treat all ranks as one host. Otherwise
// host_of_rank[r] is rank r's host as a small index, and its size is the world size.
struct PlanInput {
  int rank = 0;
  int world_size = 1;
  size_t count = 0;
  size_t element_bytes = 1;
  int root = 0;
  std::span<const int> host_of_rank = {};
  // Pipelined plans' segment (segments.h); 0: kDefaultSegmentBytes. Others ignore it.
  size_t segment_bytes = 0;
};

inline int floor_log2(int n) {
  int k = 0;
  while ((2 << k) <= n) ++k;
  return k;
}

// Rounds of a binomial tree over n ranks: the holders double each round.
inline int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

}  // namespace ringbench::spec
