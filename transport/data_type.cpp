#include "data_type.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace ringbench {

namespace {

struct TypeName {
  DataType type;
  std::string_view name;
};
// Canonical names first (to_string returns the first match), then the aliases parse accepts:
// nccl-tests' `-d half|float|double` and the short forms PyTorch and JAX users type.
constexpr TypeName kTypeNames[] = {
    {DataType::Float32, "float32"}, {DataType::Float64, "float64"},  {DataType::Int32, "int32"},
    {DataType::Int64, "int64"},     {DataType::Float16, "float16"},  {DataType::BFloat16, "bfloat16"},
    {DataType::Int8, "int8"},       {DataType::UInt8, "uint8"},      {DataType::Float16, "half"},
    {DataType::Float16, "fp16"},    {DataType::BFloat16, "bf16"},    {DataType::Float32, "float"},
    {DataType::Float64, "double"},
};

}  // namespace

size_t element_size(DataType type) {
  switch (type) {
    case DataType::Float32: return 4;
    case DataType::Float64: return 8;
    case DataType::Int32: return 4;
    case DataType::Int64: return 8;
    case DataType::Float16: return 2;
    case DataType::BFloat16: return 2;
    case DataType::Int8: return 1;
    case DataType::UInt8: return 1;
  }
  return 1;
}

std::string_view to_string(DataType type) {
  for (const TypeName& entry : kTypeNames)
    if (entry.type == type) return entry.name;
  return "?";
}

std::string_view to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
    case ReduceOp::Avg: return "avg";
  }
  return "?";
}

std::optional<DataType> parse_data_type(std::string_view name) {
  for (const TypeName& entry : kTypeNames)
    if (entry.name == name) return entry.type;
  return std::nullopt;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view name) {
  for (ReduceOp op : kAllReduceOps)
    if (to_string(op) == name) return op;
  return std::nullopt;
}

namespace {
template <typename Range>
std::string joined_names(const Range& values) {
  std::string names;
  for (auto value : values) names += (names.empty() ? "" : ", ") + std::string(to_string(value));
  return names;
}
}  // namespace

std::string_view data_type_names() {
  static const std::string names = joined_names(kAllDataTypes);
  return names;
}
std::string_view reduce_op_names() {
  static const std::string names = joined_names(kAllReduceOps);
  return names;
}

bool is_floating(DataType type) {
  switch (type) {
    case DataType::Float32:
    case DataType::Float64:
    case DataType::Float16:
    case DataType::BFloat16: return true;
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Int8:
    case DataType::UInt8: return false;
  }
  return false;
}

bool reduce_op_defined(ReduceOp op, DataType type) { return op != ReduceOp::Avg || is_floating(type); }

