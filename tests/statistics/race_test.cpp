// auto's race (statistics/race.h): who leaves, who stays, and how often a seeded race of noisy
// candidates ends on the truly fastest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "statistics/race.h"
#include "statistics/turn_order.h"
#include "tests/test_seed.h"

namespace ringbench::stats {
namespace {

// Every random test draws from one seed per process; RINGBENCH_TEST_SEED replays a reported failure.
uint64_t test_seed() {
  static const uint64_t seed = testing::test_seed("race_test");
  return seed;
}

std::vector<double> around(double centre, int n, double step) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre + step * (i - n / 2));
  return v;
}

TEST(RaceSurvivors, AClearLoserLeavesAndACloseOneStays) {
  const std::vector<std::vector<double>> calls = {around(100, 12, 1), around(150, 12, 1), around(101, 12, 1)};
  const std::vector<size_t> racing = {0, 1, 2};
  EXPECT_EQ(race_survivors(calls, racing, 0.95), (std::vector<size_t>{0, 2}));
}

TEST(RaceSurvivors, TheLeaderComesFirstAndTooFewCallsStay) {
  // Candidate 2 has the lowest median; candidate 0 has 3 calls, too few for an interval.
  const std::vector<std::vector<double>> calls = {{500, 500, 500}, around(150, 12, 1), around(90, 12, 1)};
  const std::vector<size_t> racing = {0, 1, 2};
  EXPECT_EQ(race_survivors(calls, racing, 0.95), (std::vector<size_t>{2, 0}));
  EXPECT_EQ(race_leader(calls, racing), 2u);
}

TEST(RaceSurvivors, OnlyTheRacingCount) {
  // Candidate 0 has left already; with it gone, 2 leads and 1 is clearly slower.
  const std::vector<std::vector<double>> calls = {around(10, 12, 1), around(150, 12, 1), around(100, 12, 1)};
  const std::vector<size_t> racing = {1, 2};
  EXPECT_EQ(race_survivors(calls, racing, 0.95), (std::vector<size_t>{2}));
}

// Races as auto runs them: turns of 4 calls each, at least 3 turns, at most 10, candidates whose
// calls are log-normal around their true time with a 10% spread. The fastest is 12% faster than
// the next, the margin auto's target forgives; the race must end on it almost always.
TEST(Race, EndsOnTheFastestOfNoisyCandidates) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<double> noise(0.0, 0.10);
  const std::vector<double> truth = {1.12, 1.0, 1.5, 1.14};
  const int races = 1000;
  int right = 0;
  for (int r = 0; r < races; ++r) {
    std::vector<std::vector<double>> calls(truth.size());
    std::vector<size_t> racing(truth.size());
    std::iota(racing.begin(), racing.end(), size_t{0});
    for (int turn = 0; turn < 10 && racing.size() > 1; ++turn) {
      for (size_t i : racing)
        for (int c = 0; c < 4; ++c) calls[i].push_back(truth[i] * std::exp(noise(rng)));
      if (turn >= 2) racing = race_survivors(calls, racing, 0.95);
    }
    right += race_leader(calls, racing) == 1;
  }
  EXPECT_GE(right, races * 99 / 100) << "the fastest won " << right << " of " << races << " races";
}

}  // namespace
}  // namespace ringbench::stats

namespace ringbench::stats {
namespace {

TEST(TurnOrder, IsAPermutationFixedBySeed) {
  for (uint64_t seed : {0ull, 1ull, 42ull, ~0ull}) {
    std::vector<size_t> order = turn_order(8, seed);
    EXPECT_EQ(order, turn_order(8, seed)) << "seed " << seed;
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
  }
}

TEST(TurnOrder, EveryAlgorithmLeadsAndFollowsEveryOther) {
  // Over 600 seeded rounds of 3, each of the 6 orders comes up; none is stuck at one predecessor.
  std::set<std::vector<size_t>> seen;
  for (uint64_t round = 0; round < 600; ++round) seen.insert(turn_order(3, test_seed() + round));
  EXPECT_EQ(seen.size(), 6u);
}

}  // namespace
}  // namespace ringbench::stats
