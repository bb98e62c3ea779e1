#include "segment_choice.h"

#include <algorithm>

#include <fmt/format.h>

#include "byte_size.h"
#include "cache_sizes.h"
#include "model/error.h"
#include "spec/algorithm_spec.h"
#include "spec/segments.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/communicator.h"

namespace ringbench {
namespace {

// The across-hosts fit where there is one, else the same-host one; none when the fit fails.
SegmentLink fitted_link(const std::vector<LinkPoint>& points) {
  std::vector<model::LinkClassFit> fits;
  try {
    fits = model::fit_link_classes(link_class_samples(points));
  } catch (const model::InputError&) {
    return {};
  }
  const auto across = std::find_if(fits.begin(), fits.end(), [](const auto& f) { return f.link_class == "across hosts"; });
  const model::LinkClassFit* fit = across != fits.end() ? &*across : fits.empty() ? nullptr : &fits.front();
  if (fit == nullptr) return {};
  // Only a network has a shaper's burst. On one host the large messages run slower per byte for
  // the caches (a 256 KiB ping-pong beats the slope of 256 KiB-4 MiB by about 120 KB at N = 4 on
  // the 2-core AMD VM), which a stream of small segments does keep.
  const bool network = fit->link_class == "across hosts";
  return {fit->link_class, fit->fit.link.latency_us, fit->fit.link.bandwidth_GBps,
          network ? passed_burst_bytes(fit->samples, fit->fit.link.bandwidth_GBps) : 0.0};
}

// The smallest power of two at or above `bytes`, within the segments --segment accepts.
uint64_t power_of_two_at_least(double bytes) {
  uint64_t segment = spec::kSmallestSegmentBytes;
  while (static_cast<double>(segment) < bytes && segment < kMaxSegmentBytes) segment <<= 1;
  return segment;
}

}  // namespace

double passed_burst_bytes(std::span<const model::LinkSample> samples, double bandwidth_GBps) {
  std::vector<double> beyond;
  for (const auto& s : samples)
    if (s.bytes >= model::kLargeSegmentBytes) beyond.push_back(static_cast<double>(s.bytes) - s.one_way_us * bandwidth_GBps * 1e3);
  if (beyond.empty() || !(bandwidth_GBps > 0)) return 0;
  std::sort(beyond.begin(), beyond.end());
  const size_t n = beyond.size();
  const double median = n % 2 == 1 ? beyond[n / 2] : (beyond[n / 2 - 1] + beyond[n / 2]) / 2;
  return std::max(0.0, median);
}

SegmentLink agree_segment_link(Communicator& comm, const std::vector<LinkPoint>& rank0_points, bool measure) {
  if (!measure || comm.size() == 1) return {};
  SegmentLink link;
  if (comm.rank() == 0) link = fitted_link(rank0_points);
  // The figures are non-negative, so a max-reduction hands rank 0's to every rank.
  double figures[4] = {link.latency_us, link.bandwidth_GBps, link.link_class == "across hosts" ? 1.0 : 0.0,
                       link.burst_bytes};
  CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(figures)), 4, 0};
  ring_allreduce().run(comm, call);
  link.latency_us = figures[0], link.bandwidth_GBps = figures[1], link.burst_bytes = figures[3];
  if (link.measured()) link.link_class = figures[2] > 0 ? "across hosts" : "same host";
  return link;
}

uint64_t RingRounds::segment_for(int world_size, uint64_t message_bytes) const {
  if (!core_for_every_rank || core_cache_bytes == 0 || shared_cache_bytes == 0 || world_size < 2) return 0;
  if (static_cast<uint64_t>(ranks_sharing_cache) * message_bytes < shared_cache_bytes) return 0;
  const uint64_t chunk = (message_bytes + static_cast<uint64_t>(world_size) - 1) / static_cast<uint64_t>(world_size);
  return chunk > core_cache_bytes ? core_cache_bytes : 0;
}