namespace {

// Integers are combined as their unsigned twins so that sum and prod wrap instead of overflowing
// (undefined for signed types); min and max need the signed order.
template <typename T>
struct ArithmeticOf {
  using type = T;
};
template <>
struct ArithmeticOf<int8_t> {
  using type = uint8_t;
};
template <>
struct ArithmeticOf<int32_t> {
  using type = uint32_t;
};
template <>
struct ArithmeticOf<int64_t> {
  using type = uint64_t;
};
template <typename T>
using Arithmetic = typename ArithmeticOf<T>::type;

// The loops are written so that g++ -O2/-O3 vectorises them: restrict pointers, no branches in
// the body (min/max as selects), and typed copies instead of aliasing through std::byte.
//
// Each loop is compiled twice: for the baseline x86-64 (SSE2, 16-byte vectors) and with AVX2
// (32-byte vectors), picked once at run time by what the CPU supports. Measured with
// bench/micro (ringbench_micro, float32 sum, bytes touched/s): at 256 KiB (in cache) SSE2 reaches
// about 0.67x memcpy and AVX2 about 1x; at 64 MiB both are memory-bound and equal.
template <typename T, typename Combine>
inline __attribute__((always_inline)) void reduce_loop(std::byte* dst_bytes, const std::byte* src_bytes, size_t count,
                                                        Combine combine) {
  T* __restrict dst = reinterpret_cast<T*>(dst_bytes);
  const T* __restrict src = reinterpret_cast<const T*>(src_bytes);
  for (size_t i = 0; i < count; ++i) dst[i] = combine(dst[i], src[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define RINGBENCH_AVX2_DISPATCH 1
template <typename T, typename Combine>
__attribute__((target("avx2"))) void reduce_avx2(std::byte* dst, const std::byte* src, size_t count, Combine combine) {
  reduce_loop<T>(dst, src, count, combine);
}
bool have_avx2() {
  static const bool yes = [] {
    __builtin_cpu_init();  // may run before libgcc's own initialiser when called during static init
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return yes;
}
#endif

template <typename T, typename Combine>
void reduce_typed(std::byte* dst, const std::byte* src, size_t count, Combine combine) {
#ifdef RINGBENCH_AVX2_DISPATCH
  if (have_avx2()) return reduce_avx2<T>(dst, src, count, combine);
#endif
  reduce_loop<T>(dst, src, count, combine);
}

template <typename T>
void reduce_as(ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
  using A = Arithmetic<T>;
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      reduce_typed<T>(dst, src, count, [](T a, T b) { return static_cast<T>(A(a) + A(b)); });
      break;
    case ReduceOp::Prod:
      reduce_typed<T>(dst, src, count, [](T a, T b) { return static_cast<T>(A(a) * A(b)); });
      break;
    case ReduceOp::Min:
      reduce_typed<T>(dst, src, count, [](T a, T b) { return b < a ? b : a; });
      break;
    case ReduceOp::Max:
      reduce_typed<T>(dst, src, count, [](T a, T b) { return a < b ? b : a; });
      break;
  }
}

// The 16-bit floating types: combined in float, rounded back once. Min and max return one of the
// two stored values unchanged, so they never round.
template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
void reduce_16bit(ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      reduce_typed<uint16_t>(dst, src, count, [](uint16_t a, uint16_t b) { return Store(Load(a) + Load(b)); });
      break;
    case ReduceOp::Prod:
      reduce_typed<uint16_t>(dst, src, count, [](uint16_t a, uint16_t b) { return Store(Load(a) * Load(b)); });
      break;
    case ReduceOp::Min:
      reduce_typed<uint16_t>(dst, src, count, [](uint16_t a, uint16_t b) { return Load(b) < Load(a) ? b : a; });
      break;
    case ReduceOp::Max:
      reduce_typed<uint16_t>(dst, src, count, [](uint16_t a, uint16_t b) { return Load(a) < Load(b) ? b : a; });
      break;
  }
}

#ifdef RINGBENCH_AVX2_DISPATCH
// float16 with the F16C conversions, 8 elements at a time: g++ 12 does not vectorise _Float16
// conversions by itself, and the portable bit arithmetic costs several times more. vcvtps2ph
// with imm 0 rounds to nearest even, as float_to_float16 does; the tail goes through the same
// instructions one element at a time, so every element rounds identically. (The op is a template
// argument, not a lambda: a lambda would not inherit the target attribute.)
// min_ps(b, a) is "b < a ? b : a", the scalar loops' order (which one a NaN yields).
template <ReduceOp Op>
__attribute__((target("avx2"), always_inline)) inline __m256 combine_ps(__m256 a, __m256 b) {
  if constexpr (Op == ReduceOp::Prod) return _mm256_mul_ps(a, b);
  if constexpr (Op == ReduceOp::Min) return _mm256_min_ps(b, a);
  if constexpr (Op == ReduceOp::Max) return _mm256_max_ps(b, a);
  return _mm256_add_ps(a, b);  // sum, and avg's sum
}

template <ReduceOp Op>
__attribute__((target("avx2,f16c"))) void reduce_float16_f16c(std::byte* dst_bytes, const std::byte* src_bytes,
                                                               size_t count) {
  auto* dst = reinterpret_cast<uint16_t*>(dst_bytes);
  const auto* src = reinterpret_cast<const uint16_t*>(src_bytes);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i)));
    const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(combine_ps<Op>(a, b), _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < count; ++i) {
    const __m256 a = _mm256_cvtph_ps(_mm_cvtsi32_si128(dst[i]));
    const __m256 b = _mm256_cvtph_ps(_mm_cvtsi32_si128(src[i]));
    dst[i] = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm256_cvtps_ph(combine_ps<Op>(a, b), _MM_FROUND_TO_NEAREST_INT)));
  }
}

void reduce_float16_f16c(ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return reduce_float16_f16c<ReduceOp::Sum>(dst, src, count);
    case ReduceOp::Prod: return reduce_float16_f16c<ReduceOp::Prod>(dst, src, count);
    case ReduceOp::Min: return reduce_float16_f16c<ReduceOp::Min>(dst, src, count);
    case ReduceOp::Max: return reduce_float16_f16c<ReduceOp::Max>(dst, src, count);
  }
}

// bfloat16 in 8 float lanes: g++ 12 leaves the scalar bit arithmetic unvectorised (15 GB/s in
// cache against 60 for these). Same rounding as float_to_bfloat16: +0x7FFF plus the kept LSB,
// a NaN kept quiet by a blend. The tail reuses the vector code one lane at a time.
__attribute__((target("avx2"))) inline __m256 load_bfloat16(__m128i bits) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}
__attribute__((target("avx2"))) inline __m128i store_bfloat16(__m256 value) {
  const __m256i u = _mm256_castps_si256(value);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(value, value, _CMP_UNORD_Q));
  const __m256i out = _mm256_blendv_epi8(rounded, quiet, nan);
  // Pack the 8 32-bit lanes (each < 2^16) into 8 16-bit ones, in order.
  return _mm_packus_epi32(_mm256_castsi256_si128(out), _mm256_extracti128_si256(out, 1));
}

