#include "run_conditions.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "statistics/collective_call_time.h"
#include "statistics/order_statistics.h"
#include "transport/algorithm.h"
#include "transport/communicator.h"

namespace ringbench {

namespace {

std::optional<double> one_minute_load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (in >> load) return load;
  return std::nullopt;
}

// Repetitions of the skew measurement: enough for a stable median, cheap next to any size.
constexpr int kSkewRepetitions = 21;

}  // namespace

RunConditions measure_run_conditions(Communicator& comm) {
  RunConditions conditions;
  conditions.load_average = one_minute_load_average();  // before our own probes load the machine
  conditions.cores = comm.host_cores();
  const std::vector<int> hosts = host_placement(comm);
  conditions.ranks_on_host = static_cast<int>(std::count(hosts.begin(), hosts.end(), hosts[comm.rank()]));
  conditions.ranks_sharing_cores = comm.ranks_sharing_cores();
  conditions.skew_from_shared_clock = std::all_of(hosts.begin(), hosts.end(), [&](int h) { return h == hosts[0]; });

  conditions.skew_repetitions = kSkewRepetitions;
  std::vector<stats::CallStamp> stamps(kSkewRepetitions);
  for (auto& stamp : stamps) {
    comm.barrier();
    stamp.start_ns = stats::monotonic_ns();  // the moment this rank left the barrier
    comm.barrier();
    stamp.end_ns = conditions.skew_from_shared_clock ? stamp.start_ns : stats::monotonic_ns();
  }
  const auto gathered = comm.gather(std::as_bytes(std::span(stamps)), 0);
  if (comm.rank() != 0) return conditions;
  std::vector<std::vector<stats::CallStamp>> by_rank(gathered.size(), std::vector<stats::CallStamp>(stamps.size()));
  for (size_t rank = 0; rank < gathered.size(); ++rank)
    std::memcpy(by_rank[rank].data(), gathered[rank].data(), stamps.size() * sizeof(stats::CallStamp));
  std::vector<double> skews(stamps.size());
  for (size_t k = 0; k < stamps.size(); ++k) {
    int64_t first = by_rank[0][k].start_ns, last = first, longest = 0;
    for (const auto& rank : by_rank) {
      first = std::min(first, rank[k].start_ns);
      last = std::max(last, rank[k].start_ns);
      longest = std::max(longest, rank[k].end_ns - rank[k].start_ns);
    }
    skews[k] = static_cast<double>(conditions.skew_from_shared_clock ? last - first : longest) / 1e3;
  }
  conditions.barrier_skew_us = stats::median(skews);
  return conditions;
}

std::string describe_load(const RunConditions& c) {
  const int elsewhere = c.ranks_sharing_cores - c.ranks_on_host;
  return fmt::format("{} rank(s) on {} core(s) of rank 0's host{} ({:.1f} per core), load average {} at start",
                     c.ranks_on_host, c.cores,
                     elsewhere > 0 ? fmt::format(", and {} more of other hosts on its kernel sharing them", elsewhere) : "",
                     c.ranks_per_core(),
                     c.load_average ? fmt::format("{:.2f}", *c.load_average) : std::string("unknown"));
}

}  // namespace ringbench
