#pragma once
// Pipelining segments for the tree all-reduce and the chain broadcast: the buffer is cut into
// segments (whole elements, at least one), so a rank forwards segment k while segment k+1 is still
// arriving. The size trades per-step latency (more segments, more steps) against pipeline fill
// (bigger segments, longer to fill the tree or chain), so no one constant fits every link and
// size: the segment is the caller's (PlanInput::segment_bytes), and pipeline_segment_bytes() is
// the one formula that chooses it from a link's latency and bandwidth. kDefaultSegmentBytes is
// what a plan uses when the caller names none, and what ringbench ran with before it chose
// (results files from then record no segment).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "schedule.h"

namespace ringbench::spec {

inline constexpr size_t kDefaultSegmentBytes = 64 * 1024;
// The formula's bounds: one page at least (a smaller segment is all header and wake-up), and never
// more than the message, which is then one segment, unpipelined.
inline constexpr size_t kSmallestSegmentBytes = 4 * 1024;

class Segments {
 public:
  // segment_bytes 0: kDefaultSegmentBytes.
  Segments(size_t count, size_t element_bytes, size_t segment_bytes = 0)
      : count_(count),
        per_(std::max<size_t>(1, (segment_bytes ? segment_bytes : kDefaultSegmentBytes) /
                                     std::max<size_t>(1, element_bytes))) {}
  // Number of segments; 0 for an empty buffer, which therefore sends nothing at all.
  long number() const { return static_cast<long>((count_ + per_ - 1) / per_); }
  bool valid(long k) const { return k >= 0 && k < number(); }
  Range range(long k) const {
    size_t offset = static_cast<size_t>(k) * per_;
    return {offset, std::min(per_, count_ - offset)};
  }

 private:
  size_t count_;
  size_t per_;
};

// The segment that makes a pipelined plan of `message_bytes` fastest on a link of `latency_us`
// and `bandwidth_GBps`, where `fill_steps` steps fill the pipeline (AlgorithmSpec::fill_steps).
// With s segments of b bytes (s b = S), the call takes about (s + fill) steps of latency + b /
// bandwidth each; its derivative in b vanishes at b = sqrt(S x latency x bandwidth / fill): fewer
// segments when a step's latency is dear against its bytes, more when the fill is long. Rounded to
// the nearest power of two (so a row's segment reads as 64K, 256K, ...), at least
// kSmallestSegmentBytes, at most the message; fill_steps 0, or no usable figure, gives one segment.
inline uint64_t pipeline_segment_bytes(uint64_t message_bytes, double latency_us, double bandwidth_GBps,
                                       uint32_t fill_steps) {
  const auto whole = std::max<uint64_t>(message_bytes, 1);
  if (fill_steps == 0 || !(latency_us > 0) || !(bandwidth_GBps > 0)) return whole;
  const double latency_bytes = latency_us * 1e-6 * bandwidth_GBps * 1e9;
  const double best = std::sqrt(static_cast<double>(whole) * latency_bytes / fill_steps);
  const double rounded = std::exp2(std::round(std::log2(std::max(best, 1.0))));
  const auto segment = std::max<uint64_t>(kSmallestSegmentBytes, static_cast<uint64_t>(rounded));
  return std::min(segment, whole);
}

}  // namespace ringbench::spec
