#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster.h"
#include "model/cluster_json.h"
#include "model/error.h"
#include "model/presets.h"
#include "model/published_figures.h"

namespace ringbench::model {
namespace {

TEST(Presets, AreValidAndCalibrated) {
  for (const auto& name : preset_names()) {
    const Cluster c = preset(name);
    EXPECT_NO_THROW(validate(c)) << name;
    EXPECT_LT(c.efficiency.scale_up, 1.0) << name;
    EXPECT_EQ(c.gpus() % c.scale_up.gpus_per_island, 0) << name;
  }
  EXPECT_EQ(preset("gb200-nvl72").scale_up.gpus_per_island, 72);
  EXPECT_TRUE(preset("dgx-h100").scale_up.in_switch_reduction);
  EXPECT_EQ(preset("pcie-8gpu").scale_up.kind, ScaleUpKind::PCIe);
}

TEST(Presets, UnknownNameListsTheKnownOnes) {
  try {
    preset("dgx-z100");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dgx-h100"), std::string::npos);
  }
}

TEST(Locate, RailOptimisedLeavesHoldOneRailOfAScalableUnit) {
  const Cluster c = with_nodes(preset("dgx-h100"), 64);  // 32 nodes per leaf
  const Location a = locate(c, 8 * 33 + 5);                // node 33, GPU 5
  EXPECT_EQ(a.node, 33);
  EXPECT_EQ(a.local, 5);
  EXPECT_EQ(a.rail, 5);
  EXPECT_EQ(a.nic, 33 * 8 + 5);
  EXPECT_EQ(a.leaf, 1 * 8 + 5);  // scalable unit 1, rail 5
  const Cluster pcie = with_nodes(preset("pcie-8gpu"), 4);  // 2 NICs: GPUs 0-3 on NIC 0
  EXPECT_EQ(locate(pcie, 3).rail, 0);
  EXPECT_EQ(locate(pcie, 4).rail, 1);
}

TEST(Locate, NvlinkIslandsCanSpanNodes) {
  const Cluster c = with_nodes(preset("gb200-nvl72"), 36);
  EXPECT_EQ(locate(c, 71).island, 0);
  EXPECT_EQ(locate(c, 72).island, 1);
  EXPECT_EQ(locate(c, 71).node, 17);
}

TEST(ClusterJson, ExampleFilesLoad) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RINGBENCH_MODEL_CLUSTERS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NO_THROW(load_cluster_file(entry.path())) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 3);
}

// Every field of a Cluster, by name, with its value printed exactly (fmt prints doubles so that
// they read back bit for bit). The structured bindings stop compiling when a field is added to
// a struct, so this list cannot fall behind the structs it describes.
using FieldValues = std::vector<std::pair<std::string, std::string>>;

