#include "verification.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "input_data.h"
#include "transport/collectives/chunk_layout.h"

namespace ringbench {
namespace {

double combine(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return a + b;  // avg is the sum, divided once at the end
    case ReduceOp::Prod: return a * b;
    case ReduceOp::Min: return std::min(a, b);
    case ReduceOp::Max: return std::max(a, b);
  }
  return a;
}

// The distance from 1 to the next value of the type (0 for the integers, which are exact).
double epsilon(DataType dtype) {
  switch (dtype) {
    case DataType::Float32: return std::numeric_limits<float>::epsilon();
    case DataType::Float64: return std::numeric_limits<double>::epsilon();
    case DataType::Float16: return 0x1.0p-10;
    case DataType::BFloat16: return 0x1.0p-7;
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Int8:
    case DataType::UInt8: return 0.0;
  }
  return 0.0;
}

// One unit in the last place of `value` in the type (its normal range; below it, the smallest
// normal's ulp, which is coarser than the subnormals' and so a looser bound).
double ulp(DataType dtype, double value) {
  int exponent = 0;
  std::frexp(std::abs(value), &exponent);  // |value| in [2^(exponent-1), 2^exponent)
  const int min_exponent = dtype == DataType::Float16 ? -13 : dtype == DataType::Float64 ? -1021 : -125;
  return std::ldexp(epsilon(dtype), std::max(exponent, min_exponent) - 1);
}

double element(std::span<const std::byte> buffer, DataType dtype, size_t i) {
  const std::byte* p = buffer.data() + i * element_size(dtype);
  switch (dtype) {
    case DataType::Float32: return *reinterpret_cast<const float*>(p);
    case DataType::Float64: return *reinterpret_cast<const double*>(p);
    case DataType::Int32: return *reinterpret_cast<const int32_t*>(p);
    case DataType::Int64: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case DataType::Float16: return float16_to_float(*reinterpret_cast<const uint16_t*>(p));
    case DataType::BFloat16: return bfloat16_to_float(*reinterpret_cast<const uint16_t*>(p));
    case DataType::Int8: return *reinterpret_cast<const int8_t*>(p);
    case DataType::UInt8: return *reinterpret_cast<const uint8_t*>(p);
  }
  return 0;
}

// What each element of this rank's result must be: inputs regenerated from the seed, combined
// in double precision, where every exact input's reduction is exact.
class Reference {
 public:
  Reference(Collective collective, size_t count, DataType dtype, ReduceOp op, InputKind kind, uint64_t seed, int rank,
            int world, int root)
      : collective_(collective), count_(count), dtype_(dtype), op_(op), kind_(kind), seed_(seed), rank_(rank),
        world_(world), root_(root), chunks_(count, world) {}

  // The elements this rank checks: its own chunk after a reduce-scatter, none on a reduce's
  // non-root ranks, all of them otherwise.
  std::pair<size_t, size_t> checked_range() const {
    if (collective_ == Collective::ReduceScatter) {
      const size_t begin = chunks_.offset(rank_);
      return {begin, begin + chunks_.size(rank_)};
    }
    if (collective_ == Collective::Reduce && rank_ != root_) return {0, 0};
    return {0, count_};
  }

  double at(size_t i) const {
    switch (collective_) {
      case Collective::AllReduce:
      case Collective::ReduceScatter:
      case Collective::Reduce: return reduced(i);
      case Collective::AllGather: {
        int owner = 0;
        while (owner + 1 < world_ && chunks_.offset(owner + 1) <= i) ++owner;
        return input(owner, i);
      }
      case Collective::Broadcast: return input(root_, i);
      case Collective::AllToAll: {
        // Chunk j of my result is chunk `rank` of rank j's input (equal chunks: N divides count).
        size_t per = count_ / static_cast<size_t>(world_);
        size_t j = i / per, k = i % per;
        return input(static_cast<int>(j), static_cast<size_t>(rank_) * per + k);
      }
    }
    return 0;
  }

 private:
  double input(int r, size_t i) const { return input_value(kind_, seed_, op_, dtype_, r, i); }
  double reduced(size_t i) const {
    double acc = input(0, i);
    for (int r = 1; r < world_; ++r) acc = combine(op_, acc, input(r, i));
    return op_ == ReduceOp::Avg ? acc / world_ : acc;
  }

