#include "machine_probes.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

#include "statistics/order_statistics.h"
#include "transport/communicator.h"
#include "transport/copy_distance.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCoreProbeRepetitions = 21;
constexpr int kWarmupRoundTrips = 3;
constexpr int kTimedRoundTrips = 15;

// GB/s of `bytes` per call of `body`: the median over repetitions, after one untimed call.
template <typename Body>
double median_rate_GBps(uint64_t bytes, Body body) {
  body();
  std::vector<double> seconds;
  for (int i = 0; i < kCoreProbeRepetitions; ++i) {
    const auto start = Clock::now();
    body();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  const double median = stats::median(seconds);
  return median > 0 ? static_cast<double>(bytes) / median / 1e9 : 0;
}

// Rank 0's partner of each class: the first other rank on its host, the first on another.
std::vector<std::pair<std::string, int>> partners(const Communicator& comm) {
  const auto& cards = comm.peers();
  int same = -1, other = -1;
  for (int r = 1; r < comm.size(); ++r) {
    const bool here = cards[r].host.same_host(cards[0].host);
    if (here && same < 0) same = r;
    if (!here && other < 0) other = r;
  }
  std::vector<std::pair<std::string, int>> list;
  if (same > 0) list.emplace_back("same host", same);
  if (other > 0) list.emplace_back("across hosts", other);
  return list;
}

// Round trips of `bytes` between rank 0 and `partner`, each its own pair of steps; every rank
// calls it (one begin_collective for all), the two ends exchange and the rest return at once.
// Rank 0 returns each timed round trip's seconds.
std::vector<double> ping_pong(Communicator& comm, int partner, uint64_t bytes, std::vector<std::byte>& buffer) {
  comm.begin_collective();
  std::vector<double> seconds;
  if (comm.rank() != 0 && comm.rank() != partner) return seconds;
  const std::span<std::byte> payload(buffer.data(), bytes);
  const StepContext where{"link probe", "ping-pong", 0, 2 * (kWarmupRoundTrips + kTimedRoundTrips)};
  for (uint32_t trip = 0; trip < kWarmupRoundTrips + kTimedRoundTrips; ++trip) {
    const uint32_t ping = 2 * trip, pong = ping + 1;
    if (comm.rank() == 0) {
      SendSpec send{partner, ping, payload};
      RecvSpec recv{partner, pong, payload};
      const auto start = Clock::now();
      comm.exchange({&send, 1}, {&recv, 1}, where);
      if (trip >= kWarmupRoundTrips) seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    } else {
      RecvSpec recv{0, ping, payload};
      comm.exchange({}, {&recv, 1}, where);
      SendSpec send{0, pong, payload};
      comm.exchange({&send, 1}, {}, where);
    }
  }
  return seconds;
}

}  // namespace

CoreRates measure_core_rates(DataType type, ReduceOp op) {
  const size_t count = kCoreProbeBytes / element_size(type);
  // Zeros: a value of every dtype, and no op turns them into a slow special value (denormal, NaN).
  // The destination half a page from the source, as the transport places its copies
  // (transport/copy_distance.h): the rate of those copies, not of wherever malloc put two vectors.
  std::vector<std::byte> dst_storage(with_copy_slack(kCoreProbeBytes)), src(kCoreProbeBytes);
  std::byte* const dst = half_page_from(dst_storage.data(), src.data());
  CoreRates rates;
  rates.reduce_GBps = median_rate_GBps(kCoreProbeBytes, [&] { reduce_into(type, op, dst, src.data(), count); });
  rates.copy_GBps = median_rate_GBps(kCoreProbeBytes, [&] {
    std::memcpy(dst, src.data(), kCoreProbeBytes);
    asm volatile("" : : "r"(dst) : "memory");  // the copy is used: not a dead store
  });
  return rates;
}

const std::vector<uint64_t>& link_probe_bytes() {
  static const std::vector<uint64_t> sizes = {64, 1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20};
  return sizes;
}

std::vector<LinkPoint> measure_link_classes(Communicator& comm) {
  std::vector<LinkPoint> points;
  std::vector<std::byte> buffer(link_probe_bytes().back());
  for (const auto& [link_class, partner] : partners(comm))
    for (uint64_t bytes : link_probe_bytes()) {
      const std::vector<double> seconds = ping_pong(comm, partner, bytes, buffer);
      if (comm.rank() == 0)
        points.push_back({link_class, 0, partner, bytes, stats::median(seconds) / 2 * 1e6, kTimedRoundTrips});
    }
  comm.barrier();
  return points;
}

std::vector<model::LinkClassSamples> link_class_samples(const std::vector<LinkPoint>& points) {
  std::vector<model::LinkClassSamples> classes;
  for (const LinkPoint& p : points) {
    auto it = std::find_if(classes.begin(), classes.end(), [&](const auto& c) { return c.link_class == p.link_class; });
    if (it == classes.end()) {
      classes.push_back({p.link_class, {}});
      it = classes.end() - 1;
    }
    it->samples.push_back({p.bytes, p.one_way_us});
  }
  return classes;
}

}  // namespace ringbench
