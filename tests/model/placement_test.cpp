#include "model/placement.h"

#include <gtest/gtest.h>

#include <set>

#include "model/error.h"

namespace ringbench::model {
namespace {

Placement make(std::string_view text, std::string_view order = "tp-cp-ep-dp-pp") {
  Placement p = parse_placement(text);
  p.order = parse_order(order);
  return p;
}

TEST(Placement, InnermostDimensionGetsAdjacentRanks) {
  const Placement p = make("tp=4,dp=2");
  EXPECT_EQ(groups(p, Dim::TP), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(groups(p, Dim::DP), (std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(Placement, OrderDecidesWhichGroupsAreStrided) {
  const Placement p = make("tp=4,dp=2", "dp-tp");
  EXPECT_EQ(groups(p, Dim::TP), (std::vector<std::vector<int>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(groups(p, Dim::DP), (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(p.order_string(), "dp-tp-cp-ep-pp");
}

TEST(Placement, StagePairsLinkEachRankToTheSameRankOfTheNextStage) {
  const Placement p = make("tp=2,dp=2,pp=2");
  EXPECT_EQ(stage_pairs(p), (std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(Placement, EveryRankIsInExactlyOneGroupOfEachDimension) {
  const Placement p = make("tp=2,cp=2,ep=2,dp=3,pp=2", "pp-tp-dp-ep-cp");
  for (int d = 0; d < kDims; ++d) {
    std::multiset<int> seen;
    for (const auto& g : groups(p, static_cast<Dim>(d))) {
      EXPECT_EQ(static_cast<int>(g.size()), p[static_cast<Dim>(d)]);
      seen.insert(g.begin(), g.end());
    }
    ASSERT_EQ(static_cast<int>(seen.size()), p.gpus());
    for (int r = 0; r < p.gpus(); ++r) EXPECT_EQ(seen.count(r), 1u) << to_string(static_cast<Dim>(d)) << " rank " << r;
  }
}

TEST(Placement, BadInputNamesTheFlag) {
  auto message = [](auto f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { parse_placement("tp=0"); }).find("--placement"), std::string::npos);
  EXPECT_NE(message([] { parse_placement("xp=2"); }).find("xp=2"), std::string::npos);
  EXPECT_NE(message([] { parse_placement("tp=2,tp=4"); }).find("twice"), std::string::npos);
  EXPECT_NE(message([] { parse_order("tp-zz"); }).find("--order"), std::string::npos);
  EXPECT_NE(message([] { check_divides(parse_placement("tp=8,pp=3"), 64); }).find("64"), std::string::npos);
}

}  // namespace
}  // namespace ringbench::model
