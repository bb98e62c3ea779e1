// combine_views: the verdict a set of heard views supports (transport/heard_views.h).
#include "transport/heard_views.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

namespace ringbench {
namespace {

using Heard = PeerHeardState::Heard;

// Rank `rank`'s view of `world` ranks: every peer alive, except the ones listed.
HeardView view(int rank, int world, std::initializer_list<std::pair<int, Heard>> except = {}) {
  HeardView v{rank, {}};
  for (int p = 0; p < world; ++p) {
    if (p == rank) continue;
    PeerHeardState s{p, Heard::Alive, 100};
    for (const auto& [peer, heard] : except)
      if (peer == p) s.heard = heard, s.age_ms = heard == Heard::Silent ? 2200 : 4000;
    v.peers.push_back(s);
  }
  return v;
}

TEST(HeardViews, SilentLinkSeenFromEverySideIsTheLink) {
  const auto verdict = combine_views({view(0, 4), view(1, 4, {{2, Heard::Silent}}), view(2, 4, {{1, Heard::Silent}}),
                                      view(3, 4)});
  EXPECT_EQ(verdict.kind, HeardVerdict::Kind::Link);
  EXPECT_EQ(verdict.rank, 1);
  EXPECT_EQ(verdict.other, 2);
  EXPECT_EQ(verdict.silent_ms, 2200u);
}

// Each end of the link misses the other's view: a third rank that hears the other end is enough.
TEST(HeardViews, OneEndAndOneWitnessNameTheSameLink) {
  for (const auto& views : {std::vector<HeardView>{view(1, 4, {{2, Heard::Silent}}), view(3, 4)},
                            std::vector<HeardView>{view(2, 4, {{1, Heard::Silent}}), view(0, 4)},
                            std::vector<HeardView>{view(0, 4), view(1, 4, {{2, Heard::Silent}})}}) {
    const auto verdict = combine_views(views);
    EXPECT_EQ(verdict.kind, HeardVerdict::Kind::Link);
    EXPECT_EQ(verdict.rank, 1);
    EXPECT_EQ(verdict.other, 2);
  }
}

TEST(HeardViews, RankSilentToEverySurvivorIsTheRank) {
  const auto verdict = combine_views({view(0, 4, {{2, Heard::Silent}}), view(1, 4, {{2, Heard::Silent}}),
                                      view(3, 4, {{2, Heard::Unknown}})});
  EXPECT_EQ(verdict.kind, HeardVerdict::Kind::Rank);
  EXPECT_EQ(verdict.rank, 2);
}

// A rank that sent a view is alive, whatever its peers say of it.
TEST(HeardViews, ARankThatSentAViewIsNotFailed) {
  const auto verdict = combine_views({view(0, 3, {{1, Heard::Silent}}), view(1, 3, {{0, Heard::Silent}})});
  EXPECT_EQ(verdict.kind, HeardVerdict::Kind::Link);
  EXPECT_EQ(verdict.rank, 0);
  EXPECT_EQ(verdict.other, 1);
}

// One view alone that finds a peer silent cannot tell a dead rank from a dead link: it says rank
// (the old diagnosis), and any witness that hears the peer turns it into the link.
TEST(HeardViews, OneViewAloneBlamesTheRank) {
  const auto verdict = combine_views({view(1, 4, {{2, Heard::Silent}})});
  EXPECT_EQ(verdict.kind, HeardVerdict::Kind::Rank);
  EXPECT_EQ(verdict.rank, 2);
}

TEST(HeardViews, NothingSilentOrTooMuchSilentIsUnknown) {
  EXPECT_EQ(combine_views({}).kind, HeardVerdict::Kind::Unknown);
  EXPECT_EQ(combine_views({view(0, 4), view(1, 4), view(2, 4)}).kind, HeardVerdict::Kind::Unknown);
  // Two links.
  EXPECT_EQ(combine_views({view(0, 4, {{1, Heard::Silent}}), view(1, 4, {{0, Heard::Silent}}),
                           view(2, 4, {{3, Heard::Silent}}), view(3, 4, {{2, Heard::Silent}})})
                .kind,
            HeardVerdict::Kind::Unknown);
  // A dead rank and a dead link at once.
  EXPECT_EQ(combine_views({view(0, 4, {{1, Heard::Silent}, {3, Heard::Silent}}), view(1, 4, {{0, Heard::Silent}, {3, Heard::Silent}}),
                           view(2, 4, {{3, Heard::Silent}})})
                .kind,
            HeardVerdict::Kind::Unknown);
}

TEST(HeardViews, OnlyTheFirstViewOfARankCounts) {
  auto verdict = combine_views({view(1, 3, {{2, Heard::Silent}}), view(0, 3), view(0, 3, {{2, Heard::Silent}})});
  EXPECT_EQ(verdict.kind, HeardVerdict::Kind::Link);
}

TEST(HeardViews, ClassifyHeard) {
  EXPECT_EQ(classify_heard(100, false, false, 1200), Heard::Alive);
  EXPECT_EQ(classify_heard(100, true, false, 1200), Heard::Silent);
  EXPECT_EQ(classify_heard(1200, false, false, 1200), Heard::Silent);
  EXPECT_EQ(classify_heard(5000, false, true, 1200), Heard::Unknown);
  EXPECT_EQ(classify_heard(100, false, true, 1200), Heard::Alive);
}

}  // namespace
}  // namespace ringbench
