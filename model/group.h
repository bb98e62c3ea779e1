#pragma once
// One communicator's members as the algorithms see them: GPU ids in ascending order, which puts
// every island's members next to each other (island = gpu / gpus_per_island), i.e. the ring
// order NCCL would pick: all GPUs of one island, then the next island.

#include <span>
#include <vector>

#include "cluster.h"

namespace ringbench::model {

struct GroupLayout {
  std::vector<int> gpus;          // ascending
  std::vector<int> island_begin;  // index in gpus of each island's first member, then gpus.size()

  int size() const { return static_cast<int>(gpus.size()); }
  int islands() const { return static_cast<int>(island_begin.size()) - 1; }
  int island_size(int i) const { return island_begin[i + 1] - island_begin[i]; }
  int member(int island, int j) const { return gpus[static_cast<size_t>(island_begin[island] + j)]; }
  // Every island holds the same number of members.
  bool uniform() const;
};

// `members` must be distinct GPUs of `cluster` (InputError otherwise, naming the bad member).
GroupLayout make_layout(const Cluster& cluster, std::span<const int> members);

}  // namespace ringbench::model
