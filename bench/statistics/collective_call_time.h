#pragma once
// One collective call's time from every rank's own timestamps (ReproMPI's method: time each call
// on every rank and let the slowest rank define the call).
//
// On one host every rank reads the same CLOCK_MONOTONIC, so call k's time is
//   max_i(end_ik) - max_i(start_ik):
// from the moment the last rank entered the call (no rank can finish before every rank is in)
// to the moment the last rank left it. Measuring from the last entry keeps the barrier's exit
// skew (ranks leave the barrier at different times) out of the figure.
// Across hosts the clocks are not comparable, so it is max_i(end_ik - start_ik): the slowest
// rank's own duration, which includes its wait for the latest arrival.

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

namespace ringbench::stats {

// This rank's CLOCK_MONOTONIC now (steady_clock is CLOCK_MONOTONIC on Linux), in nanoseconds.
inline int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One rank's CLOCK_MONOTONIC readings around one call, in nanoseconds.
struct CallStamp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// by_rank[i][k] is rank i's stamp for call k; every rank has the same number of calls.
// Returns each call's time in microseconds.
std::vector<double> collective_call_times_us(std::span<const std::vector<CallStamp>> by_rank, bool shared_clock);

}  // namespace ringbench::stats
