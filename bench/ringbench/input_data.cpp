#include "input_data.h"

namespace ringbench {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double exact_value(ReduceOp op, int rank, size_t i) {
  const auto r = static_cast<size_t>(rank);
  if (op == ReduceOp::Prod) {
    if (rank < 16 && (i + r) % 7 == 0) return 2.0;
    return (i * 3 + r) % 5 == 0 ? -1.0 : 1.0;
  }
  return static_cast<double>(static_cast<int>((i * 7 + r * 13) % 41) - 20);
}

template <typename T>
void fill_typed(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                size_t count) {
  T* data = reinterpret_cast<T*>(buffer.data());
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<T>(input_value(kind, seed, op, dtype, rank, i));
}

}  // namespace

double input_value(InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank, size_t index) {
  bool floating = dtype == DataType::Float32 || dtype == DataType::Float64;
  if (kind == InputKind::Exact || !floating) return exact_value(op, rank, index);
  uint64_t bits = splitmix64(seed ^ splitmix64((static_cast<uint64_t>(rank) << 40) ^ index));
  double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
  double value = 2.0 * unit - 1.0;
  // Stored at the dtype's precision, so the reference sees exactly what was sent.
  return dtype == DataType::Float32 ? static_cast<double>(static_cast<float>(value)) : value;
}

void fill_inputs(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                 size_t count) {
  switch (dtype) {
    case DataType::Float32: return fill_typed<float>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Float64: return fill_typed<double>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Int32: return fill_typed<int32_t>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Int64: return fill_typed<int64_t>(buffer, kind, seed, op, dtype, rank, count);
  }
}

}  // namespace ringbench
