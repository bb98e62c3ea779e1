#pragma once
// The cost of a collective, or of many identical collectives that run at the same moment (every
// TP group's all-reduce at once, every DP group's gradient all-reduce at once, every pipeline
// stage boundary's send at once), on a cluster:
//
//     time = launch overhead + max over groups (latency steps x hop latency)       [alpha]
//          + max over links (bytes all groups put on the link / link capacity)     [beta]
//
// except for a phased algorithm (hierarchical, tree, halving-doubling and nvls across islands:
// a scale-up phase and a network phase that wait for each other's results), whose beta term is
// the busiest scale-up port's time PLUS the busiest network link's time. That is the one rule, for
// `topomodel collective`, `step`, `sweep` and `validate` alike. Why not overlap the phases, as
// NCCL's chunk pipelining tries to: fully overlapped, a 16-GPU all-reduce over two DGX A100
// would reach 249 GB/s busbw (halving-doubling) and over two DGX H100 514 GB/s (nvls), above
// the best busbw of one node alone (232.5 and 480 GB/s, published_figures.cpp), which no
// published multi-node nccl-tests figure shows. The one multi-node figure found that tests the
// rule, 8 H100 + 8x 400 Gb/s per node at 2 nodes, 4-8 GB, reports 430 GB/s busbw with NVLS and
// 330 without (NVIDIA/nccl#1221): NVLS overlaps its phases partly (this rule prices it at about
// 300, below the figure; full overlap, 514, would be above one node's 480). A partial-overlap
// rule fitted to that one figure would have nothing left to check it, so every phased algorithm
// adds its phases until a second figure can; docs/model.md#collective-costs gives the numbers.
//
// Groups in one batch share every link they have in common (a NIC, a leaf's uplinks), so the
// batch's time is the time of its slowest group, which is what a synchronous step waits for.
// Different batches are costed separately: they are at different moments of the step.
//
// CostModel is not thread-safe (it owns scratch space); use one per thread. Costing a batch is
// O(total members x log) for the algorithms here and allocates nothing after the first call.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cluster.h"
#include "collective.h"
#include "fabric.h"
#include "group.h"

namespace ringbench::model {

struct CollectiveCost {
  Op op = Op::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  bool applicable = true;
  std::string why_not;  // when !applicable
  int group_size = 0;   // members per group (the largest, if they differ)
  int groups = 0;       // groups costed together
  uint64_t bytes = 0;   // S, per the nccl-tests convention (collective.h)
  double time_us = 0;
  double latency_us = 0;    // launch overhead + alpha terms
  double bandwidth_us = 0;  // the beta term: the bottleneck link's time, or a phased algorithm's sum
  // The busiest scale-up port's time and the busiest network link's (NIC, leaf, pod) time. A
  // phased algorithm's bandwidth_us is their sum; any other's is the larger of the two.
  bool phased = false;
  double scale_up_us = 0;
  double network_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  double wire_bytes_per_gpu = 0;  // bytes each GPU puts on its links (scale-up + NIC), average
  std::string bottleneck;         // the link that sets bandwidth_us ("A + B": a phased algorithm's two), "" if none
};

// A batch of groups, laid out once and costed with many algorithms.
using Batch = std::vector<GroupLayout>;

class CostModel {
 public:
  explicit CostModel(const Cluster& cluster);  // validates the cluster (InputError)

  const Cluster& cluster() const { return fabric_.cluster(); }
  const Fabric& fabric() const { return fabric_; }

  // Lays out groups of GPU ids (InputError on ids outside the cluster or repeated ids).
  Batch batch(std::span<const std::vector<int>> groups) const;

  // Every group of `batch` runs `op` on `bytes` with `algorithm`, at the same moment.
  CollectiveCost cost(Op op, Algorithm algorithm, const Batch& batch, uint64_t bytes);
  // One entry per algorithm that implements `op` (inapplicable ones marked so), in
  // algorithms_for(op) order.
  std::vector<CollectiveCost> cost_each(Op op, const Batch& batch, uint64_t bytes);
  // The fastest applicable algorithm ("auto"). A batch of groups of one GPU costs nothing.
  CollectiveCost cost_best(Op op, const Batch& batch, uint64_t bytes);

 private:
  Fabric fabric_;
  LinkLoads loads_;
};

// Index of the fastest applicable entry, or -1 if none applies.
int fastest(std::span<const CollectiveCost> costs);

}  // namespace ringbench::model
