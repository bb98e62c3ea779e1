#include "size_sweep.h"

#include <algorithm>
#include <cmath>

namespace ringbench {
namespace {

class SizeList {
 public:
  explicit SizeList(size_t element_bytes) : element_bytes_(element_bytes) {}
  void add(uint64_t bytes) {
    bytes = bytes / element_bytes_ * element_bytes_;
    if (bytes >= element_bytes_ && std::find(sizes_.begin(), sizes_.end(), bytes) == sizes_.end())
      sizes_.push_back(bytes);
  }
  std::vector<uint64_t> take() { return std::move(sizes_); }

 private:
  size_t element_bytes_;
  std::vector<uint64_t> sizes_;
};

}  // namespace

std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, size_t element_bytes,
                                  std::optional<double> factor) {
  SizeList sizes(element_bytes);
  sizes.add(min_bytes);
  if (factor) {
    // Each step at least one byte up, so a factor just above 1 still ends (the CLI caps the count).
    for (double next = static_cast<double>(min_bytes) * *factor; next < static_cast<double>(max_bytes);) {
      const auto bytes = static_cast<uint64_t>(next);
      sizes.add(bytes);
      next = std::max(next * *factor, static_cast<double>(bytes + 1));
    }
  } else {
    uint64_t power = 1;
    while (power <= min_bytes) power <<= 1;
    for (; power < max_bytes; power <<= 1) sizes.add(power);
  }
  if (max_bytes > min_bytes) sizes.add(max_bytes);
  return sizes.take();
}

std::vector<uint64_t> run_sizes(const BenchOptions& options) {
  const size_t element_bytes = element_size(options.dtype);
  if (options.size_list.empty())
    return sweep_sizes(options.min_bytes, options.max_bytes, element_bytes, options.size_factor);
  SizeList sizes(element_bytes);
  for (uint64_t bytes : options.size_list) sizes.add(bytes);
  return sizes.take();
}

}  // namespace ringbench
