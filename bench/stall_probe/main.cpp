// stall-probe: does this machine stop running its threads when every core is busy? Spins one
// thread on one core, then one thread per core, and reports the stalls each phase saw
// (stall_watch.h). Run it before trusting figures from a virtual machine: a host that caps the
// machine's CPU time stops its vCPUs for tens of milliseconds, and the guest reports no steal.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "stall_watch.h"

namespace {

using ringbench::stall_probe::StallRecord;
using ringbench::stall_probe::watch_for_stalls;

// Every core this process may run on (its affinity mask, as a container or taskset sets it).
int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// `threads` threads spinning at once for `seconds`, their records merged.
StallRecord watch_phase(int threads, double seconds) {
  const auto duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds));
  std::vector<StallRecord> records(static_cast<size_t>(threads));
  std::vector<std::thread> spinners;
  for (int t = 0; t < threads; ++t)
    spinners.emplace_back([&records, t, duration] { records[static_cast<size_t>(t)] = watch_for_stalls(duration); });
  for (std::thread& spinner : spinners) spinner.join();
  StallRecord merged;
  for (const StallRecord& record : records) merged.merge(record);
  return merged;
}

void print_row(const char* phase, int threads, double seconds, const StallRecord& r) {
  fmt::print("{:>12} {:>8} {:>8.1f} {:>12} {:>8} {:>12.1f} {:>8.2f}\n", phase, threads, seconds, r.stalls,
             r.long_stalls, r.longest_ms, 100 * r.lost_share());
}

std::string verdict(const StallRecord& one, const StallRecord& every, int cores) {
  const auto long_ms = ringbench::stall_probe::kLongStall.count();
  if (one.long_stalls > 0)
    return fmt::format("stalls even with one core busy, up to {:.0f} ms: other processes here, or a host that stops "
                       "this machine; every figure may include such stalls",
                       std::max(one.longest_ms, every.longest_ms));
  if (every.long_stalls > 0)
    return fmt::format("stalls of {} ms or more only with all {} cores busy, up to {:.0f} ms and {:.1f}% of the time: "
                       "the host caps this machine's CPU time; a run that keeps every core busy includes such stalls",
                       long_ms, cores, every.longest_ms, 100 * every.lost_share());
  if (every.stalls + one.stalls == 0) return "no stall in either phase";
  return fmt::format("no stall of {} ms or more in either phase (a host's cap may still show only after longer load: "
                     "rerun with more --seconds)",
                     long_ms);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"stall-probe: stalls a spinning thread sees, on one core and then on every core"};
  double seconds = 10;  // a cap showed within 10 s of load in 3 of 3 runs, within 8 s in 1 of 3
  int threads = usable_cores();
  app.add_option("-s,--seconds", seconds, "Seconds each phase spins")->check(CLI::Range(0.01, 600.0));
  app.add_option("-t,--threads", threads, "Threads of the every-core phase (default: the cores this process may use)")
      ->check(CLI::Range(1, 4096));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    std::fprintf(stderr, "stall-probe: error: %s\n", error.what());
    return 2;
  }
  fmt::print("# stall-probe: each thread reads CLOCK_MONOTONIC in a tight loop; a gap of {} us or more between two "
             "readings is a stall (time the thread did not run: another task here, or the host not running this "
             "vCPU, which the guest does not see)\n",
             ringbench::stall_probe::kStallThreshold.count());
  fmt::print("# columns: stalls >= {} us, long >= {} ms, lost = the stalls' share of the threads' time\n",
             ringbench::stall_probe::kStallThreshold.count(), ringbench::stall_probe::kLongStall.count());
  fmt::print("{:>12} {:>8} {:>8} {:>12} {:>8} {:>12} {:>8}\n", "# phase", "threads", "seconds", "stalls", "long",
             "longest(ms)", "lost(%)");
  std::fflush(stdout);
  const StallRecord one = watch_phase(1, seconds);
  print_row("one core", 1, seconds, one);
  std::fflush(stdout);
  const StallRecord every = watch_phase(threads, seconds);
  print_row("every core", threads, seconds, every);
  fmt::print("# verdict: {}\n", verdict(one, every, threads));
  return 0;
}
