// Pipelined binary-tree all-reduce: reduce up a binary tree to rank 0, broadcast back down, both
// pipelined in segments (segments.h) and overlapped, so for large messages every link is busy.
//
//   steps          2 floor(log2 N) for one segment; S + 2 floor(log2 N) - 1 for S segments
//   bytes per rank data x (1 if the rank has a parent + number of children), i.e.
//                    leaf 1 x data, interior rank with two children 3 x data (one child: 2 x),
//                    root (rank 0) 2 x data (1 x at N = 2); 0 at N = 1
//   wins           small and medium messages on many ranks: 2 log2 N hops of latency instead
//                  of the ring's 2(N-1); loses at large sizes, where interior ranks send 3 x data
//                  against the ring's 2(N-1)/N x data
//
// The tree is heap-shaped: parent (r-1)/2, children 2r+1 and 2r+2, depth d = floor(log2(r+1)),
// height H = floor(log2 N). A rank at depth d sends segment k up at step k + H - d, so its
// children (depth d+1) sent theirs one step earlier and it has reduced them in; the root's
// segment k is complete after step k + H - 1 and goes down at step k + H, reaching depth d at
// step k + H + d - 1. In any one step a rank's four transfers touch four different segments
// (see the comment in plan()), so reducing, forwarding and receiving never overlap in memory.
// The result is computed once, at the root, and copied down: bit-identical on every rank.

#include "algorithm_spec.h"
#include "segments.h"

namespace ringbench::spec {
namespace {

uint32_t steps(int world_size) { return 2 * static_cast<uint32_t>(floor_log2(world_size)); }
// S segments take S + 2H - 1 steps: the first segment's 2H, less the one it shares with the next.
uint32_t fill_steps(int world_size) { return world_size == 1 ? 0 : steps(world_size) - 1; }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const int n = in.world_size, r = in.rank;
  const Segments segments(in.count, in.element_bytes, in.segment_bytes);
  if (n == 1 || segments.number() == 0) return schedule;
  const long height = floor_log2(n), depth = floor_log2(r + 1);
  const int parent = (r - 1) / 2;
  const int children[2] = {2 * r + 1, 2 * r + 2};
  const long last_step = segments.number() + 2 * height - 1;
  // At step t this rank reduces segment t-H+d+1 (from children), sends t-H+d up, receives
  // t-H-d+1 from its parent and sends t-H-d down. These four differ for d >= 1, and the root
  // (d = 0) neither sends up nor receives down.
  for (long t = 0; t < last_step; ++t) {
    const long from_children = t - height + depth + 1, up = t - height + depth;
    const long from_parent = t - height - depth + 1, down = t - height - depth;
    for (int child : children) {
      if (child >= n) continue;
      if (segments.valid(from_children))
        schedule.recv(t, child, segments.range(from_children), Arrival::Reduce);
      if (segments.valid(down)) schedule.send(t, child, segments.range(down));
    }
    if (r != 0 && segments.valid(up)) schedule.send(t, parent, segments.range(up));
    if (r != 0 && segments.valid(from_parent))
      schedule.recv(t, parent, segments.range(from_parent), Arrival::Copy);
  }
  return schedule;
}

}  // namespace

const AlgorithmSpec& tree_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "tree",
                                  "small/medium messages on many ranks: 2 log2 N hops instead of 2(N-1)", steps, plan,
                                  fill_steps};
  return spec;
}

}  // namespace ringbench::spec
