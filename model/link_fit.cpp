#include "link_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "error.h"
#include "median.h"

namespace ringbench::model {
namespace {

// The formula's three terms as columns: a constant (latency), the piece count (overhead) and the
// size in kB (1 / bandwidth in GB/s is then microseconds per kB).
constexpr size_t kLatency = 0, kOverhead = 1, kPerKB = 2, kTerms = 3;
using Terms = std::array<double, kTerms>;

Terms terms(uint64_t bytes, uint64_t piece_bytes) {
  return {1.0, static_cast<double>(message_pieces(bytes, piece_bytes)), static_cast<double>(bytes) / 1e3};
}

// Minimises sum over used samples of ((terms . coef) / y - 1)^2 over the free terms (the others
// stay 0): the normal equations, by Gaussian elimination with partial pivoting. Returns false when
// they are singular (the samples cannot tell the free terms apart).
bool least_squares(std::span<const LinkSample> samples, const std::vector<bool>& used, uint64_t piece_bytes,
                   const std::array<bool, kTerms>& free, Terms& coef) {
  std::vector<size_t> cols;
  for (size_t j = 0; j < kTerms; ++j)
    if (free[j]) cols.push_back(j);
  const size_t k = cols.size();
  std::vector<std::vector<double>> a(k, std::vector<double>(k + 1, 0.0));
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!used[i]) continue;
    const Terms t = terms(samples[i].bytes, piece_bytes);
    const double w = 1.0 / samples[i].one_way_us;
    for (size_t r = 0; r < k; ++r) {
      for (size_t c = 0; c < k; ++c) a[r][c] += t[cols[r]] * w * t[cols[c]] * w;
      a[r][k] += t[cols[r]] * w;  // target y / y = 1
    }
  }
  for (size_t p = 0; p < k; ++p) {
    size_t best = p;
    for (size_t r = p + 1; r < k; ++r)
      if (std::abs(a[r][p]) > std::abs(a[best][p])) best = r;
    std::swap(a[p], a[best]);
    if (std::abs(a[p][p]) < 1e-12 * std::max(1.0, std::abs(a[0][0]))) return false;
    for (size_t r = 0; r < k; ++r) {
      if (r == p) continue;
      const double f = a[r][p] / a[p][p];
      for (size_t c = p; c <= k; ++c) a[r][c] -= f * a[p][c];
    }
  }
  coef = {0.0, 0.0, 0.0};
  for (size_t r = 0; r < k; ++r) coef[cols[r]] = a[r][k] / a[r][r];
  return true;
}

// Fits with the free terms, then fixes at zero any term that came out negative (latency and
// overhead cannot be; the overhead is also dropped when the samples cannot separate it).
Terms fit_nonnegative(std::span<const LinkSample> samples, const std::vector<bool>& used, uint64_t piece_bytes) {
  std::array<bool, kTerms> free = {true, true, true};
  Terms coef{};
  for (int round = 0; round < 3; ++round) {
    if (!least_squares(samples, used, piece_bytes, free, coef)) {
      if (!free[kOverhead]) break;
      free[kOverhead] = false;
      continue;
    }
    const bool latency_negative = free[kLatency] && coef[kLatency] < 0;
    const bool overhead_negative = free[kOverhead] && coef[kOverhead] < 0;
    if (!latency_negative && !overhead_negative) break;
    if (overhead_negative) free[kOverhead] = false;  // the weaker term goes first
    else free[kLatency] = false;
  }
  return coef;
}

// Index of the used sample whose residual stands out, or -1: beyond 4 robust standard deviations
// (1.4826 x the median absolute residual) and beyond 5%, with at least 3 points to spare.
long outlier(const std::vector<double>& residual, const std::vector<bool>& used) {
  std::vector<double> abs_used;
  long worst = -1;
  for (size_t i = 0; i < residual.size(); ++i) {
    if (!used[i]) continue;
    abs_used.push_back(std::abs(residual[i]));
    if (worst < 0 || std::abs(residual[i]) > std::abs(residual[static_cast<size_t>(worst)])) worst = static_cast<long>(i);
  }
  if (abs_used.size() < kTerms + 3) return -1;
  const double limit = std::max(0.05, 4 * 1.4826 * median(abs_used));
  return std::abs(residual[static_cast<size_t>(worst)]) > limit ? worst : -1;
}

// A size that took more than kDescheduledRatio times as long as a larger size on the same link was
// descheduled (a 64 B ping-pong of 10 ms beside a 256 KiB one of 51 us, on a loaded host): a
// message cannot be slower for being smaller, so such points are dropped before fitting, however
// many there are. Twice, not a few percent: at small sizes noise alone reorders the times.
constexpr double kDescheduledRatio = 2.0;

std::vector<bool> not_descheduled(std::span<const LinkSample> samples) {
  std::vector<bool> used(samples.size(), true);
  for (size_t i = 0; i < samples.size(); ++i)
    for (const auto& larger : samples)
      if (larger.bytes > samples[i].bytes && samples[i].one_way_us > kDescheduledRatio * larger.one_way_us) used[i] = false;
  return used;
}

void check_samples(std::span<const LinkSample> samples, const std::string& link_class) {
  std::set<uint64_t> sizes;
  for (const auto& s : samples) {
    if (!(s.one_way_us > 0) || !std::isfinite(s.one_way_us))
      throw InputError(fmt::format("link class \"{}\": {} bytes has time {} us, not a positive number", link_class,
                                   s.bytes, s.one_way_us));
    sizes.insert(s.bytes);
  }
  if (sizes.size() < 2)
    throw InputError(fmt::format("link class \"{}\": {} distinct size(s), a fit needs at least 2", link_class, sizes.size()));
}

}  // namespace

