// The element types and reduction kernels: the 16-bit float conversions (round to nearest even,
// NaN, infinity, overflow, subnormals) against independent references, every type's reduce_into
// for every op against scalar arithmetic (including the vector loops' tails), avg's division,
// and the names users type.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "transport/data_type.h"

namespace ringbench {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

TEST(Bfloat16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bfloat16(1.0f + 0x1p-8f), 0x3F80);            // tie, 1.0 is even: down
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * 0x1p-8f), 0x3F82);        // tie, odd below: up
  EXPECT_EQ(float_to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);  // past the tie: up
  EXPECT_EQ(float_to_bfloat16(-1.0f - 0x1p-8f + 0x1p-20f), 0xBF80); // short of the tie: down
  EXPECT_EQ(float_to_bfloat16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bfloat16(from_bits(0x00010000)), 0x0001);  // subnormals as float has them
}

TEST(Bfloat16, InfinityOverflowAndNaN) {
  EXPECT_EQ(float_to_bfloat16(kInf), 0x7F80);
  EXPECT_EQ(float_to_bfloat16(-kInf), 0xFF80);
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7F80);  // rounds up past the largest
  EXPECT_EQ(float_to_bfloat16(from_bits(0x7F7F7FFF)), 0x7F7F);             // just short of it: largest finite
  // A NaN whose payload sits only in the dropped bits must not round into infinity.
  const uint16_t signalling = float_to_bfloat16(from_bits(0x7F800001));
  EXPECT_TRUE(std::isnan(bfloat16_to_float(signalling))) << std::hex << signalling;
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(kNaN))));
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(-kNaN))));
}

// Every bfloat16 value survives float and back; every NaN stays a NaN.
TEST(Bfloat16, EveryValueRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = bfloat16_to_float(h);
    if (std::isnan(f))
      ASSERT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(f)))) << std::hex << bits;
    else
      ASSERT_EQ(float_to_bfloat16(f), h) << std::hex << bits;
  }
}

// The nearest bfloat16 by comparing the two candidates in double: an independent reference.
uint16_t nearest_bfloat16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const auto below = static_cast<uint16_t>(u >> 16), above = static_cast<uint16_t>(below + 1);
  const double d_below = std::abs(static_cast<double>(f) - bfloat16_to_float(below));
  const double d_above = std::abs(static_cast<double>(bfloat16_to_float(above)) - f);
  if (d_below != d_above) return d_below < d_above ? below : above;
  return (below & 1) == 0 ? below : above;
}

TEST(Bfloat16, MatchesTheNearestOfTwoCandidates) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7F7EFFFF);  // finite, below the overflow edge
  for (int k = 0; k < 200000; ++k) {
    const float f = from_bits(bits(random) | (k % 2 ? 0x80000000u : 0u));
    ASSERT_EQ(float_to_bfloat16(f), nearest_bfloat16(f)) << "seed " << seed << " float bits " << std::hex
                                                         << std::bit_cast<uint32_t>(f);
  }
}

TEST(Float16, RoundsToNearestEvenIncludingSubnormals) {
  EXPECT_EQ(float_to_float16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_float16(1.0f + 0x1p-11f), 0x3C00);      // tie, even: down
  EXPECT_EQ(float_to_float16(1.0f + 3 * 0x1p-11f), 0x3C02);  // tie, odd below: up
  EXPECT_EQ(float_to_float16(0x1p-14f), 0x0400);             // smallest normal
  EXPECT_EQ(float_to_float16(0x1p-24f), 0x0001);             // smallest subnormal
  EXPECT_EQ(float_to_float16(0x1p-25f), 0x0000);             // tie with zero: even, zero
  EXPECT_EQ(float_to_float16(3 * 0x1p-25f), 0x0002);         // tie between 1 and 2 ulps: 2
  EXPECT_EQ(float_to_float16(-0.0f), 0x8000);
  EXPECT_EQ(float16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(float16_to_float(0x83FF), -0x3FFp-24f);
}

TEST(Float16, InfinityOverflowAndNaN) {
  EXPECT_EQ(float_to_float16(65504.0f), 0x7BFF);  // largest finite
  EXPECT_EQ(float_to_float16(65519.0f), 0x7BFF);  // below the midpoint to 65536
  EXPECT_EQ(float_to_float16(65520.0f), 0x7C00);  // the midpoint rounds to even: infinity
  EXPECT_EQ(float_to_float16(1e10f), 0x7C00);
  EXPECT_EQ(float_to_float16(-1e10f), 0xFC00);
  EXPECT_EQ(float_to_float16(kInf), 0x7C00);
  EXPECT_EQ(float_to_float16(-kInf), 0xFC00);
  EXPECT_EQ(float16_to_float(0x7C00), kInf);
  EXPECT_TRUE(std::isnan(float16_to_float(float_to_float16(from_bits(0x7F800001)))));
  EXPECT_TRUE(std::isnan(float16_to_float(float_to_float16(kNaN))));
  EXPECT_TRUE(std::isnan(float16_to_float(0x7E00)));
  EXPECT_TRUE(std::isnan(float16_to_float(0xFC01)));
}

// g++'s _Float16 (libgcc's soft conversions, or F16C) is an independent implementation of the
// same IEEE rounding: every half converts to the same float, and random floats to the same half.
TEST(Float16, AgreesWithTheCompilersFloat16) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float ours = float16_to_float(h), theirs = static_cast<float>(std::bit_cast<_Float16>(h));
    if (std::isnan(theirs))
      ASSERT_TRUE(std::isnan(ours)) << std::hex << bits;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(ours), std::bit_cast<uint32_t>(theirs)) << std::hex << bits;
  }
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7F7FFFFF);
  std::uniform_real_distribution<float> near_range(-70000.0f, 70000.0f);
  for (int k = 0; k < 200000; ++k) {
    const float f = k % 2 ? near_range(random) : from_bits(bits(random) >> (k % 5));  // many exponents
    ASSERT_EQ(float_to_float16(f), std::bit_cast<uint16_t>(static_cast<_Float16>(f)))
        << "seed " << seed << " float bits " << std::hex << std::bit_cast<uint32_t>(f);
  }
}

