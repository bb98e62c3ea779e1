#include <gtest/gtest.h>

#include <filesystem>

#include "model/cluster.h"
#include "model/cluster_json.h"
#include "model/error.h"
#include "model/presets.h"

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

TEST(ClusterJson, RoundTripsEveryField) {
  for (const auto& name : preset_names()) {
    const Cluster c = preset(name);
    const Cluster back = cluster_from_json(cluster_to_json(c), "round trip");
    EXPECT_EQ(cluster_to_json(back), cluster_to_json(c)) << name;
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
