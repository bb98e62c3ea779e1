// Pipelined chain broadcast: root -> root+1 -> ... -> root+N-1, in segments (segments.h), each
// rank forwarding segment k while segment k+1 arrives.
//
//   steps          N-1 for one segment; S + N - 2 for S segments
//   bytes per rank 1 x data for every rank but the last in the chain (rank root-1), which sends 0
//   wins           large messages: every link carries the data once and the pipeline hides the
//                  N-1 hops; loses on small messages, where those hops are pure latency
//
// Position p = (r - root) mod N receives segment k at step k + p - 1 and sends it at k + p.

#include "algorithm_spec.h"
#include "segments.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return static_cast<uint32_t>(world_size - 1); }
// S segments take S + N - 2 steps.
uint32_t fill_steps(int world_size) { return world_size <= 2 ? 0 : steps(world_size) - 1; }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size;
  const Segments segments(in.count, in.element_bytes, in.segment_bytes);
  const long position = (in.rank - in.root + n) % n;
  const int next = (in.rank + 1) % n, previous = (in.rank - 1 + n) % n;
  for (long k = 0; k < segments.number(); ++k) {
    if (position > 0) schedule.recv(k + position - 1, previous, segments.range(k), Arrival::Copy);
    if (position < n - 1) schedule.send(k + position, next, segments.range(k));
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& chain_broadcast() {
  static const AlgorithmSpec spec{"broadcast", "pipelined-chain",
                                  "large messages: data crosses each link once, pipelined", steps, plan,
                                  fill_steps};
  return spec;
}

}  // namespace ringbench::spec
