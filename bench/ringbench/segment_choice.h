#pragma once
// --segment BYTES|auto: the pipelining segment of the tree all-reduce and the chain broadcast
// (spec/segments.h), chosen per size from this run's own link instead of one constant; and the
// ring all-reduce's rounds (RingRounds below), chosen from this machine's caches.
//
// Why chosen: a segment is a step, and every step is a wait. 64 KiB segments cost the tree
// all-reduce 1.5x the ring's CPU for the same bytes at N = 4, 4 MiB on the 2-core AMD VM (67 steps,
// 238 context switches per call), and 256 KiB ones ran it 1.3-1.6x faster at N = 3; but on a
// 1 Gbit/s link a 256 KiB segment is a 2 ms step, and the tree's fill of 2 log2 N - 1 steps would
// cost more than the waits save (docs/performance.md). So no constant fits both.
//
// How: with --segment auto (the default), rank 0 fits the start-up ping-pong (/links, the same
// two-segment fit topomodel calibrate and --algo auto make: model/link_fit.h) and every rank
// receives its latency and bandwidth; each call of a pipelined algorithm then takes
// spec::chosen_segment_bytes() of its size, the one formula the model prices the row with. The
// link is the across-hosts class where the job spans hosts (the slowest hop sets the pipeline's
// pace), else the same-host class. Without a link test (--no-link-test, one rank) the segment is
// the specification's default. --segment BYTES pins it for every size.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "machine_probes.h"
#include "model/link_fit.h"
#include "transport/algorithm.h"

namespace ringbench {

class Communicator;

// The range --segment BYTES accepts: a smaller segment is all header and wake-up, a larger one is
// no pipeline at any size ringbench runs.
inline constexpr uint64_t kMinSegmentBytes = 4 << 10;
inline constexpr uint64_t kMaxSegmentBytes = 1ull << 30;

// The link auto cuts segments for; zero figures when none was measured.
struct SegmentLink {
  std::string link_class;      // "same host", "across hosts"; empty: none
  double latency_us = 0;
  double bandwidth_GBps = 0;
  // Bytes of each large message the link passed faster than its fitted rate: a shaper's burst
  // (tbf lets its bucket through at wire speed, then holds the stream to its rate). The start-up
  // ping-pong times a segment inside the burst at wire speed, but a stream of segments empties the
  // bucket and pays the rate and a wake-up per segment, so auto cuts no segment smaller than the
  // burst. Across two namespace hosts shaped to 1 Gbit/s, 2026-12-05: a burst of about 160 KB;
  // without the floor the formula cut 8-32 KiB segments and the tree all-reduce of 256 KiB-4 MiB ran
  // 1.8-5.7x slower than in 64 KiB ones (docs/performance.md).
  double burst_bytes = 0;
  bool measured() const { return latency_us > 0 && bandwidth_GBps > 0; }
};

// The burst of burst_bytes above, from one link class's two-segment fit: the median, over the
// sizes the bandwidth was fitted on (model::kLargeSegmentBytes and up), of the bytes beyond what
// the fitted rate moves in the measured time; 0 when none of them beat it.
double passed_burst_bytes(std::span<const model::LinkSample> samples, double bandwidth_GBps);

// Rank 0 fits its start-up link points and every rank gets the figures. Collective: every rank
// calls it with the same `measure` (false: nothing measured, so nothing to send).
SegmentLink agree_segment_link(Communicator& comm, const std::vector<LinkPoint>& rank0_points, bool measure);

// The ring all-reduce's rounds (spec/ring_allreduce.cpp), which auto cuts from this machine's
// caches: a ring step forwards what the step before received, a whole chunk later in one round.
// Once the buffers of a host's ranks together reach its last-level cache, that chunk is back in
// memory when it is forwarded; rounds of one core's own cache (L2) keep it there. Only where every
// rank has a core of its own: ranks sharing a core evict each other's data between time slices
// anyway: there 8 rounds were 5-11% slower at 16 MiB (2-vCPU AMD EPYC VM, N = 3 and 4), where at
// N = 2 rounds ran 1.04-1.32x faster at 16-64 MiB (docs/performance.md).
struct RingRounds {
  uint64_t core_cache_bytes = 0;    // one core's own cache, a round's chunk; 0: unknown, no rounds
  uint64_t shared_cache_bytes = 0;  // the last-level cache the ranks of a host share; 0: unknown
  int ranks_sharing_cache = 1;      // the most ranks on one kernel (Communicator::ranks_sharing_cores)
  bool core_for_every_rank = false;
  // The round for a ring all-reduce of `message_bytes` per rank at this world size; 0: one round.
  uint64_t segment_for(int world_size, uint64_t message_bytes) const;
};

// Rank 0's caches and every host's worst case (most ranks on a kernel, any host with fewer cores
// than ranks), so every rank cuts the same rounds. Collective: every rank calls it.
RingRounds agree_ring_rounds(Communicator& comm);

class SegmentChoice {
 public:
  SegmentChoice() = default;
  // pinned_bytes: --segment BYTES (the ring all-reduce's rounds too); 0 for auto, which cuts the
  // pipelined plans' segments for `link` and the ring's rounds for `rounds`.
  SegmentChoice(uint64_t pinned_bytes, SegmentLink link, RingRounds rounds = {})
      : pinned_(pinned_bytes), link_(std::move(link)), rounds_(rounds) {}

  // The segment `algorithm` runs a call of `message_bytes` with at this world size: 0 for one
  // that is not pipelined (or has no specification: mpi), never more than the message. For the
  // ring all-reduce, its round (0: one round).
  uint64_t bytes_for(const Algorithm& algorithm, int world_size, uint64_t message_bytes) const;
  // The header's line: how the segment is chosen.
  std::string describe() const;

 private:
  // The smallest segment auto cuts on this link: the burst's power of two; 0 without a burst.
  uint64_t burst_floor() const;

  // The header's words for the ring all-reduce's rounds under auto.
  std::string describe_rounds() const;

  uint64_t pinned_ = 0;
  SegmentLink link_;
  RingRounds rounds_;
};

}  // namespace ringbench
