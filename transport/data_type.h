#pragma once
// Element types and reduction operators the collectives support.
//
// Integer sum and prod wrap around modulo 2^bits: they are computed on the unsigned type of the
// same width, so overflow is defined behaviour and every rank gets the same bits.
//
// float16 (IEEE binary16) and bfloat16 are stored as their 16 bits and combined in float, then
// rounded to nearest, ties to even, back to 16 bits. Since float carries at least 2p+2 bits for
// both (p = 11 and 8), that double rounding is innocuous: sum, prod, min and max of two 16-bit
// values come out exactly as a native 16-bit unit would round them.
//
// Names are PyTorch's and nccl-tests' (`-d`): float16 and bfloat16 are canonical; "half" and
// "fp16", "bf16", "float" and "double" are accepted as aliases and reported by their canonical
// names.
//
// avg is NCCL's ncclAvg: the sum of every rank's input divided by the number of ranks. NCCL runs
// it as a sum on the wire with one scaling (a pre-multiplication of each input by 1/N for
// floating types, a post-division for integers); ringbench reduces with sum and divides this
// rank's result once at the end (finish_average), so the algorithms know only sum. It is defined
// for floating types only (reduce_op_defined).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ringbench {

enum class DataType { Float32, Float64, Int32, Int64, Float16, BFloat16, Int8, UInt8 };
enum class ReduceOp { Sum, Prod, Min, Max, Avg };

inline constexpr DataType kAllDataTypes[] = {DataType::Float32,  DataType::Float64, DataType::Int32,
                                             DataType::Int64,    DataType::Float16, DataType::BFloat16,
                                             DataType::Int8,     DataType::UInt8};
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max,
                                             ReduceOp::Avg};

size_t element_size(DataType type);
// "float32", "float64", "int32", "int64", "float16", "bfloat16", "int8", "uint8"
std::string_view to_string(DataType type);
std::string_view to_string(ReduceOp op);  // "sum", "prod", "min", "max", "avg"
std::optional<DataType> parse_data_type(std::string_view name);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);
// The canonical names, comma-separated, for help texts and error messages: "float32, ..., uint8".
std::string_view data_type_names();
std::string_view reduce_op_names();

bool is_floating(DataType type);
// Whether `op` is defined on `type`: everything but avg on integer types (an integer average
// would have to truncate, and NCCL's and MPI's users expect a floating-point mean).
bool reduce_op_defined(ReduceOp op, DataType type);

// dst[i] = dst[i] op src[i] for i in [0, count). dst and src must not overlap. For avg this is
// the sum: the division belongs to finish_average, once per call.
void reduce_into(DataType type, ReduceOp op, std::byte* dst, const std::byte* src, size_t count);

// data[i] = data[i] / world_size, rounded to nearest in `type`: avg's one division of a
// reduction's result. Throws std::invalid_argument for an integer type.
void finish_average(DataType type, std::byte* data, size_t count, int world_size);

// The 16-bit formats, bit-exact and branch-free (selects), so the reduction loops vectorise.
// Rounding is to nearest, ties to even; overflow rounds to infinity; a NaN stays a NaN (quiet,
// with the top payload bits kept, as the x86 F16C instructions convert it).
inline float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
inline uint16_t float_to_bfloat16(float value) {
  const uint32_t u = std::bit_cast<uint32_t>(value);
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x0040u;
  // A mask rather than `nan ? a : b`: g++ 12 leaves that as control flow, and the loop scalar.
  const uint32_t nan = 0u - static_cast<uint32_t>((u & 0x7FFFFFFFu) > 0x7F800000u);
  return static_cast<uint16_t>((rounded & ~nan) | (quiet_nan & nan));
}

inline float float16_to_float(uint16_t bits) {
  // Shift exponent and mantissa into float's places and rebias; infinities and NaNs get float's
  // all-ones exponent; subnormals are renormalised by a float subtraction (exact).
  constexpr uint32_t kShiftedExponent = 0x7C00u << 13;
  const uint32_t magnitude = (static_cast<uint32_t>(bits) & 0x7FFFu) << 13;
  const uint32_t exponent = magnitude & kShiftedExponent;
  const uint32_t normal = magnitude + ((127u - 15u) << 23);
  const uint32_t special = normal + ((128u - 16u) << 23);
  const float subnormal = std::bit_cast<float>(normal + (1u << 23)) - std::bit_cast<float>(113u << 23);
  const uint32_t unsigned_bits = exponent == kShiftedExponent ? special
                                 : exponent == 0             ? std::bit_cast<uint32_t>(subnormal)
                                                             : normal;
  return std::bit_cast<float>(unsigned_bits | (static_cast<uint32_t>(bits & 0x8000u) << 16));
}
inline uint16_t float_to_float16(float value) {
  const uint32_t u = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t magnitude = u & 0x7FFFFFFFu;
  // Results below float16's smallest normal (2^-14): adding 0.5 lines the 10 mantissa bits up at
  // the bottom of a float, and the float addition rounds to nearest even for us.
  constexpr uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  const uint32_t tiny =
      std::bit_cast<uint32_t>(std::bit_cast<float>(magnitude) + std::bit_cast<float>(kDenormMagic)) - kDenormMagic;
  // Normal results: rebias and round to nearest even on the 13 dropped bits; a carry out of the
  // mantissa bumps the exponent, up to infinity (0x7C00) for values from 65520.
  const uint32_t odd = (magnitude >> 13) & 1u;
  const uint32_t normal = (magnitude + ((15u - 127u) << 23) + 0xFFFu + odd) >> 13;
  const uint32_t nan = 0x7E00u | ((magnitude >> 13) & 0x03FFu);
  const uint32_t out = magnitude > 0x7F800000u   ? nan
                       : magnitude >= (143u << 23) ? 0x7C00u  // >= 65536 and infinity
                       : magnitude < (113u << 23)  ? tiny
                                                   : normal;
  return static_cast<uint16_t>(out | sign);
}

}  // namespace ringbench
