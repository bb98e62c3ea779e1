#pragma once
// Checks one rank's result of one collective call against the reference, element by element,
// for the buffer conventions in transport/collective.h.
//
// Exact inputs: every checked element must equal the reference exactly, as the dtype stores it
// (int8/uint8 sums wrapped); avg within 1 ulp of the dtype of the exact sum / N. Random
// floating-point inputs: the reference is computed in double precision and the largest absolute
// error is reported; a reduced element counts as wrong only beyond the rounding bound of a sum
// in any order in that dtype ((N-1) half-ulps of the sum of the inputs' magnitudes, to first
// order; details at within_bound in verification.cpp), so reordering the sum is not a failure
// but a broken algorithm is. Collectives that only move data compare bit for bit either way.

#include <cstddef>
#include <cstdint>
#include <span>

#include "bench_options.h"
#include "transport/collective.h"
#include "transport/data_type.h"

namespace ringbench {

struct VerifyOutcome {
  uint64_t checked = 0;      // elements this rank checked (0 where the collective leaves it nothing)
  uint64_t wrong = 0;
  uint64_t first_wrong_index = 0;
  double expected = 0, got = 0;  // at first_wrong_index
  double max_abs_error = 0;
  uint64_t hash = 0;         // FNV-1a of the checked bytes, to compare replicated results across ranks
};

VerifyOutcome verify_result(Collective collective, std::span<const std::byte> buffer, size_t count, DataType dtype,
                            ReduceOp op, InputKind kind, uint64_t seed, int rank, int world, int root);

// Whether every rank ends with the same bytes, so their hashes must agree.
bool result_is_replicated(Collective collective);

}  // namespace ringbench
