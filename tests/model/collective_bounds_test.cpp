// Bounds every collective cost must respect across islands (issue 15, item 3), on every preset
// with two or more islands, from 2 to 128 nodes:
//
//  - no algorithm's busbw exceeds the best busbw one island of the same preset reaches alone
//    (the flat ring's all-gather and reduce-scatter excepted, with the published figure that
//    shows why, below): crossing islands only adds links, and no published multi-node figure
//    shows more for a phased algorithm (collective_cost.h; the one found is checked below);
//  - a phased algorithm's time is at least the sum of its phases' busiest-link times, and each
//    phase's time is at least the bytes its busiest link must carry over that link's capacity,
//    computed here from the cluster's own figures, not from the model's link loads.

#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <vector>

#include "model/collective_cost.h"
#include "model/presets.h"
#include "model/units.h"

namespace ringbench::model {
namespace {

constexpr double kRoundOff = 1e-9;  // relative

struct Shape {
  std::string preset;
  int nodes;
  int islands;
};

// Whole islands only, so every island has the same members (the floors below assume it).
std::vector<Shape> multi_island_shapes() {
  std::vector<Shape> out;
  for (const std::string& name : preset_names()) {
    const Cluster c = preset(name);
    const int nodes_per_island = c.scale_up.gpus_per_island / c.gpus_per_node;
    for (int islands = 2; islands * nodes_per_island <= 128; islands *= 2) {
      out.push_back({name, islands * nodes_per_island, islands});
    }
  }
  return out;
}

std::vector<int> first_gpus(int count) {
  std::vector<int> g(static_cast<size_t>(count));
  std::iota(g.begin(), g.end(), 0);
  return g;
}

CollectiveCost cost_over(CostModel& model, Op op, Algorithm a, int gpus, uint64_t bytes) {
  const std::vector<std::vector<int>> groups = {first_gpus(gpus)};
  return model.cost(op, a, model.batch(groups), bytes);
}

// The best busbw any algorithm reaches on the first island alone.
double one_island_busbw(CostModel& model, Op op, uint64_t bytes) {
  const std::vector<std::vector<int>> groups = {first_gpus(model.cluster().scale_up.gpus_per_island)};
  const auto each = model.cost_each(op, model.batch(groups), bytes);
  return each[static_cast<size_t>(fastest(each))].busbw_GBps;
}

// The flat ring is not phased: across islands NCCL runs one ring per NIC, so only (k-1)/k of
// what each GPU sends crosses its scale-up port (model/algorithms/ring.cpp). Where the scale-up
// port, not the NIC, is the bottleneck (dgx-h100: 349 GB/s NVLink against 8 x 48 GB/s NICs per
// node), its busbw across nodes is above one node's ring busbw: published too, ~380 GB/s for
// multi-node all-reduce without SHARP (NVIDIA GTC 2024 S62129, quoted in NVIDIA/nccl#1649)
// against 370 GB/s on one node (NVIDIA/nccl-tests#212). For all-reduce one node's NVLS is still
// higher (480 GB/s), so only all-gather and reduce-scatter exempt the ring.
bool exempt(Op op, Algorithm a) { return a == Algorithm::Ring && op != Op::AllReduce; }

TEST(CollectiveBounds, NoAlgorithmAcrossIslandsBeatsOneIslandsBusbw) {
  for (const Shape& s : multi_island_shapes()) {
    CostModel model(with_nodes(preset(s.preset), s.nodes));
    const std::vector<std::vector<int>> every_gpu = {first_gpus(model.cluster().gpus())};
    const Batch whole = model.batch(every_gpu);
    for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter}) {
      for (uint64_t bytes : {uint64_t{64} << 20, uint64_t{1} << 30}) {
        const double bound = one_island_busbw(model, op, bytes);
        for (const auto& c : model.cost_each(op, whole, bytes)) {
          if (!c.applicable || exempt(op, c.algorithm)) continue;
          EXPECT_LE(c.busbw_GBps, bound * (1 + kRoundOff))
              << s.preset << " x " << s.nodes << " nodes, " << to_string(op) << " " << to_string(c.algorithm) << ", "
              << bytes << " B: one island reaches " << bound << " GB/s";
        }
      }
    }
  }
}

