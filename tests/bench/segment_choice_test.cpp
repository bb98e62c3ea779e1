// --segment auto's cut (bench/ringbench/segment_choice.h): the burst a shaped link passed faster
// than its rate, and the floor it puts under the formula's segment.
#include "segment_choice.h"

#include <gtest/gtest.h>

#include <vector>

#include "spec/algorithm_spec.h"
#include "transport/algorithm.h"

namespace ringbench {
namespace {

// The start-up ping-pong across two namespace hosts shaped by tbf to 1 Gbit/s (2026-12-05, the
// 2-core AMD VM): 16 KiB inside the bucket at wire speed, then the rate.
const std::vector<model::LinkSample> kShapedLink = {
    {64, 9.9}, {1024, 10.0}, {16384, 12.8}, {262144, 1098.1}, {1048576, 6748.2}, {4194304, 33061.4}};

TEST(SegmentChoice, AShapersBurstIsWhatTheLargeSizesBeatTheRateBy) {
  // At 0.122 GB/s: 262144 - 1098.1 x 122 = 128175, 1048576 - 6748.2 x 122 = 225296, 4194304 -
  // 33061.4 x 122 = 160813 bytes beyond the rate; the median of the three.
  EXPECT_NEAR(passed_burst_bytes(kShapedLink, 0.122), 160813.1, 0.5);
  // A link that keeps its rate at every size (latency 10 us, 1 GB/s) passed nothing early.
  const std::vector<model::LinkSample> linear = {{64, 10.1}, {262144, 272.1}, {1048576, 1058.6}, {4194304, 4204.3}};
  EXPECT_EQ(passed_burst_bytes(linear, 1.0), 0.0);
  EXPECT_EQ(passed_burst_bytes({}, 1.0), 0.0);
  EXPECT_EQ(passed_burst_bytes(kShapedLink, 0.0), 0.0);
}

TEST(SegmentChoice, AutoCutsNoSegmentSmallerThanTheBurst) {
  const Algorithm* tree = find_algorithm(Collective::AllReduce, "tree");
  ASSERT_NE(tree, nullptr);
  const uint64_t four_mib = 4 << 20;
  // The formula alone cuts 32 KiB at 4 MiB on this link (5.4 us, 0.122 GB/s, N = 4).
  const uint64_t formula = spec::chosen_segment_bytes(spec::tree_allreduce(), 4, four_mib, 5.4, 0.122);
  EXPECT_EQ(formula, 32u << 10);
  EXPECT_EQ(SegmentChoice(0, {"across hosts", 5.4, 0.122, 0}).bytes_for(*tree, 4, four_mib), formula);
  // With the 160813-byte burst, the next power of two above it, never more than the message.
  const SegmentChoice shaped(0, {"across hosts", 5.4, 0.122, 160813});
  EXPECT_EQ(shaped.bytes_for(*tree, 4, four_mib), 256u << 10);
  EXPECT_EQ(shaped.bytes_for(*tree, 4, 64 << 10), 64u << 10);
  EXPECT_EQ(SegmentChoice(0, {"across hosts", 5.4, 0.122, 3000}).bytes_for(*tree, 4, four_mib), formula)
      << "a burst below the smallest segment sets no floor";
  EXPECT_EQ(SegmentChoice(0, {"across hosts", 5.4, 0.122, 5000}).bytes_for(*tree, 4, four_mib), formula)
      << "the formula's 32 KiB stands above an 8 KiB floor";
  EXPECT_NE(shaped.describe().find("at least 256K"), std::string::npos) << shaped.describe();
  // --segment BYTES pins the segment whatever the link.
  EXPECT_EQ(SegmentChoice(64 << 10, {"across hosts", 5.4, 0.122, 160813}).bytes_for(*tree, 4, four_mib), 64u << 10);
}

// The ring all-reduce's rounds under auto: a core's L2 per round where the host's ranks' buffers
// reach the last-level cache and every rank has a core; one round otherwise; --segment pins them.
TEST(SegmentChoice, TheRingIsCutInRoundsOfACoresCacheOnceTheHostsBuffersFillTheLastLevel) {
  const Algorithm* ring = find_algorithm(Collective::AllReduce, "ring");
  ASSERT_NE(ring, nullptr);
  // The 2-vCPU AMD EPYC VM: 512 KiB of L2 per core, 32 MiB of L3, two ranks with a core each.
  const RingRounds epyc{512 << 10, 32 << 20, 2, true};
  const SegmentChoice choice(0, {}, epyc);
  EXPECT_EQ(choice.bytes_for(*ring, 2, 16 << 20), 512u << 10) << "2 x 16 MiB reach the 32 MiB L3";
  EXPECT_EQ(choice.bytes_for(*ring, 2, 8 << 20), 0u) << "2 x 8 MiB stay inside it: one round";
  EXPECT_EQ(epyc.segment_for(32, 16 << 20), 0u) << "a 512 KiB chunk is one round already";
  RingRounds shared = epyc;
  shared.core_for_every_rank = false;
  EXPECT_EQ(SegmentChoice(0, {}, shared).bytes_for(*ring, 2, 64 << 20), 0u) << "ranks sharing cores: one round";
  EXPECT_EQ(SegmentChoice(0, {}, RingRounds{0, 32 << 20, 2, true}).bytes_for(*ring, 2, 64 << 20), 0u)
      << "caches not described: one round";
  RingRounds four = epyc;
  four.ranks_sharing_cache = 4;
  EXPECT_EQ(four.segment_for(4, 8 << 20), 512u << 10) << "4 x 8 MiB reach it";
  // --segment pins the rounds too; a pinned round at least the message is one round.
  EXPECT_EQ(SegmentChoice(1 << 20, {}, epyc).bytes_for(*ring, 2, 4 << 20), 1u << 20);
  EXPECT_EQ(SegmentChoice(1u << 30, {}, epyc).bytes_for(*ring, 2, 64 << 20), 0u);
  EXPECT_NE(choice.describe().find("rounds of 512K"), std::string::npos) << choice.describe();
  EXPECT_NE(SegmentChoice(0, {}, shared).describe().find("one round (ranks share cores)"), std::string::npos);
}

}  // namespace
}  // namespace ringbench
