// The statistics layer on synthetic samples whose quantiles and coverage are known exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "statistics/call_statistics.h"
#include "statistics/order_statistics.h"
#include "statistics/stopping_rule.h"
#include "tests/test_seed.h"

namespace ringbench::stats {
namespace {

// Every random test draws from one seed per process; RINGBENCH_TEST_SEED replays a reported failure.
uint64_t test_seed() {
  static const uint64_t seed = testing::test_seed("statistics_test");
  return seed;
}

TEST(SortedQuantile, InterpolatesLikeNumpyType7) {
  const std::vector<double> v = {1, 2, 3, 4, 10};
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 1.0), 10);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.05), 1.2);   // position 0.2 between 1 and 2
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.95), 8.8);   // position 3.8 between 4 and 10
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
}

TEST(BinomialHalfCdf, MatchesHandCounts) {
  EXPECT_NEAR(binomial_half_cdf(10, 2), 56.0 / 1024, 1e-12);  // 1 + 10 + 45
  EXPECT_NEAR(binomial_half_cdf(6, 0), 1.0 / 64, 1e-12);
  EXPECT_DOUBLE_EQ(binomial_half_cdf(6, 6), 1.0);
  EXPECT_NEAR(binomial_half_cdf(1000000, 499999), 0.5 - 0.5 * std::exp(std::lgamma(1e6 + 1) -
                  2 * std::lgamma(5e5 + 1) - 1e6 * std::log(2.0)), 1e-9);  // symmetry
}

TEST(MedianConfidenceRanks, SixIsTheFewestAtNinetyFivePercent) {
  EXPECT_FALSE(median_confidence_ranks(5, 0.95));  // min and max cover only 1 - 2/32 = 93.75%
  const auto six = median_confidence_ranks(6, 0.95);
  ASSERT_TRUE(six);
  EXPECT_EQ(six->lower, 1u);
  EXPECT_EQ(six->upper, 6u);
  EXPECT_NEAR(six->coverage, 1 - 2.0 / 64, 1e-12);
  const auto ten = median_confidence_ranks(10, 0.95);  // k = 3 would cover only 1 - 2 x 56/1024
  ASSERT_TRUE(ten);
  EXPECT_EQ(ten->lower, 2u);
  EXPECT_EQ(ten->upper, 9u);
  EXPECT_NEAR(ten->coverage, 1 - 2 * 11.0 / 1024, 1e-12);
  EXPECT_EQ(min_blocks_for_interval(), 6u);
}

// For independent values the interval's empirical coverage of the true median must equal the
// exact binomial coverage of its ranks, whatever the distribution (here a skewed one: the
// exponential, whose median is ln 2).
TEST(MedianConfidenceInterval, CoverageMatchesTheExactBinomialCoverage) {
  std::mt19937_64 rng(test_seed());
  std::exponential_distribution<double> exponential(1.0);
  for (size_t n : {10u, 30u, 100u, 1000u}) {
    const int trials = 4000;
    int covered = 0;
    std::vector<double> values(n);
    for (int t = 0; t < trials; ++t) {
      for (double& v : values) v = exponential(rng);
      const auto interval = median_confidence_interval(values, 0.95);
      ASSERT_TRUE(interval);
      covered += interval->low <= std::log(2.0) && std::log(2.0) <= interval->high;
    }
    const double exact = median_confidence_ranks(n, 0.95)->coverage;
    EXPECT_NEAR(static_cast<double>(covered) / trials, exact, 0.02) << "n = " << n;
  }
}

// Consecutive call times are correlated. AR(1) with phi = 0.5 and Gaussian innovations has median
// 0; the blocks-of-ten interval must still cover it at least 93% of the time.
TEST(SummarizeCalls, CoverageHoldsOnAutocorrelatedTimes) {
  std::mt19937_64 rng(test_seed() + 1);
  std::normal_distribution<double> innovation(0.0, 1.0);
  const double phi = 0.5;
  for (size_t calls : {60u, 300u, 1000u}) {
    const int trials = 2000;
    int covered = 0;
    std::vector<double> times(calls);
    for (int t = 0; t < trials; ++t) {
      double x = innovation(rng) / std::sqrt(1 - phi * phi);  // the stationary distribution
      for (double& v : times) v = x = phi * x + innovation(rng);
      const CallStatistics s = summarize_calls(times);
      ASSERT_TRUE(s.ci95);
      covered += s.ci95->low <= 0 && 0 <= s.ci95->high;
    }
    EXPECT_GE(static_cast<double>(covered) / trials, 0.93) << calls << " calls";
  }
}

