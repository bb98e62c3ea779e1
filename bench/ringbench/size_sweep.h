#pragma once
// The message sizes of a run, as osu, nccl-tests and a plain list name them:
//   -m MIN:MAX              MIN, then every power of two above it, up to MAX (osu)
//   -m MIN:MAX --factor F   MIN, MIN*F, MIN*F^2, ... while below MAX, then MAX (nccl-tests' -b -e -f)
//   --sizes A,B,C           exactly these, in this order
// Every size is rounded down to whole elements; one below an element, or a repeat, is dropped.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bench_options.h"

namespace ringbench {

// More sizes than this in one run is a typo (a factor of 1.0001), not a sweep.
inline constexpr size_t kMaxSweepSizes = 1000;

std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, size_t element_bytes,
                                  std::optional<double> factor = std::nullopt);
// The run's sizes from its options (-m with or without --factor, or --sizes) and dtype.
std::vector<uint64_t> run_sizes(const BenchOptions& options);

}  // namespace ringbench
