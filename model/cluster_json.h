#pragma once
// Clusters from JSON files (`--cluster path.json`). Examples in model/clusters/.
//
//   {
//     "name": "my-h100-pod",                 required unless "base" is given
//     "base": "dgx-h100",                     optional: start from a preset, then override
//     "description": "...", "gpu": "H100",
//     "nodes": 64, "gpus_per_node": 8, "launch_overhead_us": 5,
//     "scale_up":  {"kind": "nvlink"|"pcie", "gpus_per_island": 8, "bw_GBps": 450,
//                   "latency_us": 0.8, "in_switch_reduction": true},
//     "nics":      {"per_node": 8, "bw_Gbps": 400, "latency_us": 2.5},
//     "network":   {"rail_optimized": true, "nodes_per_leaf": 32, "spine_oversubscription": 1,
//                   "nodes_per_pod": 0, "pod_oversubscription": 1, "switch_hop_latency_us": 0.3},
//     "efficiency": {"scale_up": 0.78, "in_switch": 0.69, "nic": 0.96}   optional: default fitted
//     "host_cpu":  {"cores": 2, "reduce_GBps": 3.1, "copy_GBps": 9.8}   optional: CPU ranks
//   }
//
// A machine `topomodel calibrate` measured is written in this format: its ranks are the "GPUs",
// scale_up and nics are the same-host and across-host link classes, each with an optional
// "message_overhead_us" (per message piece), and host_cpu holds the cores and one core's rates.
//
// GB = 1e9 bytes. Without "base", name, gpus_per_node, scale_up.bw_GBps, nics.per_node and
// nics.bw_Gbps are required. Unknown keys are errors (a typo must not silently become a default).
// Every error is one line naming the file and the field: "cluster file x.json: nics.bw_Gbps must
// be a number, got string".

#include <filesystem>
#include <string>

#include "cluster.h"

namespace ringbench::model {

// Parses and validates; InputError on any problem. `source` names the input in errors.
Cluster cluster_from_json(const std::string& text, const std::string& source);
Cluster load_cluster_file(const std::filesystem::path& path);

// The full description, every field, as one line of JSON (stored with every model run), or
// indented by `indent` spaces per level for a file a person reads.
std::string cluster_to_json(const Cluster& cluster, int indent = -1);

}  // namespace ringbench::model
