#pragma once
// What the machine was like when the run started, for the header: a figure measured on a busy or
// oversubscribed host is not the figure of a quiet one, and a reader should know which it is.
//
//   ranks per core   ranks sharing rank 0's cores / those cores: the ranks of its host, and those
//                    of other network namespaces on the same kernel (namespace hosts, containers)
//   load average     the kernel's 1-minute load average at start (/proc/loadavg)
//   barrier skew     how far apart ranks leave a barrier: the part of a small message's time that
//                    is synchronisation, not the collective (osu-style timing starts every call
//                    right after a barrier)

#include <optional>
#include <string>

namespace ringbench {

class Communicator;

struct RunConditions {
  int ranks_on_host = 1;
  int ranks_sharing_cores = 1;  // ranks_on_host and those of other hosts on rank 0's kernel
  int cores = 1;
  std::optional<double> load_average;  // empty where /proc/loadavg cannot be read
  double barrier_skew_us = 0;          // median over skew_repetitions barriers
  int skew_repetitions = 0;
  bool skew_from_shared_clock = true;  // false: ranks on several hosts, an upper bound (see below)

  double ranks_per_core() const { return static_cast<double>(ranks_sharing_cores) / cores; }
};

// Collective: every rank calls it; the result is meaningful on rank 0.
// On one host, the skew is max - min over ranks of the moment each left a barrier (one clock).
// Across hosts, clocks differ, so it is the slowest rank's time for an empty barrier-to-barrier
// call: an upper bound on the skew.
RunConditions measure_run_conditions(Communicator& comm);

// "4 ranks on 2 cores (2.0 per core), load average 1.23 at start"
std::string describe_load(const RunConditions& conditions);

}  // namespace ringbench
