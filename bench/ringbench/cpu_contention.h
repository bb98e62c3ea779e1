#pragma once
// Did other processes take CPU from this job while a size was timed?
//
// A confidence interval covers the variation among the calls it saw. When another process keeps
// the cores busy (a build, a CPU hog), every call is slowed alike: the interval can be tight
// around a median far from this machine's, a confident wrong figure. The calls cannot show that;
// the kernel can. Every rank reads its own CPU time (getrusage) and its host's busy CPU time
// (/proc/stat) at the end of every size; rank 0, per host, counts the busy time the job's ranks
// did not use as foreign. /proc/stat counts whole clock ticks (10 ms at 100 Hz), far coarser than
// a small size's calls, so the share is taken over a trailing window of at least
// kContentionWindowSeconds ending with the size (earlier sizes included): a load that lasts, the
// kind that shifts a figure, shows in it.

#include <span>
#include <vector>

namespace ringbench {

// One rank's readings since its meter started (trivially copyable: it crosses the wire as bytes).
struct CpuReading {
  double own_cpu_seconds = 0;    // this process, user + system
  double host_busy_seconds = 0;  // every CPU of the host, not idle (/proc/stat)
  double wall_seconds = 0;
  int host_cpus = 0;             // CPUs /proc/stat lists
  double tick_seconds = 0.01;    // /proc/stat's resolution
  int host = 0;                  // host index (host_placement())
};

class CpuMeter {
 public:
  explicit CpuMeter(int host);
  CpuReading read() const;  // since construction

 private:
  CpuReading start_;
};

// The largest share over hosts of a host's CPU capacity (CPUs x wall time) between two readings
// of every rank that went to processes other than the job's ranks on it, as a lower bound: two
// clock ticks per CPU get the benefit of the doubt. 0 where /proc/stat could not be read.
double foreign_cpu_share(std::span<const CpuReading> from, std::span<const CpuReading> to);

inline constexpr double kContentionWindowSeconds = 0.25;
// Above this share a size's interval is withheld: other processes slowed every call alike.
inline constexpr double kForeignCpuShareLimit = 0.10;

// Rank 0's memory of every size's readings, to take the trailing window from.
class ContentionHistory {
 public:
  // Every rank's reading at the end of a size, by rank; returns the foreign share over the
  // shortest trailing window of at least kContentionWindowSeconds (or since the start).
  double add(std::vector<CpuReading> readings);

 private:
  std::vector<std::vector<CpuReading>> history_;
};

}  // namespace ringbench
