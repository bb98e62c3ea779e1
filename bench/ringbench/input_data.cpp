#include "input_data.h"

#include <cmath>

namespace ringbench {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Half the width of the exact sum inputs' range [-h, h]: N = 64 ranks of them must sum, in any
// order and any grouping, to integers the type holds exactly. bfloat16 has 8 significant bits
// (every integer up to 256): 64 x 4 = 256. float16 has 11 (up to 2048) and float32 24: 64 x 20 =
// 1280. int8 and uint8 sums wrap instead (the reference wraps too): their inputs span most of
// the type, so that sums of a few ranks already wrap and the check sees it.
int exact_half_width(DataType dtype) {
  switch (dtype) {
    case DataType::BFloat16: return 4;
    case DataType::Int8:
    case DataType::UInt8: return 100;
    default: return 20;
  }
}

double exact_value(ReduceOp op, DataType dtype, int rank, size_t i) {
  const auto r = static_cast<size_t>(rank);
  const bool unsigned_type = dtype == DataType::UInt8;
  if (op == ReduceOp::Prod) {
    // At most 3 of the first 16 ranks meet (i + r) % 7 == 0, so |product| <= 8 in every type.
    if (rank < 16 && (i + r) % 7 == 0) return 2.0;
    return (i * 3 + r) % 5 == 0 && !unsigned_type ? -1.0 : 1.0;
  }
  const int h = exact_half_width(dtype);
  const auto span = static_cast<size_t>(2 * h + 1);
  const int value = static_cast<int>((i * 7 + r * 13) % span) - h;
  return unsigned_type ? value + h : value;  // uint8: [0, 2h], non-negative
}

// A double as the type stores it: rounded to nearest for the floating types, wrapped modulo
// 2^bits for the integers (exact inputs are integers, so the cast loses nothing else).
double as_stored(DataType dtype, double value) {
  switch (dtype) {
    case DataType::Float32: return static_cast<float>(value);
    case DataType::Float64: return value;
    case DataType::Float16: return float16_to_float(float_to_float16(static_cast<float>(value)));
    case DataType::BFloat16: return bfloat16_to_float(float_to_bfloat16(static_cast<float>(value)));
    case DataType::Int32: return static_cast<int32_t>(static_cast<int64_t>(value));
    case DataType::Int64: return static_cast<double>(static_cast<int64_t>(value));
    case DataType::Int8: return static_cast<int8_t>(static_cast<int64_t>(value));
    case DataType::UInt8: return static_cast<uint8_t>(static_cast<int64_t>(value));
  }
  return value;
}

template <typename T>
void fill_typed(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                size_t count) {
  T* data = reinterpret_cast<T*>(buffer.data());
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<T>(input_value(kind, seed, op, dtype, rank, i));
}

template <uint16_t (*Store)(float)>
void fill_16bit(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                size_t count) {
  auto* data = reinterpret_cast<uint16_t*>(buffer.data());
  for (size_t i = 0; i < count; ++i) data[i] = Store(static_cast<float>(input_value(kind, seed, op, dtype, rank, i)));
}

}  // namespace

double stored_value(DataType dtype, double value) { return as_stored(dtype, value); }

double input_value(InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank, size_t index) {
  if (kind == InputKind::Exact || !is_floating(dtype)) return exact_value(op, dtype, rank, index);
  uint64_t bits = splitmix64(seed ^ splitmix64((static_cast<uint64_t>(rank) << 40) ^ index));
  double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
  // Stored at the dtype's precision, so the reference sees exactly what was sent.
  return as_stored(dtype, 2.0 * unit - 1.0);
}

void fill_inputs(std::span<std::byte> buffer, InputKind kind, uint64_t seed, ReduceOp op, DataType dtype, int rank,
                 size_t count) {
  switch (dtype) {
    case DataType::Float32: return fill_typed<float>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Float64: return fill_typed<double>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Int32: return fill_typed<int32_t>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Int64: return fill_typed<int64_t>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Float16: return fill_16bit<float_to_float16>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::BFloat16: return fill_16bit<float_to_bfloat16>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::Int8: return fill_typed<int8_t>(buffer, kind, seed, op, dtype, rank, count);
    case DataType::UInt8: return fill_typed<uint8_t>(buffer, kind, seed, op, dtype, rank, count);
  }
}

}  // namespace ringbench