// --- reduce_into: every type and op against scalar arithmetic, at a count that leaves a tail ---

template <typename T>
std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> values_of(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

float combine_float(ReduceOp op, float a, float b) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return a + b;
    case ReduceOp::Prod: return a * b;
    case ReduceOp::Min: return b < a ? b : a;
    case ReduceOp::Max: return a < b ? b : a;
  }
  return a;
}

// 16-bit floats: random finite values of all magnitudes, so sums and products also overflow to
// infinity and underflow into subnormals; 1003 elements leave a tail after the 8-wide vectors.
template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
void check_16bit(DataType type, uint16_t finite_limit) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  std::uniform_int_distribution<uint32_t> bits(0, finite_limit);
  std::vector<uint16_t> a(1003), b(1003);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<uint16_t>(bits(random) | (random() & 0x8000u));
    b[i] = static_cast<uint16_t>(bits(random) | (random() & 0x8000u));
  }
  for (ReduceOp op : kAllReduceOps) {
    auto dst = bytes_of(a);
    const auto src = bytes_of(b);
    reduce_into(type, op, dst.data(), src.data(), a.size());
    const auto got = values_of<uint16_t>(dst);
    for (size_t i = 0; i < a.size(); ++i) {
      const uint16_t want = Store(combine_float(op, Load(a[i]), Load(b[i])));
      ASSERT_EQ(got[i], want) << to_string(type) << " " << to_string(op) << " element " << i << " seed " << seed
                              << ": " << Load(a[i]) << ", " << Load(b[i]);
    }
  }
}

TEST(ReduceInto, Float16EveryOp) { check_16bit<float16_to_float, float_to_float16>(DataType::Float16, 0x7BFF); }
TEST(ReduceInto, Bfloat16EveryOp) { check_16bit<bfloat16_to_float, float_to_bfloat16>(DataType::BFloat16, 0x7F7F); }

// Sum and prod wrap modulo 256 as unsigned arithmetic does; min and max keep the sign's order.
template <typename T>
void check_8bit(DataType type) {
  std::vector<T> a, b;
  for (int x = std::numeric_limits<T>::min(); x <= std::numeric_limits<T>::max(); ++x)
    for (int y = std::numeric_limits<T>::min(); y <= std::numeric_limits<T>::max(); y += 7) {
      a.push_back(static_cast<T>(x));
      b.push_back(static_cast<T>(y));
    }
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max}) {
    auto dst = bytes_of(a);
    const auto src = bytes_of(b);
    reduce_into(type, op, dst.data(), src.data(), a.size());
    const auto got = values_of<T>(dst);
    for (size_t i = 0; i < a.size(); ++i) {
      const int x = a[i], y = b[i];
      const int exact = op == ReduceOp::Sum ? x + y : op == ReduceOp::Prod ? x * y : op == ReduceOp::Min ? std::min(x, y)
                                                                                                    : std::max(x, y);
      ASSERT_EQ(got[i], static_cast<T>(exact & 0xFF)) << to_string(type) << " " << to_string(op) << " " << x << ", " << y;
    }
  }
}

TEST(ReduceInto, Int8EveryOpWraps) { check_8bit<int8_t>(DataType::Int8); }
TEST(ReduceInto, Uint8EveryOpWraps) { check_8bit<uint8_t>(DataType::UInt8); }

