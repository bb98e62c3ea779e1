#include "turn_order.h"

#include <numeric>
#include <random>
#include <utility>

namespace ringbench::stats {

std::vector<size_t> turn_order(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 draw(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[draw() % i]);  // bias < 2^-50
  return order;
}

}  // namespace ringbench::stats
