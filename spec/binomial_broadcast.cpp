// Binomial-tree broadcast: in round i every rank that has the data (relative rank v < 2^i) sends
// the whole vector to v + 2^i, so the number of holders doubles each round.
//
//   steps          ceil(log2 N)
//   bytes per rank data x (number of children): with v = (r - root) mod N, one send per round i
//                  with v < 2^i and v + 2^i < N; the root sends ceil(log2 N) x data, the
//                  ranks that receive last send nothing
//   wins           small messages: log2 N steps; loses at large sizes, where the root sends
//                  log2 N x data against the chain's 1 x

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
    if (v < m && v + m < n) schedule.send(round, (v + m + in.root) % n, whole);
    else if (v >= m && v < 2 * m) schedule.recv(round, (v - m + in.root) % n, whole, Arrival::Copy);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& binomial_broadcast() {
  static const AlgorithmSpec spec{"broadcast", "binomial-tree", "small messages: ceil(log2 N) steps", steps, plan};
  return spec;
}

}  // namespace ringbench::spec