FieldValues fields(const Cluster& c) {
  const auto& [name, description, gpu, nodes, gpus_per_node, scale_up, nics, network, efficiency, host_cpu,
               launch_overhead_us] = c;
  const auto& [kind, gpus_per_island, scale_up_bw, scale_up_latency, in_switch_reduction] = scale_up;
  const auto& [nics_per_node, nic_bw, nic_latency] = nics;
  const auto& [rail_optimized, nodes_per_leaf, spine_oversubscription, nodes_per_pod, pod_oversubscription,
               switch_hop_latency] = network;
  const auto& [efficiency_scale_up, efficiency_in_switch, efficiency_nic] = efficiency;
  const auto& [cores, reduce_GBps, copy_GBps, same_host_overhead, across_hosts_overhead, piece_bytes,
               exchange_copy_rates, exchange_reduce_rates] = host_cpu;
  auto text = [](const auto& value) { return fmt::format("{}", value); };
  auto curve = [](const std::vector<RatePoint>& points) {
    std::string out;
    for (const RatePoint& p : points) out += fmt::format("{}:{} ", p.bytes, p.GBps);
    return out;
  };
  return {{"name", name},
          {"description", description},
          {"gpu", gpu},
          {"nodes", text(nodes)},
          {"gpus_per_node", text(gpus_per_node)},
          {"scale_up.kind", to_string(kind)},
          {"scale_up.gpus_per_island", text(gpus_per_island)},
          {"scale_up.bw_GBps", text(scale_up_bw)},
          {"scale_up.latency_us", text(scale_up_latency)},
          {"scale_up.in_switch_reduction", text(in_switch_reduction)},
          {"nics.per_node", text(nics_per_node)},
          {"nics.bw_Gbps", text(nic_bw)},
          {"nics.latency_us", text(nic_latency)},
          {"network.rail_optimized", text(rail_optimized)},
          {"network.nodes_per_leaf", text(nodes_per_leaf)},
          {"network.spine_oversubscription", text(spine_oversubscription)},
          {"network.nodes_per_pod", text(nodes_per_pod)},
          {"network.pod_oversubscription", text(pod_oversubscription)},
          {"network.switch_hop_latency_us", text(switch_hop_latency)},
          {"efficiency.scale_up", text(efficiency_scale_up)},
          {"efficiency.in_switch", text(efficiency_in_switch)},
          {"efficiency.nic", text(efficiency_nic)},
          {"host_cpu.cores", text(cores)},
          {"host_cpu.reduce_GBps", text(reduce_GBps)},
          {"host_cpu.copy_GBps", text(copy_GBps)},
          {"host_cpu.same_host_message_overhead_us", text(same_host_overhead)},
          {"host_cpu.across_hosts_message_overhead_us", text(across_hosts_overhead)},
          {"host_cpu.piece_bytes", text(piece_bytes)},
          {"host_cpu.exchange_copy_rates", curve(exchange_copy_rates)},
          {"host_cpu.exchange_reduce_rates", curve(exchange_reduce_rates)},
          {"launch_overhead_us", text(launch_overhead_us)}};
}

// Valid clusters in which every field has, in one or the other, a value other than the one a
// reader falls back to when the key is missing (Cluster{}'s defaults, the fitted efficiency,
// gpus_per_island = gpus_per_node), so a field that the writer drops or the reader ignores comes
// back different. Two, because a PCIe fabric cannot span nodes: kind differs only in the second.
Cluster unusual_cluster() {
  Cluster c;
  c.name = "unusual";
  c.description = "every field away from its default";
  c.gpu = "X900";
  c.nodes = 6;
  c.gpus_per_node = 4;
  c.scale_up = {ScaleUpKind::NVLink, 12, 123.25, 0.75, true};
  c.nics = {2, 312.5, 3.5};
  c.network = {false, 3, 1.5, 6, 2.5, 0.45};
  c.efficiency = {0.61, 0.52, 0.93};
  c.host_cpu = {3, 1.5, 2.5, 0.75, 1.25, 65536, {{16384, 2.25}, {1 << 20, 5.5}}, {{65536, 1.25}, {4 << 20, 0.75}}};
  c.launch_overhead_us = 7.25;
  return c;
}

Cluster unusual_pcie_cluster() {
  Cluster c = unusual_cluster();
  c.name = "unusual-pcie";
  c.scale_up.kind = ScaleUpKind::PCIe;
  c.scale_up.gpus_per_island = c.gpus_per_node;
  return c;
}

TEST(ClusterJson, TheUnusualClustersDifferFromEveryFallback) {
  const Cluster nvlink = unusual_cluster(), pcie = unusual_pcie_cluster();
  ASSERT_NO_THROW(validate(nvlink));
  ASSERT_NO_THROW(validate(pcie));
  Cluster defaults;
  defaults.efficiency = fitted_efficiency();  // what the reader starts from without "base"
  defaults.scale_up.gpus_per_island = nvlink.gpus_per_node;  // its fallback for a missing gpus_per_island
  const FieldValues first = fields(nvlink), second = fields(pcie), fallback = fields(defaults);
  ASSERT_EQ(first.size(), fallback.size());
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_TRUE(first[i].second != fallback[i].second || second[i].second != fallback[i].second)
        << first[i].first << " would not show a dropped field";
}