 public:
  // Sum over ranks of |input|: what bounds a reordered sum's rounding error.
  double magnitude_sum(size_t i) const {
    double sum = 0;
    for (int r = 0; r < world_; ++r) sum += std::abs(input(r, i));
    return sum;
  }

 private:

  Collective collective_;
  size_t count_;
  DataType dtype_;
  ReduceOp op_;
  InputKind kind_;
  uint64_t seed_;
  int rank_, world_, root_;
  ChunkLayout chunks_;
};

// FNV-1a, one byte at a time.
void hash_bytes(std::span<const std::byte> bytes, uint64_t* hash) {
  for (std::byte b : bytes) {
    *hash ^= static_cast<uint64_t>(b);
    *hash *= 0x100000001b3ULL;
  }
}

}  // namespace

bool result_is_replicated(Collective collective) {
  return collective == Collective::AllReduce || collective == Collective::AllGather ||
         collective == Collective::Broadcast;
}

namespace {

// Whether `got` passes for reference `want`. Exact inputs: bit for bit in the type (the exact
// reference rounded or wrapped as the type stores it), or for avg within 1 ulp of the exact
// sum / N (one rounding of the division, and float's of the 16-bit types, which is innocuous).
// Random inputs: the classic bound for a sum of N terms added in any order and grouping, each
// addition rounding once in the type (unit roundoff u = eps/2): |error| <= g x sum |x_i| with
// g = (N-1)u / (1 - (N-1)u); for prod g x |product|; min and max select, so they are exact. A
// floor of N x the type's smallest ulp covers underflow. For avg: that sum's bound / N plus the
// division's ulp. Where (N-1)u reaches 1 (bfloat16 from 257 ranks) no bound exists: anything passes.
bool within_bound(double got, double want, double magnitude_sum, DataType dtype, ReduceOp op, bool exact, int world) {
  const double error = std::abs(got - want);
  if (exact && op != ReduceOp::Avg) return got == stored_value(dtype, want);
  if (exact) return error <= ulp(dtype, want);
  const double n = world, rounding = (n - 1) * epsilon(dtype) / 2;
  if (rounding >= 1) return true;
  const double g = rounding / (1 - rounding), floor = n * ulp(dtype, 0);
  switch (op) {
    case ReduceOp::Sum: return error <= g * magnitude_sum + floor;
    case ReduceOp::Avg: return error <= (g * magnitude_sum + floor) / n + ulp(dtype, want);
    case ReduceOp::Prod: return error <= g * std::abs(want) + floor;
    case ReduceOp::Min:
    case ReduceOp::Max: return error == 0;
  }
  return false;
}

}  // namespace

VerifyOutcome verify_result(Collective collective, std::span<const std::byte> buffer, size_t count, DataType dtype,
                            ReduceOp op, InputKind kind, uint64_t seed, int rank, int world, int root) {
  VerifyOutcome outcome;
  const Reference reference(collective, count, dtype, op, kind, seed, rank, world, root);
  const auto [begin, end] = reference.checked_range();
  const bool exact = kind == InputKind::Exact || !is_floating(dtype);
  // The collectives that do not reduce move inputs: their bits arrive unchanged, exact or not.
  const bool reduces = collective == Collective::AllReduce || collective == Collective::ReduceScatter ||
                       collective == Collective::Reduce;
  const bool bit_for_bit = exact || !reduces;
  const ReduceOp compared_op = reduces ? op : ReduceOp::Sum;
  uint64_t hash = 0xcbf29ce484222325ULL;
  const size_t esize = element_size(dtype);
  for (size_t i = begin; i < end; ++i) {
    const double want = reference.at(i);
    const double got = element(buffer, dtype, i);
    if (!exact) outcome.max_abs_error = std::max(outcome.max_abs_error, std::abs(got - want));
    const double magnitudes = bit_for_bit ? 0 : reference.magnitude_sum(i);
    if (!within_bound(got, want, magnitudes, dtype, compared_op, bit_for_bit, world) && outcome.wrong++ == 0) {
      outcome.first_wrong_index = i;
      outcome.expected = want;
      outcome.got = got;
    }
    hash_bytes(buffer.subspan(i * esize, esize), &hash);
  }
  outcome.checked = end - begin;
  outcome.hash = hash;
  return outcome;
}

}  // namespace ringbench
