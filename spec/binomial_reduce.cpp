// Binomial-tree reduce: the mirror of the binomial broadcast. In round i every still-active rank
// with relative rank v = (r - root) mod N that is an odd multiple of 2^i sends its partial result
// to v - 2^i and drops out; the others receive from v + 2^i (if it exists) and reduce.
//
//   steps          ceil(log2 N)
//   bytes per rank 1 x data for every rank but the root, which sends nothing
//   wins           small messages: log2 N steps; at large sizes the root receives
//                  log2 N x data against the ring reduce's (N-1)/N x data

#include "algorithm_spec.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return static_cast<uint32_t>(ceil_log2(world_size)); }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size, v = (in.rank - in.root + n) % n;
  const Range whole{0, in.count};
  size_t round = 0;
  for (int m = 1; m < n; m *= 2, ++round) {
    if (v % (2 * m) == m) {
      schedule.send(round, (v - m + in.root) % n, whole);
      break;  // done: its partial result now lives in v - m
    }
    if (v % (2 * m) == 0 && v + m < n) schedule.recv(round, (v + m + in.root) % n, whole, Arrival::Reduce);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& binomial_reduce() {
  static const AlgorithmSpec spec{"reduce", "binomial-tree", "small messages: ceil(log2 N) steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
