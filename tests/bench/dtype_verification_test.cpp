// ringbench's inputs and verification for every dtype and op (bench/ringbench/input_data.h,
// verification.h): exact inputs stay exact in the type for 64 ranks in any order of combination,
// int8/uint8 sums wrap as the reference does, avg lands within 1 ulp of the exact sum / N, a
// corrupted element is counted wrong; and every algorithm, ranks as threads over real loopback
// sockets, verifies and sends the bytes its formula says for float16, bfloat16, int8 and uint8
// with every op, avg included.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "input_data.h"
#include "transport/algorithm.h"
#include "transport/counted_run.h"
#include "verification.h"
#include "../transport/thread_ranks.h"

namespace ringbench {
namespace {

constexpr DataType kNewTypes[] = {DataType::Float16, DataType::BFloat16, DataType::Int8, DataType::UInt8};

std::vector<ReduceOp> ops_for(DataType type) {
  std::vector<ReduceOp> ops;
  for (ReduceOp op : kAllReduceOps)
    if (reduce_op_defined(op, type)) ops.push_back(op);
  return ops;
}

std::vector<std::byte> inputs_of(InputKind kind, uint64_t seed, ReduceOp op, DataType type, int rank, size_t count) {
  std::vector<std::byte> buffer(count * element_size(type));
  fill_inputs(buffer, kind, seed, op, type, rank, count);
  return buffer;
}

// The all-reduce result of `world` ranks' inputs combined in the type, in the order `order`
// gives (a permutation of the ranks), as one rank of some algorithm would compute it.
std::vector<std::byte> reduce_in_order(InputKind kind, uint64_t seed, ReduceOp op, DataType type, size_t count,
                                       const std::vector<int>& order) {
  std::vector<std::byte> acc = inputs_of(kind, seed, op, type, order.front(), count);
  for (size_t k = 1; k < order.size(); ++k) {
    const auto next = inputs_of(kind, seed, op, type, order[k], count);
    reduce_into(type, op, acc.data(), next.data(), count);
  }
  if (op == ReduceOp::Avg) finish_average(type, acc.data(), count, static_cast<int>(order.size()));
  return acc;
}

// A pairwise tree (as recursive halving combines): (((0+1)+(2+3))+((4+5)+(6+7)))...
std::vector<std::byte> reduce_as_tree(InputKind kind, uint64_t seed, ReduceOp op, DataType type, size_t count,
                                      int world) {
  std::vector<std::vector<std::byte>> level;
  for (int r = 0; r < world; ++r) level.push_back(inputs_of(kind, seed, op, type, r, count));
  while (level.size() > 1) {
    std::vector<std::vector<std::byte>> next;
    for (size_t k = 0; k + 1 < level.size(); k += 2) {
      reduce_into(type, op, level[k].data(), level[k + 1].data(), count);
      next.push_back(std::move(level[k]));
    }
    if (level.size() % 2) next.push_back(std::move(level.back()));
    level = std::move(next);
  }
  if (op == ReduceOp::Avg) finish_average(type, level[0].data(), count, world);
  return level[0];
}

// 64 ranks, combined forwards, backwards, shuffled and as a tree: every exact input's partial
// reduction must be exact in the type, so all four pass the bit-for-bit check (1 ulp for avg).
TEST(DtypeVerification, ExactInputsStayExactFor64RanksInAnyOrder) {
  constexpr int kWorld = 64;
  constexpr size_t kCount = 997;
  const uint32_t seed = std::random_device{}();
  std::printf("shuffle seed %u\n", seed);
  std::mt19937 random(seed);
  for (DataType type : kAllDataTypes)
    for (ReduceOp op : ops_for(type)) {
      std::vector<int> forwards(kWorld);
      std::iota(forwards.begin(), forwards.end(), 0);
      std::vector<int> backwards(forwards.rbegin(), forwards.rend()), shuffled = forwards;
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      const std::vector<std::vector<std::byte>> results = {
          reduce_in_order(InputKind::Exact, 1, op, type, kCount, forwards),
          reduce_in_order(InputKind::Exact, 1, op, type, kCount, backwards),
          reduce_in_order(InputKind::Exact, 1, op, type, kCount, shuffled),
          reduce_as_tree(InputKind::Exact, 1, op, type, kCount, kWorld)};
      for (size_t k = 0; k < results.size(); ++k) {
        const VerifyOutcome outcome = verify_result(Collective::AllReduce, results[k], kCount, type, op,
                                                    InputKind::Exact, 1, 0, kWorld, 0);
        EXPECT_EQ(outcome.wrong, 0u) << to_string(type) << " " << to_string(op) << " order " << k << " seed " << seed
                                     << ": element " << outcome.first_wrong_index << " expected " << outcome.expected
                                     << " got " << outcome.got;
        EXPECT_EQ(outcome.checked, kCount);
      }
      // Every order gives the same bits except avg, whose division may round either way.
      if (op != ReduceOp::Avg) {
        for (const auto& result : results) EXPECT_EQ(result, results[0]) << to_string(type) << " " << to_string(op);
      }
    }
}

// The inputs' own bound, independent of the reference: the largest partial sum of 64 ranks'
// exact inputs is the sum of their magnitudes, which must be an integer the type holds exactly.
TEST(DtypeVerification, ExactSumInputsFitTheTypesSignificand) {
  const std::pair<DataType, double> limits[] = {{DataType::BFloat16, 256}, {DataType::Float16, 2048},
                                                {DataType::Float32, 1 << 24}};
  for (const auto& [type, limit] : limits)
    for (size_t i = 0; i < 2000; ++i) {
      double magnitudes = 0, product = 1;
      for (int r = 0; r < 64; ++r) {
        magnitudes += std::abs(input_value(InputKind::Exact, 0, ReduceOp::Sum, type, r, i));
        product *= std::abs(input_value(InputKind::Exact, 0, ReduceOp::Prod, type, r, i));
      }
      ASSERT_LE(magnitudes, limit) << to_string(type) << " element " << i;
      ASSERT_LE(product, 8) << to_string(type) << " element " << i;
    }
  for (size_t i = 0; i < 2000; ++i)
    for (int r = 0; r < 64; ++r)
      ASSERT_GE(input_value(InputKind::Exact, 0, ReduceOp::Min, DataType::UInt8, r, i), 0) << "uint8 element " << i;
}

// 3 ranks of int8 and uint8 inputs overflow 8 bits; the reference must wrap exactly as the
// kernels do, and the wrapped values must really occur (else this test proves nothing).
TEST(DtypeVerification, Int8AndUint8SumsWrapLikeTheReference) {
  for (DataType type : {DataType::Int8, DataType::UInt8}) {
    std::vector<int> ranks(3);
    std::iota(ranks.begin(), ranks.end(), 0);
    const auto result = reduce_in_order(InputKind::Exact, 1, ReduceOp::Sum, type, 300, ranks);
    EXPECT_EQ(verify_result(Collective::AllReduce, result, 300, type, ReduceOp::Sum, InputKind::Exact, 1, 0, 3, 0).wrong,
              0u)
        << to_string(type);
    size_t wrapped = 0;
    for (size_t i = 0; i < 300; ++i) {
      double exact = 0;
      for (int r = 0; r < 3; ++r) exact += input_value(InputKind::Exact, 1, ReduceOp::Sum, type, r, i);
      wrapped += exact > (type == DataType::Int8 ? 127 : 255) || exact < (type == DataType::Int8 ? -128 : 0);
    }
    EXPECT_GT(wrapped, 0u) << to_string(type);
  }
}

// Random inputs (floating types) pass their ulp tolerance in any order, and a flipped high bit
// in any type is counted wrong: the check can fail.
TEST(DtypeVerification, RandomInputsPassAndCorruptionIsCaught) {
  for (DataType type : kAllDataTypes)
    for (ReduceOp op : ops_for(type)) {
      std::vector<int> backwards(24);
      std::iota(backwards.rbegin(), backwards.rend(), 0);
      auto result = reduce_in_order(InputKind::Random, 7, op, type, 500, backwards);
      const VerifyOutcome ok = verify_result(Collective::AllReduce, result, 500, type, op, InputKind::Random, 7, 0, 24, 0);
      EXPECT_EQ(ok.wrong, 0u) << to_string(type) << " " << to_string(op) << ": element " << ok.first_wrong_index
                              << " expected " << ok.expected << " got " << ok.got;
      const size_t top_byte = 123 * element_size(type) + element_size(type) - 1;
      result[top_byte] ^= std::byte{0x40};  // exponent or high value bits
      const VerifyOutcome bad =
          verify_result(Collective::AllReduce, result, 500, type, op, InputKind::Random, 7, 0, 24, 0);
      EXPECT_EQ(bad.wrong, 1u) << to_string(type) << " " << to_string(op);
      EXPECT_EQ(bad.first_wrong_index, 123u) << to_string(type) << " " << to_string(op);
    }
}

// --- every algorithm, ranks as threads ---

struct Case {
  const Algorithm* algorithm;
  DataType type;
  int n;
  size_t count;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::string(to_string(info.param.algorithm->collective())) + "_" +
                     std::string(info.param.algorithm->name()) + "_" + std::string(to_string(info.param.type)) + "_n" +
                     std::to_string(info.param.n) + "_c" + std::to_string(info.param.count);
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// Per algorithm and new dtype: N = 3 at a prime count, and N = 8 (int8/uint8) or 5 at N + 1
// elements (uneven chunks). All-to-all gets whole blocks, as the harness sizes it (its trailing
// count % N elements are not exchanged, and verification does not expect them to be).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Algorithm* a : all_algorithms())
    for (DataType type : kNewTypes) {
      const int wide = is_floating(type) ? 5 : 8;
      const bool blocks = a->collective() == Collective::AllToAll;
      out.push_back({a, type, 3, blocks ? 1008u : 1009u});
      out.push_back({a, type, wide, static_cast<size_t>(blocks ? 2 * wide : wide + 1)});
    }
  return out;
}

bool reduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}

class DtypeCollectivesTest : public ::testing::TestWithParam<Case> {};

// Every op the type defines (one op for collectives that do not reduce), exact inputs and, for
// floating types, random ones; the root is the last rank, so a root other than 0 is exercised.
TEST_P(DtypeCollectivesTest, VerifiedAndExactBytes) {
  const Case c = GetParam();
  const Collective collective = c.algorithm->collective();
  const std::vector<ReduceOp> ops = reduces(collective) ? ops_for(c.type) : std::vector<ReduceOp>{ReduceOp::Sum};
  std::vector<InputKind> kinds = {InputKind::Exact};
  if (is_floating(c.type)) kinds.push_back(InputKind::Random);
  testing::run_ranks(c.n, [](int) { return testing::quiet_options(); }, [&](Communicator& comm) {
    std::vector<std::byte> buffer(c.count * element_size(c.type));
    for (ReduceOp op : ops)
      for (InputKind kind : kinds) {
        const std::string where = "rank " + std::to_string(comm.rank()) + " " + std::string(to_string(op)) +
                                  (kind == InputKind::Exact ? " exact" : " random");
        fill_inputs(buffer, kind, 11, op, c.type, comm.rank(), c.count);
        const CollectiveCall call{c.type, op, buffer, c.count, c.n - 1};
        const CountedRun run = run_counted(comm, *c.algorithm, call);
        EXPECT_TRUE(run.bytes_ok()) << where << ": sent " << run.moved.payload_sent << ", formula "
                                    << run.expected_payload;
        const VerifyOutcome outcome =
            verify_result(collective, buffer, c.count, c.type, op, kind, 11, comm.rank(), c.n, c.n - 1);
        EXPECT_EQ(outcome.wrong, 0u) << where << ": element " << outcome.first_wrong_index << " expected "
                                     << outcome.expected << " got " << outcome.got;
        comm.barrier();
      }
  });
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithm, DtypeCollectivesTest, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace ringbench
