#pragma once
// A straight-line fit that outliers cannot move: y = intercept + slope x by Theil and Sen
// (the slope is the median of the slopes between every pair of points, the intercept the median of
// y - slope x). Up to 29% of the points can be arbitrarily wrong without moving the line far.
//
// Why not least squares: one descheduled link-test size (a 10x time on a busy host) drags a
// least-squares alpha-beta fit so far that `auto` once fitted a 111 us latency from calls that
// measured 5-17 us.

#include <span>

namespace ringbench::stats {

struct Line {
  double intercept = 0;
  double slope = 0;
};

// Requires xs.size() == ys.size() >= 2 and at least two distinct xs.
Line theil_sen_fit(std::span<const double> xs, std::span<const double> ys);

}  // namespace ringbench::stats
