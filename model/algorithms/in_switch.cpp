// In-switch reduction (NVLink SHARP, NCCL's NVLS): the NVSwitch reduces and multicasts, so a GPU
// moves each byte once instead of 2(k-1)/k times.
//
//   op             steps              bytes per GPU (tx / rx on its NVLink port)
//   allreduce      2                  S(1+1/k) / S(1+1/k)   (ld_reduce of its S/k chunk from
//                                                            all k GPUs, then multicast store)
//   reducescatter  1                  S / S/k
//   allgather      1                  S/k / S
//
// Across islands (NCCL's NVLS with a network level): in-switch reduce-scatter inside each island,
// an all-reduce (or all-gather / reduce-scatter) per rail across islands on S/k, then in-switch
// all-gather; the per-rail level adds 2(M-1) (or M-1) network steps.
// In-switch traffic achieves a lower fraction of line rate than ring copies (fitted separately in
// published_figures.cpp), so its bytes are weighted by efficiency.scale_up / efficiency.in_switch
// on the same scale-up ports. Wins: all-reduce inside an NVLink SHARP island, at any size.

#include <algorithm>

#include "algorithm.h"

namespace ringbench::model::algorithms {

Steps in_switch(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  if (op != Op::AllReduce && op != Op::AllGather && op != Op::ReduceScatter) {
    return Steps::not_applicable("nvls implements allreduce, allgather, reducescatter");
  }
  const Cluster& c = t.cluster();
  if (!c.scale_up.in_switch_reduction) return Steps::not_applicable("the cluster has no in-switch reduction");
  const int islands = g.islands();
  if (!g.uniform()) return Steps::not_applicable("needs the same number of members in every island");
  const int k = g.island_size(0);
  if (k < 2) return Steps::not_applicable("needs two or more members per island");

  const double weight = c.efficiency.scale_up / c.efficiency.in_switch;
  const double chunk = bytes / k;
  switch (op) {
    case Op::AllReduce: each_member_scale_up(g, bytes + chunk, bytes + chunk, t, weight); break;
    case Op::ReduceScatter: each_member_scale_up(g, bytes, chunk, t, weight); break;
    default: each_member_scale_up(g, chunk, bytes, t, weight); break;
  }
  const int switch_steps = op == Op::AllReduce ? 2 : 1;
  double latency = switch_steps * c.scale_up.latency_us;
  if (islands > 1) {
    const int phases = op == Op::AllReduce ? 2 : 1;
    const double across = phases * chunk * (islands - 1) / islands;
    double alpha_net = 0;
    for (int i = 0; i < islands; ++i) {
      const int next = (i + 1) % islands;
      for (int j = 0; j < k; ++j) {
        t.network(g.member(i, j), g.member(next, j), across);
        alpha_net = std::max(alpha_net, t.hop_latency_us(g.member(i, j), g.member(next, j)));
      }
    }
    latency += phases * (islands - 1) * alpha_net;
  }
  return {true, latency, {}, islands > 1};
}

}  // namespace ringbench::model::algorithms
