#pragma once
// What a model of this machine needs that the collectives' own rows must not supply (a model is
// fitted on probes and checked on the rows, never fitted on what it predicts: issue 15's
// `topomodel calibrate`):
//  - how fast one core reduces and copies, since a step's CPU work is shared by the ranks that
//    share a core, and the link test does no reduction;
//  - the point-to-point time of each link class the job has (same host; across hosts) over a
//    range of sizes, since a ring's link test mixes the classes and reports only the slowest.
// Recorded in /runs (reduce_GBps, copy_GBps) and /links.

#include <cstdint>
#include <string>
#include <vector>

#include "model/link_fit.h"
#include "transport/data_type.h"

namespace ringbench {

class Communicator;

// Bytes of the destination buffer each probe repetition touches: larger than a pipeline piece,
// small enough to stay in a core's L2 on the machines we run on, as a piece does while it is
// reduced (the staging ring keeps it in cache, communicator.h).
inline constexpr uint64_t kCoreProbeBytes = 256 << 10;

struct CoreRates {
  double reduce_GBps = 0;  // dst = dst op src, in GB/s of dst (1e9 B/s)
  double copy_GBps = 0;    // memcpy, in GB/s copied
};

// On this process's core, now: the median of repetitions of reduce_into (type, op) and of
// memcpy over kCoreProbeBytes. Local; about 20 ms.
CoreRates measure_core_rates(DataType type, ReduceOp op);

// One ping-pong figure between two ranks.
struct LinkPoint {
  std::string link_class;  // "same host" or "across hosts"
  int rank_a = 0, rank_b = 0;
  uint64_t bytes = 0;
  double one_way_us = 0;   // half the median round trip
  int round_trips = 0;     // timed ones, after a warm-up
};

// The sizes each class is measured at.
const std::vector<uint64_t>& link_probe_bytes();

// Ping-pong through our transport between rank 0 and its first partner of each class present (the
// first other rank on rank 0's host, the first rank on another host) at link_probe_bytes(), while
// every other rank waits. Collective: every rank calls it; rank 0 returns the points, the others
// nothing.
std::vector<LinkPoint> measure_link_classes(Communicator& comm);

// The points grouped by link class, in the order measured: what model::fit_link_classes() fits.
std::vector<model::LinkClassSamples> link_class_samples(const std::vector<LinkPoint>& points);

}  // namespace ringbench
