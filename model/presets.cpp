#include "presets.h"

#include <fmt/format.h>

#include <functional>
#include <utility>

#include "cluster_json.h"
#include "error.h"
#include "published_figures.h"

namespace ringbench::model {
namespace {

// Line rates come from the vendors' datasheets: NVLink3 12 links x 25 GB/s = 300 GB/s per
// direction (A100), NVLink4 18 x 25 = 450 (H100), NVLink5 18 x 50 = 900 (B200, GB200); HDR
// 200 Gb/s, NDR 400 Gb/s; PCIe Gen4 x16 = 16 GT/s x 16 lanes x 128/130 = 31.5 GB/s.
// Leaf sizes follow the DGX SuperPOD reference designs (scalable units of 20 A100 / 32 H100
// nodes, one leaf per rail). Latencies are typical NCCL per-step figures (~1 us over NVLink,
// a few us over InfiniBand); the model is validated on bandwidth, not on small-message latency.

Cluster dgx_a100() {
  Cluster c;
  c.name = "dgx-a100";
  c.description = "DGX A100: 8x A100 SXM, NVLink3/NVSwitch, 8x HDR 200 Gb/s, rail-optimised";
  c.gpu = "A100";
  c.gpus_per_node = 8;
  c.scale_up = {ScaleUpKind::NVLink, 8, 300.0, 0.8, false};
  c.nics = {8, 200.0, 2.5};
  c.network = {true, 20, 1.0, 0, 1.0, 0.3};
  return c;
}

Cluster dgx_h100() {
  Cluster c;
  c.name = "dgx-h100";
  c.description = "DGX H100: 8x H100 SXM, NVLink4/NVSwitch with NVLink SHARP, 8x NDR 400 Gb/s, rail-optimised";
  c.gpu = "H100";
  c.gpus_per_node = 8;
  c.scale_up = {ScaleUpKind::NVLink, 8, 450.0, 0.8, true};
  c.nics = {8, 400.0, 2.5};
  c.network = {true, 32, 1.0, 0, 1.0, 0.3};
  return c;
}

Cluster dgx_b200() {
  Cluster c;
  c.name = "dgx-b200";
  c.description = "DGX B200: 8x B200, NVLink5/NVSwitch with NVLink SHARP, 8x NDR 400 Gb/s, rail-optimised";
  c.gpu = "B200";
  c.gpus_per_node = 8;
  c.scale_up = {ScaleUpKind::NVLink, 8, 900.0, 0.8, true};
  c.nics = {8, 400.0, 2.5};
  c.network = {true, 32, 1.0, 0, 1.0, 0.3};
  return c;
}

Cluster pcie_8gpu() {
  Cluster c;
  c.name = "pcie-8gpu";
  c.description = "8x PCIe Gen4 GPUs (L40S-class) per node, no NVLink, 2x 200 Gb/s NICs, 2:1 oversubscribed leaf-spine";
  c.gpu = "L40S";
  c.gpus_per_node = 8;
  c.scale_up = {ScaleUpKind::PCIe, 8, 31.5, 1.5, false};
  c.nics = {2, 200.0, 3.0};
  c.network = {false, 16, 2.0, 0, 1.0, 0.3};
  return c;
}

Cluster gb200_nvl72() {
  Cluster c;
  c.name = "gb200-nvl72";
  c.description = "GB200 NVL72: 72 B200 GPUs in one NVLink5 domain (18 trays of 4), NVLink SHARP, 1x 400 Gb/s NIC per GPU";
  c.gpu = "B200";
  c.gpus_per_node = 4;
  c.nodes = 18;
  c.scale_up = {ScaleUpKind::NVLink, 72, 900.0, 1.0, true};
  c.nics = {4, 400.0, 2.5};
  c.network = {true, 36, 1.0, 0, 1.0, 0.3};
  return c;
}

const std::vector<std::pair<std::string, std::function<Cluster()>>>& table() {
  static const std::vector<std::pair<std::string, std::function<Cluster()>>> presets = {
      {"dgx-a100", dgx_a100}, {"dgx-h100", dgx_h100},       {"dgx-b200", dgx_b200},
      {"pcie-8gpu", pcie_8gpu}, {"gb200-nvl72", gb200_nvl72},
  };
  return presets;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : table()) names.push_back(name);
  return names;
}

Cluster nominal_preset(std::string_view name) {
  for (const auto& [preset_name, make] : table()) {
    if (preset_name == name) return make();
  }
  throw InputError(fmt::format("--cluster: unknown preset '{}' (known: {}; or a path to a .json file)",
                               name, fmt::join(preset_names(), ", ")));
}

Cluster preset(std::string_view name) {
  Cluster c = nominal_preset(name);
  c.efficiency = fitted_efficiency();
  return c;
}

Cluster resolve_cluster(std::string_view name_or_path) {
  if (name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".json")) {
    return load_cluster_file(std::string(name_or_path));
  }
  return preset(name_or_path);
}

}  // namespace ringbench::model
