// Every formula on hand-computed cases (tiny_cluster.h: 100 GB/s NVLink, 50 GB/s NICs, no
// latency unless set), then contention and the auto choice.

#include "model/collective_cost.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/error.h"
#include "tiny_cluster.h"

namespace ringbench::model {
namespace {

using testing::tiny_cluster;
constexpr uint64_t kS = 1'000'000'000;  // 1 GB

CollectiveCost cost_of(const Cluster& c, Op op, Algorithm a, std::vector<std::vector<int>> groups, uint64_t bytes = kS) {
  CostModel model(c);
  return model.cost(op, a, model.batch(groups), bytes);
}

TEST(CollectiveCost, RingAllReduceInsideAnIslandMovesTwiceNMinusOneOverNOfTheData) {
  // n = 2: each GPU sends 2(n-1)/n S = S over a 100 GB/s port: 10 ms; busbw = the port speed.
  const auto c = cost_of(tiny_cluster(), Op::AllReduce, Algorithm::Ring, {{0, 1}});
  EXPECT_NEAR(c.time_us, 10'000.0, 1e-6);
  EXPECT_NEAR(c.wire_bytes_per_gpu, 1e9, 1.0);
  EXPECT_NEAR(c.busbw_GBps, 100.0, 1e-9);
  EXPECT_EQ(c.bottleneck, "gpu 0 nvlink tx");
}

TEST(CollectiveCost, RingAcrossTwoNodesSpreadsTheIslandsTrafficOverItsNics) {
  // 2 nodes x 2 GPUs: T = 2(3/4) S = 1.5 GB per GPU. Inside a node T(k-1)/k = 0.75 GB per GPU at
  // 100 GB/s (7.5 ms); out of the node T = 1.5 GB over 2 NICs at 50 GB/s: 15 ms, the bottleneck.
  const auto c = cost_of(tiny_cluster(), Op::AllReduce, Algorithm::Ring, {{0, 1, 2, 3}});
  EXPECT_NEAR(c.time_us, 15'000.0, 1e-6);
  EXPECT_NE(c.bottleneck.find("nic"), std::string::npos);
}

TEST(CollectiveCost, HierarchicalSendsLessAcrossTheNetworkThanTheFlatRingButAddsItsPhases) {
  // Inside: 2(k-1)/k S = 1 GB per GPU at 100 GB/s = 10 ms; across: 2(M-1)/M S/k = 0.5 GB per GPU
  // on its own NIC at 50 GB/s = 10 ms, against the ring's 15 ms on the NICs. The phases depend on
  // each other, so they add (collective_cost.h): 20 ms, and at 1 GB on this cluster the ring wins.
  const auto c = cost_of(tiny_cluster(), Op::AllReduce, Algorithm::Hierarchical, {{0, 1, 2, 3}});
  EXPECT_TRUE(c.phased);
  EXPECT_NEAR(c.scale_up_us, 10'000.0, 1e-6);
  EXPECT_NEAR(c.network_us, 10'000.0, 1e-6);
  EXPECT_NEAR(c.time_us, 20'000.0, 1e-6);
  const auto ring = cost_of(tiny_cluster(), Op::AllReduce, Algorithm::Ring, {{0, 1, 2, 3}});
  EXPECT_FALSE(ring.phased);
  EXPECT_LT(c.network_us, ring.network_us);
}

TEST(CollectiveCost, TreeAcrossIslandsIsPhasedSoItsChainAndNetworkTimesAdd) {
  // 2 nodes x 2 GPUs, S = 1 GB. Chain inside each island: up and down, (k-1)/k S each = 1 GB per
  // GPU at 100 GB/s = 10 ms. Across: each island sends S/2 up one tree and S/2 down the other = 1
  // GB over its 2 NICs at 50 GB/s = 10 ms. Overlapped, max = 10 ms would be a busbw of 150 GB/s,
  // above the 100 GB/s one island's NVLink gives (the bound in collective_cost.h). They add: 20
  // ms (busbw 75 GB/s), so the ring (15 ms) wins.
  CostModel model(tiny_cluster());
  const Batch b = model.batch(std::vector<std::vector<int>>{{0, 1, 2, 3}});
  const auto tree = model.cost(Op::AllReduce, Algorithm::Tree, b, kS);
  EXPECT_NEAR(tree.time_us, 20'000.0, 1e-6);
  EXPECT_NEAR(tree.busbw_GBps, 75.0, 1e-9);
  EXPECT_EQ(model.cost_best(Op::AllReduce, b, kS).algorithm, Algorithm::Ring);
  // Inside one island there is nothing to sequence: the chain alone, 1 GB per GPU = 10 ms.
  const Batch one = model.batch(std::vector<std::vector<int>>{{0, 1}});
  const auto inside = model.cost(Op::AllReduce, Algorithm::Tree, one, kS);
  EXPECT_FALSE(inside.phased);
  EXPECT_NEAR(inside.time_us, 10'000.0, 1e-6);
}

TEST(CollectiveCost, AllGatherAndReduceScatterMoveNMinusOneOverN) {
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    const auto c = cost_of(tiny_cluster(1), Op(op), Algorithm::Ring, {{0, 1}});
    EXPECT_NEAR(c.wire_bytes_per_gpu, 0.5e9, 1.0) << to_string(op);
    EXPECT_NEAR(c.time_us, 5'000.0, 1e-6) << to_string(op);
    EXPECT_NEAR(c.busbw_GBps, 100.0, 1e-9) << to_string(op);
  }
}

TEST(CollectiveCost, HalvingDoublingMovesRingBytesInLogarithmicSteps) {
  Cluster c = tiny_cluster(4);
  c.nics.latency_us = 1.0;
  c.scale_up.latency_us = 0.5;
  const auto hd = cost_of(c, Op::AllReduce, Algorithm::HalvingDoubling, {{0, 1, 2, 3, 4, 5, 6, 7}}, 1);
  const auto ring = cost_of(c, Op::AllReduce, Algorithm::Ring, {{0, 1, 2, 3, 4, 5, 6, 7}}, 1);
  // 2 log2(8) = 6 steps: distance 1 inside the node (0.5 us), distances 2 and 4 across (1 us).
  EXPECT_NEAR(hd.latency_us, 2 * (0.5 + 1.0 + 1.0), 1e-9);
  // Ring: 2(n-1) = 14 steps at the slowest hop.
  EXPECT_NEAR(ring.latency_us, 14 * 1.0, 1e-9);
  const auto hd_big = cost_of(c, Op::AllReduce, Algorithm::HalvingDoubling, {{0, 1, 2, 3, 4, 5, 6, 7}});
  EXPECT_NEAR(hd_big.wire_bytes_per_gpu, 2.0 * 7 / 8 * 1e9, 1.0);
}

TEST(CollectiveCost, InSwitchReductionMovesEachByteOncePlusTheChunk) {
  Cluster c = tiny_cluster(1);
  c.scale_up.in_switch_reduction = true;
  c.efficiency.in_switch = 0.5;  // NVLS bytes cost twice a ring byte on the same port
  // Per GPU S(1 + 1/k) = 1.5 GB, weighted x2 at 100 GB/s: 30 ms.
  const auto c2 = cost_of(c, Op::AllReduce, Algorithm::InSwitch, {{0, 1}});
  EXPECT_NEAR(c2.time_us, 30'000.0, 1e-6);
  EXPECT_NEAR(c2.wire_bytes_per_gpu, 1.5e9, 1.0);
}

TEST(CollectiveCost, RootedAndDirectOps) {
  const Cluster c = tiny_cluster(2);
  // Send/recv across nodes: S over one NIC at 50 GB/s.
  EXPECT_NEAR(cost_of(c, Op::SendRecv, Algorithm::Direct, {{0, 2}}).time_us, 20'000.0, 1e-6);
  // All-to-all of 4: S/4 to each of 3 peers.
  EXPECT_NEAR(cost_of(c, Op::AllToAll, Algorithm::Direct, {{0, 1, 2, 3}}).wire_bytes_per_gpu, 0.75e9, 1.0);
  // Broadcast along a chain: every GPU but the last forwards S.
  EXPECT_NEAR(cost_of(c, Op::Broadcast, Algorithm::Ring, {{0, 1}}).time_us, 10'000.0, 1e-6);
}

TEST(CollectiveCost, InapplicableAlgorithmsSayWhy) {
  const Cluster c = tiny_cluster(2);
  const auto hd = cost_of(c, Op::AllReduce, Algorithm::HalvingDoubling, {{0, 1, 2}});
  EXPECT_FALSE(hd.applicable);
  EXPECT_NE(hd.why_not.find("power-of-two"), std::string::npos);
  EXPECT_FALSE(cost_of(c, Op::AllReduce, Algorithm::InSwitch, {{0, 1}}).applicable);
  EXPECT_FALSE(cost_of(c, Op::AllReduce, Algorithm::Hierarchical, {{0, 1}}).applicable);
  EXPECT_FALSE(cost_of(c, Op::SendRecv, Algorithm::Direct, {{0, 1, 2}}).applicable);
  EXPECT_FALSE(cost_of(c, Op::AllToAll, Algorithm::Ring, {{0, 1}}).applicable);
}

TEST(Contention, GroupsThatShareANicShareItsBandwidth) {
  // One NIC per node: groups {0,2} and {1,3} both cross through it.
  const Cluster c = tiny_cluster(2, 1);
  const auto alone = cost_of(c, Op::AllReduce, Algorithm::Ring, {{0, 2}});
  const auto together = cost_of(c, Op::AllReduce, Algorithm::Ring, {{0, 2}, {1, 3}});
  EXPECT_NEAR(together.time_us, 2.0 * alone.time_us, 1e-6);
  EXPECT_EQ(together.groups, 2);
  // With a NIC per GPU (rail-optimised) they do not meet.
  const Cluster railed = tiny_cluster(2, 2);
  EXPECT_NEAR(cost_of(railed, Op::AllReduce, Algorithm::Ring, {{0, 2}, {1, 3}}).time_us,
              cost_of(railed, Op::AllReduce, Algorithm::Ring, {{0, 2}}).time_us, 1e-6);
}

TEST(Contention, AnOversubscribedSpineSlowsCrossLeafTrafficByItsRatio) {
  Cluster c = tiny_cluster(2, 1);
  c.network.nodes_per_leaf = 1;  // the two nodes on different leaves
  c.network.spine_oversubscription = 4.0;
  const auto slow = cost_of(c, Op::SendRecv, Algorithm::Direct, {{0, 2}});
  c.network.spine_oversubscription = 1.0;
  const auto fast = cost_of(c, Op::SendRecv, Algorithm::Direct, {{0, 2}});
  EXPECT_NEAR(slow.time_us / fast.time_us, 4.0, 1e-9);
  EXPECT_NE(slow.bottleneck.find("leaf"), std::string::npos);
}

TEST(Contention, CrossRailTrafficGoesThroughTheSpine) {
  Cluster c = tiny_cluster(2, 2);
  c.network.switch_hop_latency_us = 1.0;
  // GPU 0 (rail 0) to GPU 3 (rail 1): different leaves of a rail-optimised fabric, so two more
  // switches (leaf -> spine -> leaf) than GPU 0 to GPU 2 on the same rail.
  const auto cross = cost_of(c, Op::SendRecv, Algorithm::Direct, {{0, 3}}, 1);
  const auto same = cost_of(c, Op::SendRecv, Algorithm::Direct, {{0, 2}}, 1);
  EXPECT_NEAR(cross.latency_us - same.latency_us, 2.0, 1e-9);
}

TEST(CostModel, AutoPicksTheFastestApplicableAlgorithm) {
  CostModel model(tiny_cluster(4));
  const std::vector<std::vector<int>> groups = {{0, 1, 2, 3, 4, 5, 6, 7}};
  const Batch batch = model.batch(groups);
  for (uint64_t bytes : {uint64_t{1000}, kS}) {
    const auto each = model.cost_each(Op::AllReduce, batch, bytes);
    const auto best = model.cost_best(Op::AllReduce, batch, bytes);
    for (const auto& c : each) {
      if (c.applicable) {
        EXPECT_LE(best.time_us, c.time_us) << to_string(c.algorithm);
      }
    }
  }
}

TEST(CostModel, GroupsOfOneCostNothingAndBadMembersAreInputErrors) {
  CostModel model(tiny_cluster(1));
  const std::vector<std::vector<int>> singles = {{0}, {1}};
  EXPECT_EQ(model.cost(Op::AllReduce, Algorithm::Ring, model.batch(singles), kS).time_us, 0.0);
  const std::vector<std::vector<int>> outside = {{0, 7}};
  EXPECT_THROW(model.batch(outside), InputError);
  const std::vector<std::vector<int>> twice = {{1, 1}};
  EXPECT_THROW(model.batch(twice), InputError);
}

TEST(BusFactor, FollowsNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Op::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Op::AllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Op::ReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Op::AllToAll, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Op::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Op::SendRecv, 2), 1.0);
}

}  // namespace
}  // namespace ringbench::model
