// The seed's three claims (issue 6, item 5), each derived from the model's own numbers.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "model/collective_cost.h"
#include "model/placement.h"
#include "model/presets.h"
#include "model/sweep.h"
#include "model/units.h"

namespace ringbench::model {
namespace {

// (a) TP=8 inside an NVLink island beats TP=8 spread over 8 nodes, at large messages, by the
// ratio of the per-GPU bandwidths the model assigns to NVLink and to the NIC path, within 15%.
TEST(Claims, TensorParallelInsideAnIslandBeatsAcrossNodesByTheBandwidthRatio) {
  constexpr uint64_t kBytes = 4'000'000'000;
  for (const char* name : {"dgx-a100", "dgx-h100", "dgx-b200"}) {
    const Cluster c = with_nodes(preset(name), 8);
    CostModel model(c);
    Placement inside = parse_placement("tp=8,dp=8");
    Placement across = inside;
    across.order = parse_order("dp-tp");
    const auto in_groups = groups(inside, Dim::TP);
    const auto across_groups = groups(across, Dim::TP);
    ASSERT_EQ(model.batch(in_groups).front().islands(), 1);
    ASSERT_EQ(model.batch(across_groups).front().islands(), 8);
    const double t_in = model.cost(Op::AllReduce, Algorithm::Ring, model.batch(in_groups), kBytes).time_us;
    const double t_across = model.cost(Op::AllReduce, Algorithm::Ring, model.batch(across_groups), kBytes).time_us;

    // The per-GPU bandwidths, from the cluster: NVLink port, and the GPU's share of its NIC.
    const double nvlink = c.scale_up.bw_GBps * c.efficiency.scale_up;
    const double nic_per_gpu = GBps_from_Gbps(c.nics.bw_Gbps) * c.efficiency.nic * c.nics.per_node / c.gpus_per_node;
    const double expected = nvlink / nic_per_gpu;
    const double nominal = c.scale_up.bw_GBps / (GBps_from_Gbps(c.nics.bw_Gbps) * c.nics.per_node / c.gpus_per_node);
    const double measured = t_across / t_in;
    std::printf("[claim a] %-9s TP=8 across 8 nodes / inside one island = %.2fx; model bandwidth ratio %.1f/%.1f GB/s = "
                "%.2fx (nominal %.0f/%.0f GB/s = %.1fx)\n",
                name, measured, nvlink, nic_per_gpu, expected, c.scale_up.bw_GBps,
                GBps_from_Gbps(c.nics.bw_Gbps), nominal);
    EXPECT_GT(measured, 1.0) << name;
    EXPECT_NEAR(measured / expected, 1.0, 0.15) << name;
  }
}

// (b) Hierarchical all-reduce beats a flat ring across nodes: fewer bytes across the network
// (2(M-1)/M S per island instead of 2(n-1)/n S) and M + k latency steps instead of kM.
TEST(Claims, HierarchicalAllReduceBeatsTheFlatRingAcrossNodes) {
  struct Shape {
    const char* preset;
    int nodes;
  };
  for (const Shape s : {Shape{"dgx-a100", 2}, Shape{"dgx-a100", 16}, Shape{"dgx-h100", 4}, Shape{"dgx-h100", 64},
                        Shape{"dgx-b200", 8}, Shape{"pcie-8gpu", 8}, Shape{"gb200-nvl72", 36}}) {
    const Cluster c = with_nodes(preset(s.preset), s.nodes);
    CostModel model(c);
    Placement whole;
    whole[Dim::TP] = c.gpus();  // one group across every node
    const Batch batch = model.batch(groups(whole, Dim::TP));
    for (uint64_t bytes : {uint64_t{1'000'000}, uint64_t{64'000'000}, uint64_t{1'000'000'000}}) {
      const auto ring = model.cost(Op::AllReduce, Algorithm::Ring, batch, bytes);
      const auto hier = model.cost(Op::AllReduce, Algorithm::Hierarchical, batch, bytes);
      ASSERT_TRUE(hier.applicable) << s.preset << ": " << hier.why_not;
      EXPECT_LT(hier.time_us, ring.time_us) << s.preset << " x " << s.nodes << " nodes, " << bytes << " bytes";
    }
    const auto ring = model.cost(Op::AllReduce, Algorithm::Ring, batch, 1'000'000'000);
    const auto hier = model.cost(Op::AllReduce, Algorithm::Hierarchical, batch, 1'000'000'000);
    std::printf("[claim b] %-11s %3d nodes, 1 GB all-reduce: flat ring %.0f us, hierarchical %.0f us (%.2fx)\n", s.preset,
                s.nodes, ring.time_us, hier.time_us, ring.time_us / hier.time_us);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// (c) At 512 GPUs and more, across the placements that fit, the spread of step communication
// time (median / best) is larger than the spread across algorithms at the best placement.
TEST(Claims, PlacementMattersMoreThanAlgorithmAtScale) {
  // GPT-3 175B-like step: 96 layers, hidden 12288, sequence 2048, micro-batch 1, bf16 (one TP
  // all-reduce = 2048 x 12288 x 2 bytes), 96 heads so TP <= 32 among powers of two.
  MessageWorkload w;
  w.tp_bytes = 2048ull * 12288 * 2;
  w.pp_bytes = w.tp_bytes;
  w.gradient_bytes = 175'000'000'000ull * 2;
  w.layers = 96;
  w.microbatches = 16;
  w.max_tp = 32;
  for (const char* name : {"dgx-a100", "dgx-h100"}) {
    for (int gpus : {512, 1024, 2048}) {
      CostModel model(with_gpus(preset(name), gpus));
      const auto results = sweep(model, w, gpus);
      std::vector<double> placement_times;
      for (const auto& r : results) placement_times.push_back(r.step_comm_us);
      const double placement_spread = median(placement_times) / results.front().step_comm_us;

      std::vector<double> algorithm_times;
      for (Algorithm a : algorithms_for(Op::AllReduce)) {
        if (auto t = step_comm_us_with(results.front(), a)) algorithm_times.push_back(*t);
      }
      ASSERT_GE(algorithm_times.size(), 2u);
      const double algorithm_spread = median(algorithm_times) / *std::min_element(algorithm_times.begin(), algorithm_times.end());
      std::printf("[claim c] %-9s %5d GPUs: %zu placements, median/best %.2fx; %zu algorithms at the best (%s, %s), "
                  "median/best %.2fx\n",
                  name, gpus, results.size(), placement_spread, algorithm_times.size(),
                  results.front().placement.shape().c_str(), results.front().placement.order_string().c_str(),
                  algorithm_spread);
      EXPECT_GT(placement_spread, algorithm_spread) << name << " " << gpus;
    }
  }
}

}  // namespace
}  // namespace ringbench::model
