// Recursive halving-doubling (Rabenseifner): reduce-scatter by recursive halving, then
// all-gather by recursive doubling, over a hypercube of the n = 2^L members.
//
//   op                        steps      bytes sent per GPU   wins when
//   allreduce                 2 log2 n   2(n-1)/n x S         medium S at large n: ring's bytes,
//   allgather, reducescatter  log2 n     (n-1)/n x S          logarithmic latency
//
// Step j exchanges S/2^(j+1) with the partner at distance 2^j (rank XOR 2^j): the largest
// exchanges go to the nearest partners, inside the island, and the partners at distances >= the
// island size sit on the same rail of another node, so every NIC is busy and traffic stays
// rail-local. Applies to power-of-two groups only (the non-power-of-two variant adds two full
// exchanges and is never the best choice here).

#include <algorithm>

#include "algorithm.h"

namespace ringbench::model::algorithms {

Steps halving_doubling(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  if (op != Op::AllReduce && op != Op::AllGather && op != Op::ReduceScatter) {
    return Steps::not_applicable("halving-doubling implements allreduce, allgather, reducescatter");
  }
  const int n = g.size();
  if ((n & (n - 1)) != 0) return Steps::not_applicable("needs a power-of-two group");
  const int passes = op == Op::AllReduce ? 2 : 1;  // halving then doubling, or one of them
  double latency = 0;
  for (int distance = 1; distance < n; distance *= 2) {
    const double chunk = bytes / (2.0 * distance);  // S / 2^(j+1)
    double alpha = 0;
    for (int i = 0; i < n; ++i) {
      const int src = g.gpus[static_cast<size_t>(i)];
      const int dst = g.gpus[static_cast<size_t>(i ^ distance)];
      t.send(src, dst, passes * chunk);
      alpha = std::max(alpha, t.hop_latency_us(src, dst));
    }
    latency += passes * alpha;
  }
  // Each step needs the previous one's result: across islands the NIC step cannot overlap the
  // NVLink steps, so it is a phased algorithm (collective_cost.h).
  return {true, latency, {}, g.islands() > 1};
}

}  // namespace ringbench::model::algorithms
