#pragma once
// Stalls a spinning thread sees: time it did not run although it never slept. The thread reads
// CLOCK_MONOTONIC in a tight loop (tens of nanoseconds apart); a gap of a millisecond or more
// between two readings is time it was not running. Inside a virtual machine the guest's own
// scheduler does not see all of it: a host that caps the machine's CPU time stops its vCPUs
// while the guest believes the thread ran on (on the 2-vCPU AMD EPYC VM: gaps up to 100 ms,
// 2.4-4.5% of 10 s, with both vCPUs busy and none with one, and no steal time reported).

#include <chrono>
#include <cstdint>

namespace ringbench::stall_probe {

// A gap at least this long counts as a stall: far beyond a clock read or a timer interrupt, short
// enough to see a scheduler's time slice.
inline constexpr std::chrono::microseconds kStallThreshold{1000};
// Stalls at least this long are counted apart: a host's CPU-cap period is tens of milliseconds.
inline constexpr std::chrono::milliseconds kLongStall{10};

struct StallRecord {
  uint64_t stalls = 0;        // gaps >= kStallThreshold
  uint64_t long_stalls = 0;   // gaps >= kLongStall
  double longest_ms = 0;
  // Summed in whole nanoseconds, as the clock gives them: summed as milliseconds in a double, a
  // watch of 50 ms read 49.999... after its millions of gaps.
  std::chrono::nanoseconds lost{0};     // the stalls' time
  std::chrono::nanoseconds watched{0};  // the time the thread spun, stalls included

  double lost_ms() const { return std::chrono::duration<double, std::milli>(lost).count(); }
  double watched_ms() const { return std::chrono::duration<double, std::milli>(watched).count(); }

  // Adds one gap between two consecutive clock readings.
  void note_gap(std::chrono::nanoseconds gap);
  // Another thread's record, watched at the same time: counts and time add, the longest is the max.
  void merge(const StallRecord& other);
  double lost_share() const { return watched.count() > 0 ? lost_ms() / watched_ms() : 0; }
};

// Spins on this thread for `duration`, reading the clock, and returns what it saw.
StallRecord watch_for_stalls(std::chrono::nanoseconds duration);

}  // namespace ringbench::stall_probe