TEST(SummarizeCalls, ReportsQuantilesMomentsAndBlocks) {
  std::vector<double> times;
  for (int i = 1; i <= 100; ++i) times.push_back(i);
  const CallStatistics s = summarize_calls(times);
  EXPECT_EQ(s.calls, 100u);
  EXPECT_EQ(s.blocks, 10u);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.p05, 5.95);
  EXPECT_DOUBLE_EQ(s.p95, 95.05);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_NEAR(s.stddev, 29.011, 1e-3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  // Block medians 5.5, 15.5, ..., 95.5; 10 blocks take ranks 2 and 9.
  ASSERT_TRUE(s.ci95);
  EXPECT_DOUBLE_EQ(s.ci95->low, 15.5);
  EXPECT_DOUBLE_EQ(s.ci95->high, 85.5);
  EXPECT_NEAR(*s.relative_half_width(), 35.0 / 50.5, 1e-12);
}

TEST(SummarizeCalls, FewerThanSixBlocksHaveNoInterval) {
  const std::vector<double> five_calls = {5, 4, 3, 2, 1};  // an explicit -i 5
  const CallStatistics s = summarize_calls(five_calls);
  EXPECT_FALSE(s.ci95);
  EXPECT_FALSE(s.relative_half_width());
  EXPECT_DOUBLE_EQ(s.median, 3);
}

TEST(StoppingRule, ExplicitCallsAreExactWhateverTheTime) {
  StoppingRule rule;
  rule.exact_samples = 5;
  rule.max_seconds = 0.001;
  EXPECT_EQ(decide_stop(rule, std::vector<double>(4, 1.0), 100.0), StopReason::keep_going);
  EXPECT_EQ(decide_stop(rule, std::vector<double>(5, 1.0), 0.0), StopReason::iterations);
}

TEST(StoppingRule, NeverStopsBeforeSixBlocks) {
  StoppingRule rule;
  rule.max_seconds = 1;
  EXPECT_EQ(decide_stop(rule, std::vector<double>(59, 1.0), 1000.0), StopReason::keep_going);
  EXPECT_EQ(decide_stop(rule, std::vector<double>(60, 1.0), 0.0), StopReason::ci);
}

TEST(StoppingRule, WideIntervalsRunUntilTheTimeBudget) {
  std::mt19937_64 rng(test_seed() + 2);
  std::uniform_real_distribution<double> spread(1.0, 100.0);  // every block median far apart
  std::vector<double> times;
  for (int i = 0; i < 60; ++i) times.push_back(i < 30 ? spread(rng) : 100.0 + spread(rng));
  StoppingRule rule;
  rule.max_seconds = 2;
  EXPECT_EQ(decide_stop(rule, times, 1.0), StopReason::keep_going);
  EXPECT_EQ(decide_stop(rule, times, 2.0), StopReason::time);
  rule.max_seconds = 0;
  rule.max_calls = 60;
  EXPECT_EQ(decide_stop(rule, times, 1e9), StopReason::iterations);
}

TEST(StoppingRule, NarrowIntervalStopsOnCi) {
  std::mt19937_64 rng(test_seed() + 3);
  std::uniform_real_distribution<double> jitter(0.99, 1.01);
  std::vector<double> times(200);
  for (double& t : times) t = 100 * jitter(rng);
  StoppingRule rule;
  rule.max_seconds = 1;
  EXPECT_EQ(decide_stop(rule, times, 0.1), StopReason::ci);
  EXPECT_EQ(stop_reason_name(StopReason::ci), "ci");
  EXPECT_EQ(stop_reason_name(StopReason::time), "time");
  EXPECT_EQ(stop_reason_name(StopReason::iterations), "iterations");
}

