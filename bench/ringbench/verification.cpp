#include "verification.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "input_data.h"
#include "transport/collectives/chunk_layout.h"

namespace ringbench {
namespace {

double combine(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::Sum: return a + b;
    case ReduceOp::Prod: return a * b;
    case ReduceOp::Min: return std::min(a, b);
    case ReduceOp::Max: return std::max(a, b);
  }
  return a;
}

double epsilon(DataType dtype) {
  switch (dtype) {
    case DataType::Float32: return std::numeric_limits<float>::epsilon();
    case DataType::Float64: return std::numeric_limits<double>::epsilon();
    default: return 0.0;
  }
}

double element(std::span<const std::byte> buffer, DataType dtype, size_t i) {
  const std::byte* p = buffer.data() + i * element_size(dtype);
  switch (dtype) {
    case DataType::Float32: return *reinterpret_cast<const float*>(p);
    case DataType::Float64: return *reinterpret_cast<const double*>(p);
    case DataType::Int32: return *reinterpret_cast<const int32_t*>(p);
    case DataType::Int64: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
  }
  return 0;
}

}  // namespace

bool result_is_replicated(Collective collective) {
  return collective == Collective::AllReduce || collective == Collective::AllGather ||
         collective == Collective::Broadcast;
}

VerifyOutcome verify_result(Collective collective, std::span<const std::byte> buffer, size_t count, DataType dtype,
                            ReduceOp op, InputKind kind, uint64_t seed, int rank, int world, int root) {
  VerifyOutcome outcome;
  const ChunkLayout chunks(count, world);
  auto input = [&](int r, size_t i) { return input_value(kind, seed, op, dtype, r, i); };
  auto reduced = [&](size_t i) {
    double acc = input(0, i);
    for (int r = 1; r < world; ++r) acc = combine(op, acc, input(r, i));
    return acc;
  };
  // Which elements this rank checks, and their reference value.
  size_t begin = 0, end = count;
  auto expected_at = [&](size_t i) -> double {
    switch (collective) {
      case Collective::AllReduce:
      case Collective::ReduceScatter:
      case Collective::Reduce: return reduced(i);
      case Collective::AllGather: {
        int owner = 0;
        while (owner + 1 < world && chunks.offset(owner + 1) <= i) ++owner;
        return input(owner, i);
      }
      case Collective::Broadcast: return input(root, i);
      case Collective::AllToAll: {
        // Chunk j of my result is chunk `rank` of rank j's input (equal chunks: N divides count).
        size_t per = count / static_cast<size_t>(world);
        size_t j = i / per, k = i % per;
        return input(static_cast<int>(j), static_cast<size_t>(rank) * per + k);
      }
    }
    return 0;
  };
  if (collective == Collective::ReduceScatter) {
    begin = chunks.offset(rank);
    end = begin + chunks.size(rank);
  } else if (collective == Collective::Reduce && rank != root) {
    end = 0;
  }

  const bool exact = kind == InputKind::Exact || epsilon(dtype) == 0.0;
  const double tolerance_ulps = static_cast<double>(world) * world;
  uint64_t hash = 0xcbf29ce484222325ULL;
  const size_t esize = element_size(dtype);
  for (size_t i = begin; i < end; ++i) {
    double want = expected_at(i);
    // The reference is exact in double; cast it to the dtype so integer wraparound and float
    // rounding of exact inputs compare like for like.
    double got = element(buffer, dtype, i);
    double error = std::abs(got - want);
    bool ok;
    if (exact) {
      double want_in_type = want;
      if (dtype == DataType::Float32) want_in_type = static_cast<float>(want);
      ok = got == want_in_type;
    } else {
      outcome.max_abs_error = std::max(outcome.max_abs_error, error);
      ok = error <= tolerance_ulps * epsilon(dtype) * std::max(1.0, std::abs(want));
    }
    if (!ok && outcome.wrong++ == 0) {
      outcome.first_wrong_index = i;
      outcome.expected = want;
      outcome.got = got;
    }
    for (size_t b = 0; b < esize; ++b) {
      hash ^= static_cast<uint64_t>(buffer[i * esize + b]);
      hash *= 0x100000001b3ULL;
    }
  }
  outcome.checked = end - begin;
  outcome.hash = hash;
  return outcome;
}

}  // namespace ringbench
