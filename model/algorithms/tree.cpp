// Double binary tree (NCCL's "tree"): a chain inside each island, and across islands two binary
// trees, each carrying half the data, built so that every island is a leaf in one of them.
//
//   op                 steps                              bytes sent per GPU   wins when
//   allreduce          2 x ((k-1) + ceil(log2 M)) hops    about 2S             many islands, small/medium S
//   broadcast, reduce  (k-1) + ceil(log2 M)               about S              many islands
//
// (k: members per island, M: islands.) Reduce goes up both trees and broadcast comes back down,
// pipelined, so latency is logarithmic in the number of islands while each island still sends
// and receives about 2S over its NICs. Tree 1 is a heap over the islands (parent (i-1)/2); tree 2
// is the same heap over the islands in reverse order, which makes tree 1's leaves its interior.

#include <algorithm>
#include <cmath>

#include "algorithm.h"

namespace ringbench::model::algorithms {

Steps tree(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  if (op != Op::AllReduce && op != Op::Broadcast && op != Op::Reduce) {
    return Steps::not_applicable("tree implements allreduce, broadcast, reduce");
  }
  const bool up = op != Op::Broadcast;    // reduce phase
  const bool down = op != Op::Reduce;     // broadcast phase
  const int phases = (up ? 1 : 0) + (down ? 1 : 0);
  const Cluster& c = t.cluster();
  const int islands = g.islands();

  // Chain inside each island: each of the k-1 edges carries S per phase, one way per phase.
  double chain_hops = 0;
  for (int i = 0; i < islands; ++i) {
    const int k = g.island_size(i);
    if (k < 2) continue;
    const double per_gpu = phases * bytes * (k - 1) / k;
    for (int j = 0; j < k; ++j) {
      t.scale_up_tx(g.member(i, j), per_gpu);
      t.scale_up_rx(g.member(i, j), per_gpu);
    }
    chain_hops = std::max(chain_hops, static_cast<double>(k - 1));
  }

  double alpha_net = 0;
  for (int tree_index = 0; tree_index < 2 && islands > 1; ++tree_index) {
    for (int pos = 1; pos < islands; ++pos) {
      const int parent_pos = (pos - 1) / 2;
      const int child = tree_index == 0 ? pos : islands - 1 - pos;
      const int parent = tree_index == 0 ? parent_pos : islands - 1 - parent_pos;
      if (up) alpha_net = std::max(alpha_net, island_to_island(g, child, parent, bytes / 2, t));
      if (down) alpha_net = std::max(alpha_net, island_to_island(g, parent, child, bytes / 2, t));
    }
  }
  const double depth = islands > 1 ? std::ceil(std::log2(static_cast<double>(islands))) : 0.0;
  // Across islands the chain and the trees depend on each other: an island sends up the tree
  // only what its chain has reduced, and its chain broadcasts only what came down the tree. Like
  // hierarchical, it is a phased algorithm (collective_cost.h). Costed overlapped, a 16-GPU
  // all-reduce over two DGX A100 would reach 241 GB/s busbw, above the 232 GB/s of one node's
  // NVLink alone: the bound the sequential rule rests on.
  return {true, phases * (chain_hops * c.scale_up.latency_us + depth * alpha_net), {}, islands > 1};
}

}  // namespace ringbench::model::algorithms
