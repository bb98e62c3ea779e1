#pragma once
// Ring building blocks shared by the ring all-gather, reduce-scatter and reduce, and by the
// hierarchical all-reduce (which runs rings inside hosts and across them, over uneven parts).
//
// A ring here is a list of member ranks in ring order (member i sends to member i+1) and a
// partition of the buffer into one part per member. Parts may differ in size or be empty; the
// schedule only needs every member to agree on them.

#include <functional>
#include <span>

#include "schedule.h"

namespace ringbench::spec {

using PartOf = std::function<Range(int part)>;

inline int wrap_index(int i, int m) { return ((i % m) + m) % m; }

// Reduce-scatter: afterwards member i holds the full reduction of part i. Step s (tag first+s):
// send part me-s-1 to the right, receive part me-s-2 from the left and reduce it in. m-1 steps.
inline void add_ring_reduce_scatter(Schedule& schedule, size_t first_tag, std::span<const int> members, int me,
                                    const PartOf& part) {
  const int m = static_cast<int>(members.size());
  const int right = members[wrap_index(me + 1, m)], left = members[wrap_index(me - 1, m)];
  for (int s = 0; s + 1 < m; ++s) {
    schedule.send(first_tag + s, right, part(wrap_index(me - s - 1, m)));
    schedule.recv(first_tag + s, left, part(wrap_index(me - s - 2, m)), Arrival::Reduce);
  }
}

// All-gather: member i starts with part i and ends with all of them. Step s: send part me-s,
// receive part me-s-1 straight into place. m-1 steps.
inline void add_ring_allgather(Schedule& schedule, size_t first_tag, std::span<const int> members, int me,
                               const PartOf& part) {
  const int m = static_cast<int>(members.size());
  const int right = members[wrap_index(me + 1, m)], left = members[wrap_index(me - 1, m)];
  for (int s = 0; s + 1 < m; ++s) {
    schedule.send(first_tag + s, right, part(wrap_index(me - s, m)));
    schedule.recv(first_tag + s, left, part(wrap_index(me - s - 1, m)), Arrival::Copy);
  }
}

}  // namespace ringbench::spec
