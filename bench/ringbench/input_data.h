#pragma once
// The inputs every rank feeds a collective, as a pure function of (kind, seed, op, rank, index),
// so any rank can recompute any other rank's input element: the reference result is computed
// element by element, without holding N copies of the vector.
//
// Exact inputs make every partial reduction exact in every dtype, for up to 64 ranks and in any
// order of combination, so results are compared bit for bit (avg: within 1 ulp of the exact
// sum / N). Sum, min, max and avg: integers in [-20, 20], or [-4, 4] for bfloat16 (8 significant
// bits: 64 x 4 = 256 is exact), [-100, 100] for int8 and [0, 200] for uint8, whose sums wrap
// from a few ranks on, as the reference does. Prod: 1 and -1 (1 only for uint8) with a 2 from at most 3 of the first 16 ranks, so
// |products| <= 8. Random inputs are uniform in [-1, 1) rounded to the floating dtype (integers
// stay the exact kind), from a counter-based generator.

#include <cstddef>
#include <cstdint>
#include <span>

#include "bench_options.h"
#include "transport/data_type.h"

namespace ringbench {

double input_value(InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank, size_t index);

// `value` as `dtype` stores it: rounded to nearest for floating types, wrapped modulo 2^bits for
// integer ones. The reference applies it to its exact result.
double stored_value(DataType dtype, double value);

// Fills elements [0, count) of `buffer` with rank's inputs.
void fill_inputs(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                 size_t count);

}  // namespace ringbench
