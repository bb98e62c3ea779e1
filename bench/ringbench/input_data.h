#pragma once
// The inputs every rank feeds a collective, as a pure function of (kind, seed, op, rank, index),
// so any rank can recompute any other rank's input element: the reference result is computed
// element by element, without holding N copies of the vector.
//
// Exact inputs make every reduction exact in every dtype, so results are compared bit for bit:
// integers in [-20, 20] for sum, min and max; for prod, 1 and -1 with a 2 from at most 16 ranks
// (products stay below 2^16). Random inputs are uniform in [-1, 1) for floating point (integers
// stay the exact kind), from a counter-based generator.

#include <cstddef>
#include <cstdint>
#include <span>

#include "bench_options.h"
#include "transport/data_type.h"

namespace ringbench {

double input_value(InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank, size_t index);

// Fills elements [0, count) of `buffer` with rank's inputs.
void fill_inputs(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                 size_t count);

}  // namespace ringbench
