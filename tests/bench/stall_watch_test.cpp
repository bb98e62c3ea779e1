// stall-probe's counting (bench/stall_probe/stall_watch.h): which gaps are stalls and how records
// merge. That a real stop is seen is stall_probe_test.sh's (SIGSTOP to the running probe).
#include <gtest/gtest.h>

#include <chrono>

#include "stall_watch.h"

namespace ringbench::stall_probe {
namespace {

using namespace std::chrono_literals;

TEST(StallWatch, CountsGapsFromTheThresholdAndLongOnesApart) {
  StallRecord r;
  r.note_gap(50ns);
  r.note_gap(999us);  // just under: not a stall
  EXPECT_EQ(r.stalls, 0u);
  r.note_gap(1ms);
  r.note_gap(9ms);
  r.note_gap(100ms);
  EXPECT_EQ(r.stalls, 3u);
  EXPECT_EQ(r.long_stalls, 1u);
  EXPECT_DOUBLE_EQ(r.longest_ms, 100);
  EXPECT_DOUBLE_EQ(r.lost_ms(), 110);
  EXPECT_NEAR(r.watched_ms(), 110.99905, 1e-9);
  EXPECT_NEAR(r.lost_share(), 110 / 110.99905, 1e-12);
}

TEST(StallWatch, MergedRecordsAddTheirTimesAndKeepTheLongest) {
  StallRecord a, b;
  a.note_gap(20ms);
  a.note_gap(2ms);
  b.note_gap(5ms);
  b.note_gap(30ms);
  a.merge(b);
  EXPECT_EQ(a.stalls, 4u);
  EXPECT_EQ(a.long_stalls, 2u);
  EXPECT_DOUBLE_EQ(a.longest_ms, 30);
  EXPECT_DOUBLE_EQ(a.lost_ms(), 57);
  EXPECT_EQ(StallRecord{}.lost_share(), 0);
}

// Only what cannot depend on the machine: the watch lasts its duration, and its stalls are a part
// of the time it watched.
TEST(StallWatch, AWatchLastsItsDurationAndItsStallsArePartOfIt) {
  const StallRecord r = watch_for_stalls(50ms);
  EXPECT_GE(r.watched, 50ms);
  EXPECT_LE(r.lost, r.watched);
  EXPECT_GE(r.stalls, r.long_stalls);
}

}  // namespace
}  // namespace ringbench::stall_probe