TEST(ReduceInto, AvgReducesAsSum) {
  for (DataType type : {DataType::Float32, DataType::Float64, DataType::Float16, DataType::BFloat16}) {
    std::vector<std::byte> sum(64 * element_size(type)), avg(sum.size()), src(sum.size());
    for (size_t i = 0; i < src.size(); ++i) src[i] = sum[i] = avg[i] = static_cast<std::byte>((i * 37) % 61);
    reduce_into(type, ReduceOp::Sum, sum.data(), src.data(), 64);
    reduce_into(type, ReduceOp::Avg, avg.data(), src.data(), 64);
    EXPECT_EQ(sum, avg) << to_string(type);
  }
}

// --- finish_average: one correctly rounded division ---

template <float (*Load)(uint16_t)>
void check_average_16bit(DataType type) {
  for (int n : {3, 5, 7, 64}) {
    std::vector<uint16_t> values;
    for (uint32_t bits = 0; bits < 0x7C00; bits += 13) values.push_back(static_cast<uint16_t>(bits));
    auto data = bytes_of(values);
    finish_average(type, data.data(), values.size(), n);
    const auto got = values_of<uint16_t>(data);
    for (size_t i = 0; i < values.size(); ++i) {
      const double exact = static_cast<double>(Load(values[i])) / n;  // exact enough: 53 bits
      const double result = Load(got[i]);
      // Correctly rounded: no other value of the type lies nearer the exact quotient.
      const double below = Load(static_cast<uint16_t>(got[i] - (got[i] > 0 ? 1 : 0)));
      const double above = Load(static_cast<uint16_t>(got[i] + 1));
      ASSERT_LE(std::abs(result - exact), std::abs(below - exact)) << to_string(type) << " n " << n << " " << values[i];
      ASSERT_LE(std::abs(result - exact), std::abs(above - exact)) << to_string(type) << " n " << n << " " << values[i];
    }
  }
}

TEST(FinishAverage, Float16IsCorrectlyRounded) { check_average_16bit<float16_to_float>(DataType::Float16); }
TEST(FinishAverage, Bfloat16IsCorrectlyRounded) {
  check_average_16bit<bfloat16_to_float>(DataType::BFloat16);
}

TEST(FinishAverage, Float32AndFloat64DivideInTheirType) {
  std::vector<float> f = {3.0f, -7.0f, 1.0f, 1e-40f};
  auto fb = bytes_of(f);
  finish_average(DataType::Float32, fb.data(), f.size(), 3);
  EXPECT_EQ(values_of<float>(fb), (std::vector<float>{1.0f, -7.0f / 3, 1.0f / 3, 1e-40f / 3}));
  std::vector<double> d = {6.0, 1.0};
  auto db = bytes_of(d);
  finish_average(DataType::Float64, db.data(), d.size(), 3);
  EXPECT_EQ(values_of<double>(db), (std::vector<double>{2.0, 1.0 / 3}));
}

TEST(FinishAverage, IntegerTypesAreRefused) {
  std::byte data[8] = {};
  for (DataType type : {DataType::Int8, DataType::UInt8, DataType::Int32, DataType::Int64}) {
    EXPECT_FALSE(reduce_op_defined(ReduceOp::Avg, type)) << to_string(type);
    EXPECT_THROW(finish_average(type, data, 1, 2), std::invalid_argument) << to_string(type);
  }
  for (DataType type : kAllDataTypes)
    for (ReduceOp op : kAllReduceOps)
      EXPECT_EQ(reduce_op_defined(op, type), op != ReduceOp::Avg || is_floating(type))
          << to_string(type) << " " << to_string(op);
}

// --- names ---

TEST(DataTypeNames, CanonicalNamesRoundTripAndAliasesParse) {
  for (DataType type : kAllDataTypes) EXPECT_EQ(parse_data_type(to_string(type)), type) << to_string(type);
  for (ReduceOp op : kAllReduceOps) EXPECT_EQ(parse_reduce_op(to_string(op)), op) << to_string(op);
  EXPECT_EQ(parse_data_type("half"), DataType::Float16);
  EXPECT_EQ(parse_data_type("fp16"), DataType::Float16);
  EXPECT_EQ(parse_data_type("bf16"), DataType::BFloat16);
  EXPECT_EQ(parse_data_type("float"), DataType::Float32);
  EXPECT_EQ(parse_data_type("double"), DataType::Float64);
  EXPECT_EQ(to_string(DataType::Float16), "float16");
  EXPECT_EQ(to_string(DataType::BFloat16), "bfloat16");
  EXPECT_EQ(parse_data_type("float8"), std::nullopt);
  EXPECT_EQ(data_type_names(), "float32, float64, int32, int64, float16, bfloat16, int8, uint8");
  EXPECT_EQ(reduce_op_names(), "sum, prod, min, max, avg");
  EXPECT_EQ(element_size(DataType::Float16), 2u);
  EXPECT_EQ(element_size(DataType::BFloat16), 2u);
  EXPECT_EQ(element_size(DataType::Int8), 1u);
  EXPECT_EQ(element_size(DataType::UInt8), 1u);
}

}  // namespace
}  // namespace ringbench