namespace {

// This host's caches (cache_sizes.h) and its ranks' sharing of cores.
RingRounds this_hosts_caches(const Communicator& comm) {
  const CacheSizes caches = read_cache_sizes();
  return {caches.core_bytes, caches.last_level_bytes, comm.ranks_sharing_cores(), !comm.ranks_exceed_cores()};
}

}  // namespace

RingRounds agree_ring_rounds(Communicator& comm) {
  RingRounds mine = this_hosts_caches(comm);
  if (comm.size() == 1) return mine;
  // Non-negative figures, so one max-reduction hands rank 0's caches to every rank and takes the
  // worst host's sharing.
  const bool root = comm.rank() == 0;
  double figures[4] = {root ? static_cast<double>(mine.core_cache_bytes) : 0.0,
                       root ? static_cast<double>(mine.shared_cache_bytes) : 0.0,
                       static_cast<double>(mine.ranks_sharing_cache), mine.core_for_every_rank ? 0.0 : 1.0};
  CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(figures)), 4, 0};
  ring_allreduce().run(comm, call);
  return {static_cast<uint64_t>(figures[0]), static_cast<uint64_t>(figures[1]), static_cast<int>(figures[2]),
          figures[3] == 0.0};
}

uint64_t SegmentChoice::bytes_for(const Algorithm& algorithm, int world_size, uint64_t message_bytes) const {
  const spec::AlgorithmSpec* spec = spec::find_algorithm_spec(to_string(algorithm.collective()), algorithm.name());
  const uint64_t whole = std::max<uint64_t>(message_bytes, 1);
  if (spec == &spec::ring_allreduce()) {
    const uint64_t round = pinned_ != 0 ? pinned_ : rounds_.segment_for(world_size, message_bytes);
    return round != 0 && round < whole ? round : 0;
  }
  if (spec == nullptr || !spec::is_pipelined(*spec)) return 0;
  if (pinned_ != 0) return std::min(pinned_, whole);
  if (!link_.measured()) return std::min<uint64_t>(spec::kDefaultSegmentBytes, whole);
  const uint64_t chosen =
      spec::chosen_segment_bytes(*spec, world_size, message_bytes, link_.latency_us, link_.bandwidth_GBps);
  return std::min(std::max(chosen, burst_floor()), whole);
}

uint64_t SegmentChoice::burst_floor() const {
  return link_.burst_bytes > spec::kSmallestSegmentBytes ? power_of_two_at_least(link_.burst_bytes) : 0;
}

std::string SegmentChoice::describe_rounds() const {
  if (!rounds_.core_for_every_rank) return "; the ring all-reduce in one round (ranks share cores)";
  if (rounds_.core_cache_bytes == 0 || rounds_.shared_cache_bytes == 0)
    return "; the ring all-reduce in one round (cache sizes unknown)";
  return fmt::format("; the ring all-reduce in rounds of {} (a core's L2) where {} rank(s) per host x size reach the "
                     "{} last-level cache",
                     format_byte_size(rounds_.core_cache_bytes), rounds_.ranks_sharing_cache,
                     format_byte_size(rounds_.shared_cache_bytes));
}

std::string SegmentChoice::describe() const {
  if (pinned_ != 0)
    return fmt::format("{} for tree and pipelined-chain, and the ring all-reduce's rounds, at every size (--segment)",
                       format_byte_size(pinned_));
  if (!link_.measured())
    return fmt::format("{}, the default (no link test to choose from){}", format_byte_size(spec::kDefaultSegmentBytes),
                       describe_rounds());
  const std::string floor =
      burst_floor() == 0 ? std::string()
                         : fmt::format(", at least {}: the link passed {:.0f} KB of each large message faster than its "
                                       "rate (a shaper's burst), which a stream of smaller segments would not get",
                                       format_byte_size(burst_floor()), link_.burst_bytes / 1e3);
  return fmt::format("auto: per size and algorithm, sqrt(size x {:.1f} us x {:.3f} GB/s / (fill steps + 1)) ({} link), "
                     "a power of two from {} to the whole message{}{}",
                     link_.latency_us, link_.bandwidth_GBps, link_.link_class,
                     format_byte_size(spec::kSmallestSegmentBytes), floor, describe_rounds());
}

}  // namespace ringbench
