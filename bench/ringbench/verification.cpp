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
    return acc;
  }

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

VerifyOutcome verify_result(Collective collective, std::span<const std::byte> buffer, size_t count, DataType dtype,
                            ReduceOp op, InputKind kind, uint64_t seed, int rank, int world, int root) {
  VerifyOutcome outcome;
  const Reference reference(collective, count, dtype, op, kind, seed, rank, world, root);
  const auto [begin, end] = reference.checked_range();
  const bool exact = kind == InputKind::Exact || epsilon(dtype) == 0.0;
  const double tolerance_ulps = static_cast<double>(world) * world;
  uint64_t hash = 0xcbf29ce484222325ULL;
  const size_t esize = element_size(dtype);
  for (size_t i = begin; i < end; ++i) {
    double want = reference.at(i);
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
    hash_bytes(buffer.subspan(i * esize, esize), &hash);
  }
  outcome.checked = end - begin;
  outcome.hash = hash;
  return outcome;
}

}  // namespace ringbench
