// The plans say what is reduced as well as what is sent (spec/schedule.h: Arrival): the model
// will price reduction work from it. Checked here against the counts the algorithms' tables give,
// for N = 1..16 on a count every N divides.

#include <gtest/gtest.h>

#include <string>

#include "spec/algorithm_spec.h"

namespace ringbench::spec {
namespace {

constexpr size_t kCount = 720720;  // lcm(1..16): equal chunks for every N

uint64_t reduced(const AlgorithmSpec& algorithm, int rank, int n) {
  return algorithm.plan({rank, n, kCount, 4, 0, {}}).elements_reduced();
}

TEST(ReducedElements, FollowTheAlgorithmsTables) {
  for (int n = 1; n <= 16; ++n) {
    const uint64_t chunk = kCount / static_cast<uint64_t>(n);
    for (int r = 0; r < n; ++r) {
      const std::string where = "N=" + std::to_string(n) + " rank " + std::to_string(r);
      // Ring reduce-scatter, alone or inside the all-reduce: every chunk but one reduced once.
      EXPECT_EQ(reduced(ring_allreduce(), r, n), (n - 1) * chunk) << where;
      EXPECT_EQ(reduced(ring_reducescatter(), r, n), (n - 1) * chunk) << where;
      // Two-shot: its own chunk, once from each other rank.
      EXPECT_EQ(reduced(two_shot_allreduce(), r, n), (n - 1) * chunk) << where;
      // Naive: every other rank's whole vector.
      EXPECT_EQ(reduced(naive_allreduce(), r, n), (n - 1) * kCount) << where;
      // Nothing to reduce in moving data around.
      for (const AlgorithmSpec* moves : {&ring_allgather(), &chain_broadcast(), &binomial_broadcast(),
                                         &pairwise_alltoall(), &recursive_doubling_allgather()})
        EXPECT_EQ(reduced(*moves, r, n), 0u) << where << " " << moves->collective << "/" << moves->name;
    }
  }
}

// Every rank of every algorithm, summed: an all-reduce or reduce-scatter reduces at least the
// N-1 other contributions to each element, somewhere; a plan that reduced less would be wrong.
TEST(ReducedElements, AtLeastEveryContributionOnce) {
  for (const AlgorithmSpec* algorithm : all_algorithm_specs()) {
    const std::string_view c = algorithm->collective;
    if (c != "allreduce" && c != "reducescatter" && c != "reduce") continue;
    for (int n = 2; n <= 16; ++n) {
      uint64_t total = 0;
      for (int r = 0; r < n; ++r) total += reduced(*algorithm, r, n);
      EXPECT_GE(total, (n - 1) * kCount) << c << "/" << algorithm->name << " N=" << n;
    }
  }
}

}  // namespace
}  // namespace ringbench::spec