uint64_t message_pieces(uint64_t bytes, uint64_t piece_bytes) {
  if (piece_bytes == 0 || bytes <= piece_bytes) return 1;
  return (bytes + piece_bytes - 1) / piece_bytes;
}

double message_time_us(const LinkParameters& link, uint64_t bytes, uint64_t piece_bytes) {
  return link.latency_us + static_cast<double>(message_pieces(bytes, piece_bytes)) * link.message_overhead_us +
         static_cast<double>(bytes) / (link.bandwidth_GBps * 1e3);
}

LinkFit fit_link(std::span<const LinkSample> samples, uint64_t piece_bytes, const std::string& link_class) {
  check_samples(samples, link_class);
  LinkFit fit;
  fit.used = not_descheduled(samples);
  std::set<uint64_t> kept;
  for (size_t i = 0; i < samples.size(); ++i)
    if (fit.used[i]) kept.insert(samples[i].bytes);
  if (kept.size() < 2)
    throw InputError(fmt::format("link class \"{}\": {} size(s) left once the descheduled ones (slower than a larger "
                                 "size by {}x) are dropped, a fit needs at least 2",
                                 link_class, kept.size(), kDescheduledRatio));
  for (;;) {
    const Terms coef = fit_nonnegative(samples, fit.used, piece_bytes);
    if (!(coef[kPerKB] > 0))
      throw InputError(fmt::format("link class \"{}\": the times do not grow with size, so no bandwidth can be fitted",
                                   link_class));
    fit.link = {coef[kLatency], 1.0 / coef[kPerKB], coef[kOverhead]};
    fit.fitted_us.clear();
    fit.residual.clear();
    for (const auto& s : samples) {
      fit.fitted_us.push_back(message_time_us(fit.link, s.bytes, piece_bytes));
      fit.residual.push_back(fit.fitted_us.back() / s.one_way_us - 1);
    }
    const long drop = outlier(fit.residual, fit.used);
    if (drop < 0) return fit;
    fit.used[static_cast<size_t>(drop)] = false;
  }
}

namespace {

// The used samples of one segment, smallest first.
std::vector<LinkSample> segment(std::span<const LinkSample> samples, const std::vector<bool>& used,
                                bool (*in_segment)(uint64_t bytes)) {
  std::vector<LinkSample> out;
  for (size_t i = 0; i < samples.size(); ++i)
    if (used[i] && in_segment(samples[i].bytes)) out.push_back(samples[i]);
  std::sort(out.begin(), out.end(), [](const LinkSample& a, const LinkSample& b) { return a.bytes < b.bytes; });
  return out;
}

// The least-squares slope of time over bytes, in us per byte; 0 when the sizes are all alike.
double slope_us_per_byte(const std::vector<LinkSample>& points) {
  double mean_x = 0, mean_y = 0;
  for (const auto& p : points) mean_x += static_cast<double>(p.bytes), mean_y += p.one_way_us;
  mean_x /= static_cast<double>(points.size()), mean_y /= static_cast<double>(points.size());
  double sxy = 0, sxx = 0;
  for (const auto& p : points) {
    const double dx = static_cast<double>(p.bytes) - mean_x;
    sxy += dx * (p.one_way_us - mean_y), sxx += dx * dx;
  }
  return sxx > 0 ? sxy / sxx : 0;
}

}  // namespace

LinkFit fit_link_two_segment(std::span<const LinkSample> samples, const std::string& link_class) {
  check_samples(samples, link_class);
  LinkFit fit;
  fit.used = not_descheduled(samples);
  std::vector<LinkSample> all = segment(samples, fit.used, [](uint64_t) { return true; });
  std::vector<LinkSample> large = segment(samples, fit.used, [](uint64_t b) { return b >= kLargeSegmentBytes; });
  std::vector<LinkSample> small = segment(samples, fit.used, [](uint64_t b) { return b <= kSmallSegmentBytes; });
  if (large.size() < 2 || large.front().bytes == large.back().bytes)
    large.assign(all.end() - std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(all.size())), all.end());
  if (small.empty() && !all.empty()) small.push_back(all.front());
  const double us_per_byte = large.size() >= 2 ? slope_us_per_byte(large) : 0;
  if (!(us_per_byte > 0))
    throw InputError(fmt::format("link class \"{}\": the large sizes' times do not grow with size, so no bandwidth "
                                 "can be fitted",
                                 link_class));
  std::vector<double> latencies;
  for (const auto& s : small) latencies.push_back(s.one_way_us - static_cast<double>(s.bytes) * us_per_byte);
  fit.link = {std::max(0.0, median(latencies)), 1e-3 / us_per_byte, 0.0};
  for (const auto& s : samples) {
    fit.fitted_us.push_back(message_time_us(fit.link, s.bytes, 0));
    fit.residual.push_back(fit.fitted_us.back() / s.one_way_us - 1);
  }
  return fit;
}

std::vector<LinkClassFit> fit_link_classes(std::span<const LinkClassSamples> classes) {
  std::vector<LinkClassFit> fits;
  for (const auto& c : classes) fits.push_back({c.link_class, c.samples, fit_link_two_segment(c.samples, c.link_class)});
  return fits;
}

}  // namespace ringbench::model
