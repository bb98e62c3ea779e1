// Ring: NCCL's default for large messages.
//
//   op                        steps     bytes sent per GPU   wins when
//   allreduce                 2(n-1)    2(n-1)/n x S         large S, small n: bandwidth-optimal
//   allgather, reducescatter  n-1       (n-1)/n x S          large S
//   broadcast, reduce         n-1       S (pipelined chain;  large S
//                                       the end sends 0)
//
// Latency grows linearly in n, which is why trees and hierarchical schemes win at scale or for
// small messages. Across islands NCCL runs one ring per NIC (channel): each island's ring
// segment is entered and left once per channel, so the T bytes every GPU sends leave the island
// spread over all the NICs of its members, rail to rail, while the (k-1) edges inside the island
// carry the rest over the scale-up fabric.

#include <algorithm>

#include "algorithm.h"

namespace ringbench::model::algorithms {
namespace {

// An open chain of n members has n-1 edges: broadcast runs it from the first member (the root),
// which receives nothing, to the last, which sends nothing; reduce runs it the other way, into
// the root. Each edge carries the whole message. (Pricing every member as sending it, as this
// once did, counted n x S on the wire where the chain, spec/chain_broadcast.cpp, sends
// (n-1) x S: tests/spec checks the two agree.)
void open_chain_scale_up(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  const int n = g.size();
  for (int j = 0; j < n; ++j) {
    const bool first = j == 0, last = j + 1 == n;
    const bool sends = op == Op::Broadcast ? !last : !first;
    const bool receives = op == Op::Broadcast ? !first : !last;
    if (sends) t.scale_up_tx(g.gpus[static_cast<size_t>(j)], bytes);
    if (receives) t.scale_up_rx(g.gpus[static_cast<size_t>(j)], bytes);
  }
}

}  // namespace

Steps ring(const GroupLayout& g, Op op, double bytes, Traffic& t) {
  const int n = g.size();
  double per_gpu = 0;  // T: bytes each GPU sends along the ring
  int steps = 0;
  bool closed = true;  // rooted ops run an open chain
  switch (op) {
    case Op::AllReduce:
      per_gpu = 2.0 * (n - 1) / n * bytes;
      steps = 2 * (n - 1);
      break;
    case Op::AllGather:
    case Op::ReduceScatter:
      per_gpu = static_cast<double>(n - 1) / n * bytes;
      steps = n - 1;
      break;
    case Op::Broadcast:
    case Op::Reduce:
      per_gpu = bytes;
      steps = n - 1;
      closed = false;
      break;
    default: return Steps::not_applicable("ring implements allreduce, allgather, reducescatter, broadcast, reduce");
  }
  const Cluster& c = t.cluster();
  const int islands = g.islands();
  if (islands == 1) {
    if (closed) each_member_scale_up(g, per_gpu, per_gpu, t);
    else open_chain_scale_up(g, op, per_gpu, t);
    return {true, steps * c.scale_up.latency_us, {}};
  }
  double alpha = 0;
  for (int i = 0; i < islands; ++i) {
    const int k = g.island_size(i);
    if (k > 1) {
      const double inside = per_gpu * (k - 1) / k;
      for (int j = 0; j < k; ++j) {
        t.scale_up_tx(g.member(i, j), inside);
        t.scale_up_rx(g.member(i, j), inside);
      }
      alpha = std::max(alpha, c.scale_up.latency_us);
    }
    if (closed || i + 1 < islands) {
      alpha = std::max(alpha, island_to_island(g, i, (i + 1) % islands, per_gpu, t));
    }
  }
  return {true, steps * alpha, {}};
}

}  // namespace ringbench::model::algorithms
