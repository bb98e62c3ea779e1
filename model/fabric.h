#pragma once
// The shared links of a cluster and how traffic loads them: the model's notion of contention.
//
// Every directed resource a byte can queue on is one link id: each GPU's scale-up port (tx, rx),
// each NIC (tx, rx), each leaf's uplinks and downlinks to the spine as one aggregate, each pod's
// uplinks and downlinks to the core. A collective (or a batch of collectives that run at the same
// moment) adds its bytes to the links it crosses; its bandwidth time is then
//
//     max over links of  bytes on the link / achievable capacity of the link
//
// i.e. every flow on a link gets a fair share for the whole collective. That is what makes
// several DP groups whose rings cross the same NIC, or an oversubscribed spine, slow each other
// down, and what names the bottleneck in every report.
//
// Routing: same island -> scale-up ports only. Different islands -> src GPU's NIC (its rail),
// its leaf, then the spine if the destination NIC is on another leaf (another scalable unit, or
// another rail of a rail-optimised fabric), then the pod core if in another pod. On a PCIe
// fabric the NIC traffic also crosses the GPU's PCIe link (there is no NVLink to bypass it).
//
// Fabric is immutable after construction; LinkLoads and Traffic are scratch space owned by one
// thread.

#include <cstdint>
#include <string>
#include <vector>

#include "cluster.h"

namespace ringbench::model {

class Fabric {
 public:
  explicit Fabric(const Cluster& cluster);  // cluster must be valid

  const Cluster& cluster() const { return cluster_; }
  int gpu_tx(int gpu) const { return gpu; }
  int gpu_rx(int gpu) const { return gpus_ + gpu; }
  int nic_tx(int nic) const { return 2 * gpus_ + nic; }
  int nic_rx(int nic) const { return 2 * gpus_ + nics_ + nic; }
  int leaf_up(int leaf) const { return 2 * (gpus_ + nics_) + leaf; }
  int leaf_down(int leaf) const { return 2 * (gpus_ + nics_) + leaves_ + leaf; }
  int pod_up(int pod) const { return 2 * (gpus_ + nics_ + leaves_) + pod; }
  int pod_down(int pod) const { return 2 * (gpus_ + nics_ + leaves_) + pods_ + pod; }
  size_t links() const { return capacity_.size(); }
  // Links [0, scale_up_links()) are GPU scale-up ports; the rest are NICs, leaves and pods.
  int scale_up_links() const { return 2 * gpus_; }

  // Achievable capacity in bytes/s (line rate x fitted efficiency).
  double capacity(int link) const { return capacity_[static_cast<size_t>(link)]; }
  // "nic 3 tx (node 0 rail 3)", "leaf 5 uplinks to spine", ...
  std::string link_name(int link) const;

 private:
  Cluster cluster_;
  int gpus_, nics_, leaves_, pods_;
  std::vector<double> capacity_;
};

// Bytes per link for one batch. add() is O(1); clear() is O(links touched).
class LinkLoads {
 public:
  explicit LinkLoads(size_t links) : bytes_(links, 0.0) {}
  void add(int link, double bytes) {
    double& b = bytes_[static_cast<size_t>(link)];
    if (b == 0.0) touched_.push_back(link);
    b += bytes;
  }
  void clear();

  struct Bottleneck {
    double seconds = 0;  // bytes / capacity on the busiest link
    int link = -1;       // -1 when no link carries bytes
  };
  Bottleneck bottleneck(const Fabric& fabric) const;
  // The busiest link among ids [first, last) only (e.g. the scale-up ports [0, 2 x gpus)).
  Bottleneck bottleneck(const Fabric& fabric, int first, int last) const;

 private:
  std::vector<double> bytes_;
  std::vector<int> touched_;
};

// Routes bytes between GPUs onto links, and knows the latency of each hop.
class Traffic {
 public:
  Traffic(const Fabric& fabric, LinkLoads& loads) : fabric_(fabric), cluster_(fabric.cluster()), loads_(loads) {}

  const Cluster& cluster() const { return cluster_; }

  // Scale-up port traffic. `weight` > 1 makes a byte cost more than line-rate ring traffic
  // (in-switch reduction runs at a lower fitted efficiency than ring copies).
  void scale_up_tx(int gpu, double bytes, double weight = 1.0);
  void scale_up_rx(int gpu, double bytes, double weight = 1.0);
  // Over the network from src's NIC to dst's NIC; src and dst must be in different islands.
  void network(int src, int dst, double bytes);
  // Either of the above, by whether src and dst share an island.
  void send(int src, int dst, double bytes);

  // One message's latency from src to dst: a scale-up hop, or NIC latency plus the extra switch
  // hops (none on the same leaf, 2 through the spine, 4 through the pod core).
  double hop_latency_us(int src, int dst) const;

  // Bytes the GPUs put on any wire (their scale-up ports and NICs), for wire bytes per GPU.
  double sent_bytes() const { return sent_; }

 private:
  const Fabric& fabric_;
  const Cluster& cluster_;
  LinkLoads& loads_;
  double sent_ = 0;
};

}  // namespace ringbench::model