// Calls in two modes, each block its own mix (a VM's slow and fast phases): the blocks' median and
// the calls' median drift apart, and the rule must judge the interval about the one the row prints.
std::vector<double> two_mode_calls(std::mt19937_64& rng, size_t blocks) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> jitter(1.0, 0.01);
  std::vector<double> times;
  for (size_t b = 0; b < blocks; ++b) {
    const double slow_share = 0.2 + 0.6 * unit(rng);
    for (size_t i = 0; i < kCallsPerBlock; ++i) times.push_back((unit(rng) < slow_share ? 110.0 : 100.0) * jitter(rng));
  }
  return times;
}

TEST(StoppingRule, StopsOnCiExactlyWhenTheRowsIntervalIsWithinTarget) {
  std::mt19937_64 rng(test_seed() + 4);
  StoppingRule rule;  // no time budget: only the interval can stop it
  size_t stopped = 0, went_on = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::vector<double> times = two_mode_calls(rng, 6 + static_cast<size_t>(trial % 60));
    const auto printed = summarize_calls(times).relative_half_width();
    ASSERT_TRUE(printed);
    EXPECT_DOUBLE_EQ(*interval_half_width(times), *printed) << "trial " << trial;
    const bool within = *printed <= rule.target_half_width;
    EXPECT_EQ(decide_stop(rule, times, 0.0), within ? StopReason::ci : StopReason::keep_going)
        << "trial " << trial << ": the row prints +-" << 100 * *printed << "%";
    (within ? stopped : went_on) += 1;
  }
  EXPECT_GT(stopped, 100u) << "the trials must hold both outcomes";
  EXPECT_GT(went_on, 100u) << "the trials must hold both outcomes";
}

// Algorithms measured together stop together: a narrow one waits, within its budget, for one that
// still needs calls, so both medians cover the same rounds.
TEST(TakingTurns, ANarrowRowKeepsItsTurnsWhileAnotherStillNeedsCalls) {
  const double budget = 1.0;
  EXPECT_FALSE(leaves_the_turns(StopReason::ci, 0.2, budget, true));
  EXPECT_TRUE(leaves_the_turns(StopReason::ci, 0.2, budget, false)) << "the last one needing calls is done";
  EXPECT_TRUE(leaves_the_turns(StopReason::ci, budget, budget, true)) << "its own budget is spent";
  EXPECT_FALSE(leaves_the_turns(StopReason::ci, 5.0, 0.0, true)) << "no budget: it waits (the call ceiling ends it)";
}

TEST(TakingTurns, OnlyANarrowIntervalWaits) {
  for (const bool another : {false, true}) {
    EXPECT_FALSE(leaves_the_turns(StopReason::keep_going, 0.0, 1.0, another));
    EXPECT_TRUE(leaves_the_turns(StopReason::time, 1.0, 1.0, another)) << "a wide row out of time leaves";
    EXPECT_TRUE(leaves_the_turns(StopReason::iterations, 0.1, 1.0, another)) << "-i N is exactly N calls";
  }
}

}  // namespace
}  // namespace ringbench::stats

#include "statistics/collective_call_time.h"

namespace ringbench::stats {
namespace {

TEST(CollectiveCallTime, SharedClockTakesLastEntryToLastExit) {
  // Rank 1 leaves the barrier 5 us late; rank 0 then waits for it inside the call.
  const std::vector<std::vector<CallStamp>> by_rank = {
      {{1'000, 12'000}, {20'000, 31'000}},
      {{6'000, 11'000}, {20'000, 33'000}},
  };
  const auto shared = collective_call_times_us(by_rank, true);
  ASSERT_EQ(shared.size(), 2u);
  EXPECT_DOUBLE_EQ(shared[0], 6.0);   // 12'000 - 6'000: the skew is not counted
  EXPECT_DOUBLE_EQ(shared[1], 13.0);  // 33'000 - 20'000
  const auto separate = collective_call_times_us(by_rank, false);
  EXPECT_DOUBLE_EQ(separate[0], 11.0);  // rank 0's own 11 us, wait included
  EXPECT_DOUBLE_EQ(separate[1], 13.0);
  EXPECT_TRUE(collective_call_times_us({}, true).empty());
}

}  // namespace
}  // namespace ringbench::stats
