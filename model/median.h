#pragma once
// The median of a list of numbers (the mean of the middle two for an even count), the one copy the
// model's fits and reports share. Takes the list by value: it sorts its own copy. Empty: UB, so
// callers check first.

#include <algorithm>
#include <vector>

namespace ringbench::model {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace ringbench::model
