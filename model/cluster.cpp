#include "cluster.h"

#include <fmt/format.h>

#include "error.h"
#include "input_limits.h"
#include "units.h"

namespace ringbench::model {

const char* to_string(ScaleUpKind kind) {
  return kind == ScaleUpKind::NVLink ? "nvlink" : "pcie";
}

int Cluster::leaves() const {
  const int units = (nodes + network.nodes_per_leaf - 1) / network.nodes_per_leaf;
  return network.rail_optimized ? units * nics.per_node : units;
}

int Cluster::pods() const {
  return network.nodes_per_pod > 0 ? (nodes + network.nodes_per_pod - 1) / network.nodes_per_pod : 1;
}

namespace {

void require(bool ok, const std::string& field, const std::string& rule, double got) {
  if (!ok) throw InputError(fmt::format("{} must be {}, got {}", field, rule, got));
}

}  // namespace

void validate(const Cluster& c) {
  if (c.name.empty()) throw InputError("name must not be empty");
  require(c.nodes >= 1, "nodes", ">= 1", c.nodes);
  require(c.gpus_per_node >= 1, "gpus_per_node", ">= 1", c.gpus_per_node);
  // In 64 bits: gpus() is an int, and the model keeps per-GPU state (input_limits.h).
  const int64_t gpus = static_cast<int64_t>(c.nodes) * c.gpus_per_node;
  require(gpus <= limits::kMaxGpus, "nodes x gpus_per_node", fmt::format("<= {} GPUs (the model's limit)", limits::kMaxGpus),
          static_cast<double>(gpus));
  require(c.scale_up.gpus_per_island >= 1, "scale_up.gpus_per_island", ">= 1",
          c.scale_up.gpus_per_island);
  require(c.scale_up.gpus_per_island % c.gpus_per_node == 0, "scale_up.gpus_per_island",
          fmt::format("a multiple of gpus_per_node ({})", c.gpus_per_node), c.scale_up.gpus_per_island);
  require(c.scale_up.kind == ScaleUpKind::NVLink || c.scale_up.gpus_per_island == c.gpus_per_node,
          "scale_up.gpus_per_island", "equal to gpus_per_node for a pcie fabric",
          c.scale_up.gpus_per_island);
  require(c.scale_up.bw_GBps > 0, "scale_up.bw_GBps", "> 0", c.scale_up.bw_GBps);
  require(c.scale_up.latency_us >= 0, "scale_up.latency_us", ">= 0", c.scale_up.latency_us);
  require(c.nics.per_node >= 1, "nics.per_node", ">= 1", c.nics.per_node);
  require(c.nics.per_node <= c.gpus_per_node, "nics.per_node", "<= gpus_per_node", c.nics.per_node);
  require(c.gpus_per_node % c.nics.per_node == 0, "nics.per_node", "a divisor of gpus_per_node",
          c.nics.per_node);
  require(c.nics.bw_Gbps > 0, "nics.bw_Gbps", "> 0", c.nics.bw_Gbps);
  require(c.nics.latency_us >= 0, "nics.latency_us", ">= 0", c.nics.latency_us);
  require(c.network.nodes_per_leaf >= 1, "network.nodes_per_leaf", ">= 1", c.network.nodes_per_leaf);
  require(c.network.spine_oversubscription >= 1, "network.spine_oversubscription", ">= 1",
          c.network.spine_oversubscription);
  require(c.network.nodes_per_pod >= 0, "network.nodes_per_pod", ">= 0 (0 = one pod)",
          c.network.nodes_per_pod);
  require(c.network.nodes_per_pod == 0 || c.network.nodes_per_pod % c.network.nodes_per_leaf == 0,
          "network.nodes_per_pod", "a multiple of network.nodes_per_leaf", c.network.nodes_per_pod);
  require(c.network.pod_oversubscription >= 1, "network.pod_oversubscription", ">= 1",
          c.network.pod_oversubscription);
  require(c.network.switch_hop_latency_us >= 0, "network.switch_hop_latency_us", ">= 0",
          c.network.switch_hop_latency_us);
  require(c.efficiency.scale_up > 0 && c.efficiency.scale_up <= 1, "efficiency.scale_up",
          "in (0, 1]", c.efficiency.scale_up);
  require(c.efficiency.in_switch > 0 && c.efficiency.in_switch <= 1, "efficiency.in_switch",
          "in (0, 1]", c.efficiency.in_switch);
  require(c.efficiency.nic > 0 && c.efficiency.nic <= 1, "efficiency.nic", "in (0, 1]",
          c.efficiency.nic);
  require(c.launch_overhead_us >= 0, "launch_overhead_us", ">= 0", c.launch_overhead_us);
}

Cluster with_nodes(Cluster cluster, int nodes) {
  if (nodes < 1) throw InputError(fmt::format("--nodes must be >= 1, got {}", nodes));
  cluster.nodes = nodes;
  validate(cluster);
  return cluster;
}

Cluster with_gpus(Cluster cluster, int gpus) {
  if (gpus < 1) throw InputError(fmt::format("--gpus must be >= 1, got {}", gpus));
  if (gpus % cluster.gpus_per_node != 0) {
    throw InputError(fmt::format("--gpus {} is not a whole number of {}-GPU nodes of {}", gpus,
                                 cluster.gpus_per_node, cluster.name));
  }
  return with_nodes(std::move(cluster), gpus / cluster.gpus_per_node);
}

std::string describe(const Cluster& c) {
  std::string out = fmt::format("{}: {}\n", c.name, c.description);
  out += fmt::format("  gpu          {} x {} per node, {} nodes = {} GPUs\n", c.gpu, c.gpus_per_node,
                     c.nodes, c.gpus());
  out += fmt::format("  scale-up     {}, {} GPUs per island, {:g} GB/s per GPU per direction, {:g} us{}\n",
                     to_string(c.scale_up.kind), c.scale_up.gpus_per_island, c.scale_up.bw_GBps,
                     c.scale_up.latency_us,
                     c.scale_up.in_switch_reduction ? ", in-switch reduction (NVLS)" : "");
  out += fmt::format("  nics         {} per node x {:g} Gb/s ({:g} GB/s), {:g} us\n", c.nics.per_node,
                     c.nics.bw_Gbps, GBps_from_Gbps(c.nics.bw_Gbps), c.nics.latency_us);
  out += fmt::format("  leaf         {}, {} nodes per leaf\n",
                     c.network.rail_optimized ? "rail-optimised" : "not rail-optimised",
                     c.network.nodes_per_leaf);
  out += fmt::format("  spine        oversubscription {:g}:1\n", c.network.spine_oversubscription);
  if (c.network.nodes_per_pod > 0) {
    out += fmt::format("  pod          {} nodes per pod, oversubscription {:g}:1\n",
                       c.network.nodes_per_pod, c.network.pod_oversubscription);
  }
  out += fmt::format("  efficiency   scale-up {:.3f}, in-switch {:.3f}, nic {:.3f}\n",
                     c.efficiency.scale_up, c.efficiency.in_switch, c.efficiency.nic);
  return out;
}

}  // namespace ringbench::model