template <ReduceOp Op>
__attribute__((target("avx2"))) void reduce_bfloat16_avx2(std::byte* dst_bytes, const std::byte* src_bytes,
                                                          size_t count) {
  auto* dst = reinterpret_cast<uint16_t*>(dst_bytes);
  const auto* src = reinterpret_cast<const uint16_t*>(src_bytes);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 a = load_bfloat16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i)));
    const __m256 b = load_bfloat16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), store_bfloat16(combine_ps<Op>(a, b)));
  }
  for (; i < count; ++i) {
    const __m256 a = load_bfloat16(_mm_cvtsi32_si128(dst[i])), b = load_bfloat16(_mm_cvtsi32_si128(src[i]));
    dst[i] = static_cast<uint16_t>(_mm_cvtsi128_si32(store_bfloat16(combine_ps<Op>(a, b))));
  }
}

void reduce_bfloat16_avx2(ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return reduce_bfloat16_avx2<ReduceOp::Sum>(dst, src, count);
    case ReduceOp::Prod: return reduce_bfloat16_avx2<ReduceOp::Prod>(dst, src, count);
    case ReduceOp::Min: return reduce_bfloat16_avx2<ReduceOp::Min>(dst, src, count);
    case ReduceOp::Max: return reduce_bfloat16_avx2<ReduceOp::Max>(dst, src, count);
  }
}

// avg's division on float16, 8 lanes at a time, the tail one lane at a time (same rounding).
__attribute__((target("avx2,f16c"))) void divide_float16_f16c(std::byte* data, size_t count, int world_size) {
  auto* values = reinterpret_cast<uint16_t*>(data);
  const __m256 n = _mm256_set1_ps(static_cast<float>(world_size));
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(values + i), _mm256_cvtps_ph(_mm256_div_ps(v, n), _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < count; ++i) {
    const __m256 v = _mm256_cvtph_ps(_mm_cvtsi32_si128(values[i]));
    values[i] = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm256_cvtps_ph(_mm256_div_ps(v, n), _MM_FROUND_TO_NEAREST_INT)));
  }
}

bool have_f16c() {
  static const bool yes = [] {
    // CPUID leaf 1, ECX bit 29: clang's __builtin_cpu_supports does not know "f16c".
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    return have_avx2() && f16c;
  }();
  return yes;
}
#endif

void reduce_float16(ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
#ifdef RINGBENCH_AVX2_DISPATCH
  if (have_f16c()) return reduce_float16_f16c(op, dst, src, count);
#endif
  reduce_16bit<float16_to_float, float_to_float16>(op, dst, src, count);
}

void reduce_bfloat16(ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
#ifdef RINGBENCH_AVX2_DISPATCH
  if (have_avx2()) return reduce_bfloat16_avx2(op, dst, src, count);
#endif
  reduce_16bit<bfloat16_to_float, float_to_bfloat16>(op, dst, src, count);
}

template <typename T>
void divide_as(std::byte* data, size_t count, int world_size) {
  const T n = static_cast<T>(world_size);
  T* __restrict values = reinterpret_cast<T*>(data);
  for (size_t i = 0; i < count; ++i) values[i] = values[i] / n;
}

template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
void divide_16bit(std::byte* data, size_t count, int world_size) {
  // One float division, rounded once to 16 bits: correctly rounded, as for +, * (see the header).
  const float n = static_cast<float>(world_size);
  uint16_t* __restrict values = reinterpret_cast<uint16_t*>(data);
  for (size_t i = 0; i < count; ++i) values[i] = Store(Load(values[i]) / n);
}

}  // namespace

void reduce_into(DataType type, ReduceOp op, std::byte* dst, const std::byte* src, size_t count) {
  switch (type) {
    case DataType::Float32: return reduce_as<float>(op, dst, src, count);
    case DataType::Float64: return reduce_as<double>(op, dst, src, count);
    case DataType::Int32: return reduce_as<int32_t>(op, dst, src, count);
    case DataType::Int64: return reduce_as<int64_t>(op, dst, src, count);
    case DataType::Float16: return reduce_float16(op, dst, src, count);
    case DataType::BFloat16: return reduce_bfloat16(op, dst, src, count);
    case DataType::Int8: return reduce_as<int8_t>(op, dst, src, count);
    case DataType::UInt8: return reduce_as<uint8_t>(op, dst, src, count);
  }
}

void finish_average(DataType type, std::byte* data, size_t count, int world_size) {
  switch (type) {
    case DataType::Float32: return divide_as<float>(data, count, world_size);
    case DataType::Float64: return divide_as<double>(data, count, world_size);
    case DataType::Float16:
#ifdef RINGBENCH_AVX2_DISPATCH
      if (have_f16c()) return divide_float16_f16c(data, count, world_size);
#endif
      return divide_16bit<float16_to_float, float_to_float16>(data, count, world_size);
    case DataType::BFloat16: return divide_16bit<bfloat16_to_float, float_to_bfloat16>(data, count, world_size);
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Int8:
    case DataType::UInt8: break;
  }
  throw std::invalid_argument("avg is not defined on " + std::string(to_string(type)) +
                              " (an integer type): use sum and divide, or a floating type");
}

}  // namespace ringbench
