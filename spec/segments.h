#pragma once
// Pipelining segments for the tree all-reduce and the chain broadcast: the buffer is cut into
// segments of kSegmentBytes (whole elements, at least one), so a rank forwards segment k while
// segment k+1 is still arriving. The size trades per-step latency (more segments, more steps)
// against pipeline fill time (bigger segments, longer to fill the tree or chain); 64 KiB keeps
// the fill under a few hundred microseconds on 1-10 Gb/s links while 8-byte messages stay one
// segment, i.e. unpipelined.

#include <algorithm>
#include <cstddef>

#include "schedule.h"

namespace ringbench::spec {

class Segments {
 public:
  static constexpr size_t kSegmentBytes = 64 * 1024;

  Segments(size_t count, size_t element_bytes)
      : count_(count), per_(std::max<size_t>(1, kSegmentBytes / std::max<size_t>(1, element_bytes))) {}
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

}  // namespace ringbench::spec
