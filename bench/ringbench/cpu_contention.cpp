#include "cpu_contention.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace ringbench {

namespace {

// Busy seconds of every CPU since boot (user, nice, system, irq, softirq, steal: all but idle
// and iowait), and how many CPUs the file lists; {0, 0} if it cannot be read.
std::pair<double, int> host_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string line;
  double busy_ticks = 0;
  int cpus = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream fields(line.substr(4));
      double value = 0;
      for (int column = 0; column < 8 && fields >> value; ++column)
        if (column != 3 && column != 4) busy_ticks += value;  // idle, iowait
    } else if (line.rfind("cpu", 0) == 0) {
      ++cpus;
    }
  }
  return {busy_ticks / static_cast<double>(sysconf(_SC_CLK_TCK)), cpus};
}

double own_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

CpuMeter::CpuMeter(int host) {
  const auto [busy, cpus] = host_busy_seconds();
  start_ = {own_cpu_seconds(), busy, now_seconds(), cpus, 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK)), host};
}

CpuReading CpuMeter::read() const {
  const auto [busy, cpus] = host_busy_seconds();
  return {own_cpu_seconds() - start_.own_cpu_seconds, busy - start_.host_busy_seconds,
          now_seconds() - start_.wall_seconds, cpus, start_.tick_seconds, start_.host};
}

double foreign_cpu_share(std::span<const CpuReading> from, std::span<const CpuReading> to) {
  struct Host {
    size_t first = SIZE_MAX;  // its lowest rank: whose view of the host counts
    double ours = 0;
  };
  std::map<int, Host> hosts;
  for (size_t rank = 0; rank < to.size(); ++rank) {
    Host& h = hosts[to[rank].host];
    h.first = std::min(h.first, rank);
    h.ours += to[rank].own_cpu_seconds - (from.empty() ? 0 : from[rank].own_cpu_seconds);
  }
  double worst = 0;
  for (const auto& [index, h] : hosts) {
    const CpuReading& end = to[h.first];
    const CpuReading start = from.empty() ? CpuReading{} : from[h.first];
    const double capacity = end.host_cpus * (end.wall_seconds - start.wall_seconds);
    if (capacity <= 0) continue;
    const double busy = end.host_busy_seconds - start.host_busy_seconds;
    const double tick_margin = 2 * end.host_cpus * end.tick_seconds;
    worst = std::max(worst, (busy - h.ours - tick_margin) / capacity);
  }
  return worst;
}

double ContentionHistory::add(std::vector<CpuReading> readings) {
  // The latest earlier reading at least a window before this one (rank 0's wall clock decides).
  const std::vector<CpuReading>* from = nullptr;
  for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
    if (readings.front().wall_seconds - it->front().wall_seconds >= kContentionWindowSeconds) {
      from = &*it;
      break;
    }
  }
  const double share = foreign_cpu_share(from ? std::span<const CpuReading>(*from) : std::span<const CpuReading>(),
                                         readings);
  history_.push_back(std::move(readings));
  return share;
}

}  // namespace ringbench
