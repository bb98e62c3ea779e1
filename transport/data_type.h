#pragma once
// Element types and reduction operators the collectives support.
//
// Integer sum and prod wrap around modulo 2^bits: they are computed on the unsigned type of the
// same width, so overflow is defined behaviour and every rank gets the same bits.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ringbench {

enum class DataType { Float32, Float64, Int32, Int64 };
enum class ReduceOp { Sum, Prod, Min, Max };

inline constexpr DataType kAllDataTypes[] = {DataType::Float32, DataType::Float64, DataType::Int32,
                                             DataType::Int64};
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                                             ReduceOp::Max};

size_t element_size(DataType type);
std::string_view to_string(DataType type);  // "float32", "float64", "int32", "int64"
std::string_view to_string(ReduceOp op);    // "sum", "prod", "min", "max"
std::optional<DataType> parse_data_type(std::string_view name);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);

// dst[i] = dst[i] op src[i] for i in [0, count). dst and src must not overlap.
void reduce_into(DataType type, ReduceOp op, std::byte* dst, const std::byte* src, size_t count);

}  // namespace ringbench