TEST(ClusterJson, RoundTripsEveryField) {
  std::vector<Cluster> clusters = {unusual_cluster(), unusual_pcie_cluster()};
  for (const auto& name : preset_names()) clusters.push_back(preset(name));  // pcie-8gpu: the other kind
  for (const Cluster& c : clusters) {
    const Cluster back = cluster_from_json(cluster_to_json(c), "round trip");
    const FieldValues original = fields(c), loaded = fields(back);
    ASSERT_EQ(original.size(), loaded.size());
    for (size_t i = 0; i < original.size(); ++i)
      EXPECT_EQ(loaded[i].second, original[i].second) << c.name << ": " << original[i].first;
  }
}

TEST(ClusterJson, BaseStartsFromAPreset) {
  const Cluster c = cluster_from_json(R"({"base": "dgx-a100", "name": "x", "nodes": 4, "nics": {"per_node": 4}})", "t");
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.nics.per_node, 4);
  EXPECT_EQ(c.nics.bw_Gbps, 200.0);
  EXPECT_EQ(c.scale_up.bw_GBps, 300.0);
}

struct BadCase {
  const char* json;
  const char* field;  // must appear in the message
};

void PrintTo(const BadCase& b, std::ostream* os) { *os << b.field; }

class ClusterJsonErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ClusterJsonErrors, NameTheFieldOnOneLine) {
  try {
    cluster_from_json(GetParam().json, "bad.json");
    FAIL() << "accepted " << GetParam().json;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    EXPECT_NE(what.find(GetParam().field), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

constexpr const char* kGood = R"("name": "x", "gpus_per_node": 8, "nics": {"per_node": 8, "bw_Gbps": 200})";

INSTANTIATE_TEST_SUITE_P(
    Fields, ClusterJsonErrors,
    ::testing::Values(
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": "fast"}, "nics": {"per_node": 8, "bw_Gbps": 200}})", "scale_up.bw_GBps"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": -300}, "nics": {"per_node": 8, "bw_Gbps": 200}})", "scale_up.bw_GBps"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "nics": {"per_node": 8, "bw_Gbps": 200}})", "scale_up"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": 300, "bandwith": 1}, "nics": {"per_node": 8, "bw_Gbps": 200}})", "scale_up.bandwith"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": 300, "kind": "infinity"}, "nics": {"per_node": 8, "bw_Gbps": 200}})", "scale_up.kind"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": 300, "gpus_per_island": 12}, "nics": {"per_node": 8, "bw_Gbps": 200}})", "scale_up.gpus_per_island"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": 300}, "nics": {"per_node": 3, "bw_Gbps": 200}})", "nics.per_node"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": 300}, "nics": {"per_node": 8, "bw_Gbps": 200}, "network": {"spine_oversubscription": 0.5}})", "network.spine_oversubscription"},
        BadCase{R"({"name": "x", "gpus_per_node": 8, "scale_up": {"bw_GBps": 300}, "nics": {"per_node": 8, "bw_Gbps": 200}, "efficiency": {"nic": 1.5}})", "efficiency.nic"},
        BadCase{R"({"base": "dgx-q", "name": "x"})", "dgx-q"},
        BadCase{R"({"name": "x", "gpus_per_node": 8,)", "parse error"},
        BadCase{R"({"name": "x", "gpus_per_node": 0, "scale_up": {"bw_GBps": 300}, "nics": {"per_node": 8, "bw_Gbps": 200}})", "gpus_per_node"}));

TEST(ClusterJson, GoodMinimalFileUsesDefaults) {
  const Cluster c = cluster_from_json(std::string("{") + kGood + R"(, "scale_up": {"bw_GBps": 300}})", "t");
  EXPECT_EQ(c.scale_up.gpus_per_island, 8);
  EXPECT_EQ(c.nodes, 1);
}

}  // namespace
}  // namespace ringbench::model
