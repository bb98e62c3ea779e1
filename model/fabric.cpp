#include "fabric.h"

#include <fmt/format.h>

#include <algorithm>

#include "error.h"
#include "units.h"

namespace ringbench::model {

Fabric::Fabric(const Cluster& cluster)
    : cluster_(cluster),
      gpus_(cluster.gpus()),
      nics_(cluster.nodes * cluster.nics.per_node),
      leaves_(cluster.leaves()),
      pods_(cluster.pods()) {
  const auto& c = cluster_;
  const double gpu_port = bytes_per_s(c.scale_up.bw_GBps) * c.efficiency.scale_up;
  const double nic = bytes_per_s(GBps_from_Gbps(c.nics.bw_Gbps)) * c.efficiency.nic;
  // A leaf's downlinks: one NIC per node on its rail, or every NIC of its nodes.
  const int ports_down = c.network.rail_optimized ? c.network.nodes_per_leaf
                                                  : c.network.nodes_per_leaf * c.nics.per_node;
  const double leaf_uplinks = nic * ports_down / c.network.spine_oversubscription;
  const int leaves_per_pod =
      c.network.nodes_per_pod > 0
          ? c.network.nodes_per_pod / c.network.nodes_per_leaf * (c.network.rail_optimized ? c.nics.per_node : 1)
          : leaves_;
  const double pod_uplinks = leaf_uplinks * leaves_per_pod / c.network.pod_oversubscription;

  capacity_.resize(static_cast<size_t>(2 * (gpus_ + nics_ + leaves_ + pods_)));
  for (int g = 0; g < gpus_; ++g) capacity_[gpu_tx(g)] = capacity_[gpu_rx(g)] = gpu_port;
  for (int n = 0; n < nics_; ++n) capacity_[nic_tx(n)] = capacity_[nic_rx(n)] = nic;
  for (int l = 0; l < leaves_; ++l) capacity_[leaf_up(l)] = capacity_[leaf_down(l)] = leaf_uplinks;
  for (int p = 0; p < pods_; ++p) capacity_[pod_up(p)] = capacity_[pod_down(p)] = pod_uplinks;
}

std::string Fabric::link_name(int link) const {
  const char* fabric = cluster_.scale_up.kind == ScaleUpKind::NVLink ? "nvlink" : "pcie";
  if (link < gpus_) return fmt::format("gpu {} {} tx", link, fabric);
  if ((link -= gpus_) < gpus_) return fmt::format("gpu {} {} rx", link, fabric);
  link -= gpus_;
  const int per_node = cluster_.nics.per_node;
  if (link < nics_) return fmt::format("nic tx node {} rail {}", link / per_node, link % per_node);
  if ((link -= nics_) < nics_) return fmt::format("nic rx node {} rail {}", link / per_node, link % per_node);
  link -= nics_;
  if (link < leaves_) return fmt::format("leaf {} uplinks to spine", link);
  if ((link -= leaves_) < leaves_) return fmt::format("leaf {} downlinks from spine", link);
  link -= leaves_;
  if (link < pods_) return fmt::format("pod {} uplinks to core", link);
  return fmt::format("pod {} downlinks from core", link - pods_);
}

void LinkLoads::clear() {
  for (int link : touched_) bytes_[static_cast<size_t>(link)] = 0.0;
  touched_.clear();
}

LinkLoads::Bottleneck LinkLoads::bottleneck(const Fabric& fabric) const {
  Bottleneck worst;
  for (int link : touched_) {
    const double s = bytes_[static_cast<size_t>(link)] / fabric.capacity(link);
    if (s > worst.seconds) worst = {s, link};
  }
  return worst;
}

LinkLoads::Bottleneck LinkLoads::bottleneck(const Fabric& fabric, int first, int last) const {
  Bottleneck worst;
  for (int link : touched_) {
    if (link < first || link >= last) continue;
    const double s = bytes_[static_cast<size_t>(link)] / fabric.capacity(link);
    if (s > worst.seconds) worst = {s, link};
  }
  return worst;
}

void Traffic::scale_up_tx(int gpu, double bytes, double weight) {
  if (bytes <= 0) return;
  loads_.add(fabric_.gpu_tx(gpu), bytes * weight);
  sent_ += bytes;
}

void Traffic::scale_up_rx(int gpu, double bytes, double weight) {
  if (bytes > 0) loads_.add(fabric_.gpu_rx(gpu), bytes * weight);
}

void Traffic::network(int src, int dst, double bytes) {
  if (bytes <= 0) return;
  const Location s = locate(cluster_, src);
  const Location d = locate(cluster_, dst);
  RB_MODEL_CHECK(s.island != d.island);
  sent_ += bytes;
  loads_.add(fabric_.nic_tx(s.nic), bytes);
  loads_.add(fabric_.nic_rx(d.nic), bytes);
  if (cluster_.scale_up.kind == ScaleUpKind::PCIe) {
    loads_.add(fabric_.gpu_tx(src), bytes);
    loads_.add(fabric_.gpu_rx(dst), bytes);
  }
  if (s.leaf != d.leaf) {
    loads_.add(fabric_.leaf_up(s.leaf), bytes);
    loads_.add(fabric_.leaf_down(d.leaf), bytes);
    if (s.pod != d.pod) {
      loads_.add(fabric_.pod_up(s.pod), bytes);
      loads_.add(fabric_.pod_down(d.pod), bytes);
    }
  }
}

void Traffic::send(int src, int dst, double bytes) {
  if (src / cluster_.scale_up.gpus_per_island == dst / cluster_.scale_up.gpus_per_island) {
    scale_up_tx(src, bytes);
    scale_up_rx(dst, bytes);
  } else {
    network(src, dst, bytes);
  }
}

double Traffic::hop_latency_us(int src, int dst) const {
  const Location s = locate(cluster_, src);
  const Location d = locate(cluster_, dst);
  if (s.island == d.island) return cluster_.scale_up.latency_us;
  const int extra_switches = s.leaf == d.leaf ? 0 : (s.pod == d.pod ? 2 : 4);
  return cluster_.nics.latency_us + extra_switches * cluster_.network.switch_hop_latency_us;
}

}  // namespace ringbench::model
