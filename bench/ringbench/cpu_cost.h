#pragma once
// What the timed calls cost the CPU, not only the clock: a rank's CPU seconds (user and system,
// every thread of the process) and context switches (voluntary and involuntary), from
// getrusage(RUSAGE_SELF) read right before and after each timed call. A user choosing a transport
// for a CPU-starved host wants this figure, and osu and nccl-tests do not report it.
//
// Per row, over the ranks: cpu_s_per_GB = CPU seconds summed over the ranks / GB of the
// collective's lower-bound bytes summed over the ranks (the same denominator for our rows and the
// mpi rows, whose own bytes are not counted); ctx_switches_per_call = switches summed over the
// ranks / calls. The mpi rows' figure includes their settling MPI_Barrier after each call.

#include <cstdint>

namespace ringbench {

struct ProcessCpu {
  double cpu_seconds = 0;         // user + system
  uint64_t context_switches = 0;  // voluntary + involuntary
};

ProcessCpu read_process_cpu();

inline ProcessCpu operator-(const ProcessCpu& after, const ProcessCpu& before) {
  return {after.cpu_seconds - before.cpu_seconds, after.context_switches - before.context_switches};
}

}  // namespace ringbench
