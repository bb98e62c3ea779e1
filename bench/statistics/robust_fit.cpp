#include "robust_fit.h"

#include <cassert>
#include <vector>

#include "order_statistics.h"

namespace ringbench::stats {

Line theil_sen_fit(std::span<const double> xs, std::span<const double> ys) {
  assert(xs.size() == ys.size() && xs.size() >= 2);
  std::vector<double> slopes;
  for (size_t i = 0; i < xs.size(); ++i)
    for (size_t j = i + 1; j < xs.size(); ++j)
      if (xs[j] != xs[i]) slopes.push_back((ys[j] - ys[i]) / (xs[j] - xs[i]));
  assert(!slopes.empty());
  Line line;
  line.slope = median(slopes);
  std::vector<double> intercepts(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) intercepts[i] = ys[i] - line.slope * xs[i];
  line.intercept = median(intercepts);
  return line;
}

}  // namespace ringbench::stats
