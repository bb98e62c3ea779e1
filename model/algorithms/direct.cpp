// Direct: every member sends straight to its peers (all-to-all, send/recv).
//
//   op        steps   bytes sent per GPU   notes
//   alltoall  n-1     (n-1)/n x S          pairwise exchange; S/n to each peer
//   sendrecv  1       S                    group of 2: the first (lower) GPU sends S to the second
//
// All-to-all across islands uses PXN as NCCL does: data for a peer on rail r leaves through the
// sending island's NIC on rail r (after an NVLink hop that is not charged), so it stays
// rail-local; a rail the sending island's members do not use falls back to round robin.
// All-to-all cannot aggregate the NICs the way rings do: each peer pair is one flow.

#include <algorithm>
#include <vector>

#include "algorithm.h"

namespace ringbench::model::algorithms {

Steps direct(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  const Cluster& c = t.cluster();
  const int n = g.size();
  if (op == Op::SendRecv) {
    if (n != 2) return Steps::not_applicable("sendrecv needs a group of exactly 2");
    t.send(g.gpus[0], g.gpus[1], bytes);
    return {true, t.hop_latency_us(g.gpus[0], g.gpus[1]), {}};
  }
  if (op != Op::AllToAll) return Steps::not_applicable("direct implements alltoall and sendrecv");

  const double per_peer = bytes / n;
  const int islands = g.islands();
  double alpha = 0;
  for (int i = 0; i < islands; ++i) {
    const int k = g.island_size(i);
    if (k > 1) {
      for (int j = 0; j < k; ++j) {
        t.scale_up_tx(g.member(i, j), per_peer * (k - 1));
        t.scale_up_rx(g.member(i, j), per_peer * (k - 1));
      }
      alpha = std::max(alpha, c.scale_up.latency_us);
    }
  }
  if (islands > 1) {
    // The sending island's member on each rail (PXN proxy), -1 where it has none.
    std::vector<int> proxy(static_cast<size_t>(c.nics.per_node));
    for (int a = 0; a < islands; ++a) {
      std::fill(proxy.begin(), proxy.end(), -1);
      for (int j = 0; j < g.island_size(a); ++j) {
        const int gpu = g.member(a, j);
        int& p = proxy[static_cast<size_t>(locate(c, gpu).rail)];
        if (p < 0) p = gpu;
      }
      const double from_island = per_peer * g.island_size(a);
      int round_robin = 0;
      for (int b = 0; b < islands; ++b) {
        if (b == a) continue;
        for (int m = 0; m < g.island_size(b); ++m) {
          const int dst = g.member(b, m);
          int src = proxy[static_cast<size_t>(locate(c, dst).rail)];
          if (src < 0) src = g.member(a, round_robin++ % g.island_size(a));
          t.network(src, dst, from_island);
          alpha = std::max(alpha, t.hop_latency_us(src, dst));
        }
      }
    }
  }
  return {true, (n - 1) * alpha, {}};
}

}  // namespace ringbench::model::algorithms
