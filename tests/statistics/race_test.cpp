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

#include "statistics/call_statistics.h"
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

// Turns of 4 calls, as auto races.
constexpr size_t kTurn = 4;

TEST(RaceSurvivors, AClearLoserLeavesAndACloseOneStays) {
  const std::vector<std::vector<double>> calls = {around(100, 24, 1), around(150, 24, 1), around(101, 24, 1)};
  const std::vector<size_t> racing = {0, 1, 2};
  EXPECT_EQ(race_survivors(calls, racing, kTurn), (std::vector<size_t>{0, 2}));
}

TEST(RaceSurvivors, TheLeaderComesFirstAndTooFewTurnsStay) {
  // Candidate 2 has the lowest median; candidate 0 has 5 turns, one too few for an interval.
  const std::vector<std::vector<double>> calls = {std::vector<double>(20, 500), around(150, 24, 1), around(90, 24, 1)};
  const std::vector<size_t> racing = {0, 1, 2};
  EXPECT_EQ(race_survivors(calls, racing, kTurn), (std::vector<size_t>{2, 0}));
  EXPECT_EQ(race_leader(calls, racing), 2u);
}

TEST(RaceSurvivors, OnlyTheRacingCount) {
  // Candidate 0 has left already; with it gone, 2 leads and 1 is clearly slower.
  const std::vector<std::vector<double>> calls = {around(10, 24, 1), around(150, 24, 1), around(100, 24, 1)};
  const std::vector<size_t> racing = {1, 2};
  EXPECT_EQ(race_survivors(calls, racing, kTurn), (std::vector<size_t>{2}));
}

// A turn's calls share the machine's state of that moment: all four come out slow or fast
// together, so 24 calls in 6 turns are 6 observations, not 24. A candidate that ran one turn as
// fast as the leader and five in slow moments: judged by its calls, its interval lies above the
// leader's and it leaves; judged by its turns, six are too few to rule it out.
TEST(RaceSurvivors, SixTurnsAreSixObservations) {
  std::vector<double> unlucky;
  for (double turn : {130.0, 130.0, 130.0, 100.0, 130.0, 130.0})
    for (double call : {0.0, 0.5, 1.0, 1.5}) unlucky.push_back(turn + call);
  const std::vector<std::vector<double>> calls = {around(102, 24, 0.1), unlucky};
  const std::vector<size_t> racing = {0, 1};
  EXPECT_EQ(race_survivors(calls, racing, kTurn), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(race_survivors(calls, racing, 1), (std::vector<size_t>{0})) << "calls as blocks: it leaves";
}

// Races as auto runs them: turns of 4 calls each, standings from the turn that first gives an
// interval (the 6th), at most 25, candidates whose calls are log-normal around their true time:
// each turn's four share a slow or fast moment of the machine (turn_spread), and each call varies
// by call_spread on top. The fastest is 12%
// faster than the next, the margin auto's target forgives. Returns how often the race ended on it.
int fastest_wins(double turn_spread, double call_spread, int races, std::mt19937_64& rng) {
  std::normal_distribution<double> moment(0.0, turn_spread), call(0.0, call_spread);
  const std::vector<double> truth = {1.12, 1.0, 1.5, 1.14};
  int right = 0;
  for (int r = 0; r < races; ++r) {
    std::vector<std::vector<double>> calls(truth.size());
    std::vector<size_t> racing(truth.size());
    std::iota(racing.begin(), racing.end(), size_t{0});
    for (int turn = 1; turn <= 25 && racing.size() > 1; ++turn) {
      for (size_t i : racing) {
        const double now = std::exp(moment(rng));
        for (size_t c = 0; c < kTurn; ++c) calls[i].push_back(truth[i] * now * std::exp(call(rng)));
      }
      if (static_cast<size_t>(turn) >= min_blocks_for_interval()) racing = race_survivors(calls, racing, kTurn);
    }
    right += race_leader(calls, racing) == 1;
  }
  return right;
}

TEST(Race, EndsOnTheFastestOfNoisyCandidates) {
  std::mt19937_64 rng(test_seed());
  const int races = 1000;
  const int right = fastest_wins(0.0, 0.10, races, rng);
  EXPECT_GE(right, races * 99 / 100) << "the fastest won " << right << " of " << races << " races";
}

TEST(Race, EndsOnTheFastestWhenTheMachineMovesByTurns) {
  std::mt19937_64 rng(test_seed());
  const int races = 1000;
  const int right = fastest_wins(0.10, 0.03, races, rng);
  EXPECT_GE(right, races * 95 / 100) << "the fastest won " << right << " of " << races << " races";
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
