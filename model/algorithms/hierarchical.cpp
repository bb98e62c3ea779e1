// Hierarchical (2D): inside each island a ring reduce-scatter, across islands an all-reduce per
// rail (member j of every island with member j of the others: M-member rings of S/k), then inside
// each island a ring all-gather. All-gather and reduce-scatter run the two levels once each.
//
//   op                        steps                      bytes per GPU over scale-up / network
//   allreduce                 2(k-1) + 2(M-1)            2(k-1)/k x S  /  2(M-1)/M x S/k
//   allgather, reducescatter  (k-1) + (M-1)              (k-1)/k x S   /  (M-1)/M x S/k
//
// (k members per island, M islands, n = kM.) Wins across islands: it sends 2(M-1)/M x S per
// island over the network where a flat ring sends 2(n-1)/n x S, and its latency has M + k
// instead of kM steps. Needs the same number of members in every island, and at least two
// islands and two members per island (otherwise it is the ring).

#include <algorithm>

#include "algorithm.h"

namespace ringbench::model::algorithms {

Steps hierarchical(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  if (op != Op::AllReduce && op != Op::AllGather && op != Op::ReduceScatter) {
    return Steps::not_applicable("hierarchical implements allreduce, allgather, reducescatter");
  }
  const int islands = g.islands();
  if (islands < 2) return Steps::not_applicable("needs two or more islands");
  if (!g.uniform()) return Steps::not_applicable("needs the same number of members in every island");
  const int k = g.island_size(0);
  if (k < 2) return Steps::not_applicable("one member per island: that is the ring");
  const int phases = op == Op::AllReduce ? 2 : 1;
  const Cluster& c = t.cluster();

  const double inside = phases * bytes * (k - 1) / k;
  each_member_scale_up(g, inside, inside, t);

  const double across = phases * bytes / k * (islands - 1) / islands;
  double alpha_net = 0;
  for (int i = 0; i < islands; ++i) {
    const int next = (i + 1) % islands;
    for (int j = 0; j < k; ++j) {
      t.network(g.member(i, j), g.member(next, j), across);
      alpha_net = std::max(alpha_net, t.hop_latency_us(g.member(i, j), g.member(next, j)));
    }
  }
  const double latency = phases * ((k - 1) * c.scale_up.latency_us + (islands - 1) * alpha_net);
  return {true, latency, {}, true};
}

}  // namespace ringbench::model::algorithms
