#include "exchange_rate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "error.h"
#include "median.h"

namespace ringbench::model {

namespace {

// How many ranks' work each core of a host carries: max(1, R / C).
double core_sharing(int ranks_per_host, int cores_per_host, const char* what) {
  if (ranks_per_host < 1 || cores_per_host < 1)
    throw InputError(fmt::format("exchange {} rate: {} rank(s) on {} core(s) per host; both must be at least 1", what,
                                 ranks_per_host, cores_per_host));
  return std::max(1.0, static_cast<double>(ranks_per_host) / cores_per_host);
}

// One point per size, ascending: the median of its rates, capped where cap > 0.
std::vector<RatePoint> median_by_size(std::map<uint64_t, std::vector<double>>& by_size, double cap_GBps) {
  std::vector<RatePoint> rates;
  for (auto& [bytes, GBps] : by_size) {
    const double rate = median(std::move(GBps));
    rates.push_back({bytes, cap_GBps > 0 ? std::min(rate, cap_GBps) : rate});
  }
  return rates;
}

}  // namespace

std::vector<RatePoint> exchange_copy_rates(std::span<const ExchangeSample> samples, int ranks_per_host,
                                           int cores_per_host, double copy_cap_GBps, double hop_latency_us) {
  const double sharing = core_sharing(ranks_per_host, cores_per_host, "copy");
  std::map<uint64_t, std::vector<double>> by_size;
  for (const ExchangeSample& s : samples) {
    const double copying_us = s.chunk_us - std::max(0.0, hop_latency_us);
    if (s.reduces || s.chunk_bytes == 0 || !(copying_us > 0) || !std::isfinite(copying_us)) continue;
    by_size[s.chunk_bytes].push_back(2.0 * static_cast<double>(s.chunk_bytes) * sharing / (copying_us * 1e3));
  }
  return median_by_size(by_size, copy_cap_GBps);
}

std::vector<RatePoint> exchange_reduce_rates(std::span<const ExchangeSample> samples, int ranks_per_host,
                                             int cores_per_host, double reduce_cap_GBps) {
  const double sharing = core_sharing(ranks_per_host, cores_per_host, "reduce");
  std::map<uint64_t, std::vector<double>> by_size;
  std::map<uint64_t, double> last_plain_us;
  for (const ExchangeSample& s : samples) {
    if (s.chunk_bytes == 0 || !std::isfinite(s.chunk_us)) continue;
    if (!s.reduces) {
      last_plain_us[s.chunk_bytes] = s.chunk_us;
      continue;
    }
    const auto plain = last_plain_us.find(s.chunk_bytes);
    if (plain == last_plain_us.end()) continue;
    const double reducing_us = s.chunk_us - plain->second;
    if (reducing_us > 0)
      by_size[s.chunk_bytes].push_back(static_cast<double>(s.chunk_bytes) * sharing / (reducing_us * 1e3));
    else if (reduce_cap_GBps > 0)
      by_size[s.chunk_bytes].push_back(reduce_cap_GBps);
  }
  return median_by_size(by_size, reduce_cap_GBps);
}

double rate_at(std::span<const RatePoint> rates, uint64_t bytes) {
  if (rates.empty()) return 0;
  if (bytes <= rates.front().bytes) return rates.front().GBps;
  if (bytes >= rates.back().bytes) return rates.back().GBps;
  const auto upper = std::upper_bound(rates.begin(), rates.end(), bytes,
                                      [](uint64_t b, const RatePoint& p) { return b < p.bytes; });
  const RatePoint& hi = *upper;
  const RatePoint& lo = *(upper - 1);
  const double f = std::log(static_cast<double>(bytes) / static_cast<double>(lo.bytes)) /
                   std::log(static_cast<double>(hi.bytes) / static_cast<double>(lo.bytes));
  return lo.GBps + f * (hi.GBps - lo.GBps);
}

}  // namespace ringbench::model