// Bytes one GPU's scale-up port must carry inside its island for an all-reduce with `a`
// (the algorithm tables in model/algorithms/), weighted to ring-byte time for in-switch traffic.
double scale_up_floor_us(const Cluster& c, Algorithm a, double bytes) {
  const int k = c.scale_up.gpus_per_island;
  const double port = c.scale_up.bw_GBps * kBytesPerGB;
  if (a == Algorithm::InSwitch) return bytes * (1.0 + 1.0 / k) / (port * c.efficiency.in_switch) * 1e6;
  return 2.0 * (k - 1) / k * bytes / (port * c.efficiency.scale_up) * 1e6;
}

// Any all-reduce over M whole islands: each island must send at least 2(M-1)/M x S (the
// bandwidth-optimal bound, reduce-scatter then all-gather between islands) over its NICs.
double network_floor_us(const Cluster& c, int islands, double bytes) {
  const int nics = c.nics.per_node * c.scale_up.gpus_per_island / c.gpus_per_node;
  const double rate = nics * GBps_from_Gbps(c.nics.bw_Gbps) * c.efficiency.nic * kBytesPerGB;
  return 2.0 * (islands - 1) / islands * bytes / rate * 1e6;
}

TEST(CollectiveBounds, PhasedAlgorithmsTakeAtLeastTheSumOfTheirPhases) {
  constexpr uint64_t kBytes = uint64_t{1} << 30;
  int phased_seen = 0;
  for (const Shape& s : multi_island_shapes()) {
    const Cluster cluster = with_nodes(preset(s.preset), s.nodes);
    CostModel model(cluster);
    for (Algorithm a : algorithms_for(Op::AllReduce)) {
      const auto c = cost_over(model, Op::AllReduce, a, cluster.gpus(), kBytes);
      if (!c.applicable) continue;
      const std::string where = s.preset + " x " + std::to_string(s.nodes) + " nodes, " + to_string(a);
      EXPECT_GE(c.network_us, network_floor_us(cluster, s.islands, kBytes) * (1 - kRoundOff)) << where;
      if (!c.phased) continue;
      ++phased_seen;
      EXPECT_GE(c.time_us, (c.latency_us + c.scale_up_us + c.network_us) * (1 - kRoundOff)) << where;
      EXPECT_GE(c.scale_up_us, scale_up_floor_us(cluster, a, kBytes) * (1 - kRoundOff)) << where;
    }
  }
  EXPECT_GT(phased_seen, 0);  // the bound above was exercised
}

// The one published multi-node figure found that tests the phase rule: 2 nodes of 8 H100 with
// 8x 400 Gb/s each, all-reduce at 4-8 GB, 430 GB/s busbw with NVLS (NVIDIA/nccl#1221). NVLS does
// overlap its phases partly, so the model's added phases must not be above it (the rule prices
// low, never high), and the figure must not be above one island's busbw (the bound above holds
// on real hardware too).
TEST(CollectiveBounds, TwoH100NodesNvlsLiesBetweenTheAddedPhasesAndOneIsland) {
  constexpr double kPublishedGBps = 430.0;
  constexpr uint64_t kBytes = 4'000'000'000;
  CostModel model(with_nodes(preset("dgx-h100"), 2));
  const auto nvls = cost_over(model, Op::AllReduce, Algorithm::InSwitch, 16, kBytes);
  const double island = one_island_busbw(model, Op::AllReduce, kBytes);
  std::printf("[nccl#1221] 2x dgx-h100 nvls all-reduce 4 GB: model %.0f GB/s <= published %.0f <= one island %.0f\n",
              nvls.busbw_GBps, kPublishedGBps, island);
  EXPECT_LE(nvls.busbw_GBps, kPublishedGBps);
  EXPECT_LE(kPublishedGBps, island);
}

}  // namespace
}  // namespace ringbench::model
