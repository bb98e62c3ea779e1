#pragma once
// A GPU cluster as the topology model sees it, from the GPU outwards:
//
//   GPU -- scale-up fabric (NVLink/NVSwitch island, or PCIe inside one node)
//       -- NIC (rail r = which NIC of its node the GPU uses; GPUDirect RDMA, no host copy)
//       -- leaf switch (rail-optimised: NIC r of every node of a scalable unit on leaf r)
//       -- spine (leaf uplinks = leaf downlinks / spine_oversubscription)
//       -- pod core (optional; pod uplinks = the pod's leaf uplinks / pod_oversubscription)
//
// An island is the set of GPUs that talk over the scale-up fabric: one DGX node (8 GPUs), or a
// GB200 NVL72 rack (72 GPUs over 18 nodes of 4). Every bandwidth is in GB/s (1e9 bytes/s, see
// units.h) per direction, except NIC line rates, which are in Gb/s as NICs are sold.
//
// The `efficiency` block turns line rates into what NCCL achieves (protocol overhead, flow
// control). Presets take it from published_figures.cpp, where it is fitted once on published
// measurements; JSON files may override it.
//
// Plain values; copy freely. locate() is pure arithmetic, safe from any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "exchange_rate.h"

namespace ringbench::model {

enum class ScaleUpKind { NVLink, PCIe };
const char* to_string(ScaleUpKind kind);

struct ScaleUp {
  ScaleUpKind kind = ScaleUpKind::NVLink;
  int gpus_per_island = 8;          // GPUs sharing the fabric; a multiple of gpus_per_node
  double bw_GBps = 0;               // per GPU, per direction, line rate
  double latency_us = 1.0;          // one hop, GPU to GPU, including the software step
  bool in_switch_reduction = false; // NVLink SHARP (NVLS): the switch reduces and multicasts
};

struct Nics {
  int per_node = 0;       // a GPU uses NIC (local_gpu * per_node / gpus_per_node): its rail
  double bw_Gbps = 0;     // per NIC, per direction, line rate
  double latency_us = 2.0;  // NIC to NIC through one switch, including the software step
};

struct Network {
  bool rail_optimized = true;       // NIC r of each node on leaf r of its scalable unit
  int nodes_per_leaf = 32;          // nodes under one leaf (per rail when rail-optimised)
  double spine_oversubscription = 1.0;  // leaf downlink / uplink capacity, >= 1
  int nodes_per_pod = 0;            // 0: one pod, no core level
  double pod_oversubscription = 1.0;    // pod's leaf uplinks / pod uplinks, >= 1
  double switch_hop_latency_us = 0.3;   // added per switch beyond the first
};

struct Efficiency {
  double scale_up = 1.0;   // achieved / line rate on NVLink or PCIe (ring protocol)
  double in_switch = 1.0;  // achieved / line rate for in-switch reduction traffic (NVLS)
  double nic = 1.0;        // achieved / line rate per NIC
};

// The CPU of a host whose ranks are processes, not GPUs (a machine `topomodel calibrate` measured):
// the kernel's copies, the reductions and each message piece's system calls run on these cores,
// shared by every rank of the host (model/plan_cost.h). cores = 0: not modelled (GPU clusters,
// where the GPU does the work).
struct HostCpu {
  int cores = 0;
  double reduce_GBps = 0;  // one core: dst = dst op src, GB/s of dst
  double copy_GBps = 0;    // one core: memcpy, GB/s copied
  // Per message piece, beyond the link's latency_us (model/link_fit.h), per link class.
  double same_host_message_overhead_us = 0;
  double across_hosts_message_overhead_us = 0;
  // The piece those overheads are per: the transport's pipeline piece in the run the machine was
  // fitted on (ringbench --pipeline). 0: one piece per message.
  int piece_bytes = 0;
  // The kernel's copy rate per core while every rank of the host exchanges at once, by message size
  // (exchange_rate.h), where the run measured it: it then prices the copies and the same-host link
  // in place of copy_GBps, the same-host fit's bandwidth and its per-piece overhead. Empty: not
  // measured (a preset, a multi-host run, a run without a link test).
  std::vector<RatePoint> exchange_copy_rates;
  // The rate one core reduces at while every rank of the host exchanges and reduces, by message
  // size (exchange_rate.h's exchange_reduce_rates), where the run measured it: it then prices the
  // reduced bytes in place of reduce_GBps. Empty: not measured.
  std::vector<RatePoint> exchange_reduce_rates;
};

struct Cluster {
  std::string name;
  std::string description;
  std::string gpu;  // "H100": informational, and the key issue 7's compute model will use
  int nodes = 1;
  int gpus_per_node = 8;
  ScaleUp scale_up;
  Nics nics;
  Network network;
  Efficiency efficiency;
  HostCpu host_cpu;
  double launch_overhead_us = 5.0;  // per collective, whatever the algorithm

  int gpus() const { return nodes * gpus_per_node; }
  int islands() const { return (gpus() + scale_up.gpus_per_island - 1) / scale_up.gpus_per_island; }
  int leaves() const;
  int pods() const;
};

// Throws InputError naming the first bad field ("scale_up.bw_GBps must be > 0, got -1").
void validate(const Cluster& cluster);

// Returns the cluster resized to `nodes` nodes (validated).
Cluster with_nodes(Cluster cluster, int nodes);
// Returns the cluster resized to hold `gpus` GPUs (whole nodes; InputError if not a multiple).
Cluster with_gpus(Cluster cluster, int gpus);

// Where one GPU sits. All indices are global (nic = node * nics.per_node + rail).
struct Location {
  int node, local, island, nic, rail, leaf, pod;
};

inline Location locate(const Cluster& c, int gpu) {
  Location l{};
  l.node = gpu / c.gpus_per_node;
  l.local = gpu % c.gpus_per_node;
  l.island = gpu / c.scale_up.gpus_per_island;
  l.rail = c.nics.per_node > 0 ? l.local * c.nics.per_node / c.gpus_per_node : 0;
  l.nic = l.node * c.nics.per_node + l.rail;
  const int unit = l.node / c.network.nodes_per_leaf;
  l.leaf = c.network.rail_optimized ? unit * c.nics.per_node + l.rail : unit;
  l.pod = c.network.nodes_per_pod > 0 ? l.node / c.network.nodes_per_pod : 0;
  return l;
}

// Multi-line, human-readable description of every level (for `topomodel clusters`).
std::string describe(const Cluster& cluster);

}  // namespace ringbench::model
