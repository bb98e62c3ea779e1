// Published collective bandwidths, and the only place the model's efficiencies come from.
//
// Method. The model at line rate (every efficiency 1) is run on each *fitted* case; the one
// efficiency the case exercises is solved so that the model reproduces the published figure
// (a few fixed-point iterations: the model is linear in the efficiency up to the small latency
// term at these sizes). Those efficiencies then apply to every preset and to JSON clusters that do
// not override them. *Checked* cases are run with the fitted efficiencies and compared: none of
// them took part in the fit, and a different GPU generation, NIC generation or node shape is
// what they test. All sizes are 4 GB (4e9 bytes), where nccl-tests' busbw has converged.
//
// What each fit means physically: scale_up ~0.78 is NCCL's ring protocol overhead on NVLink
// ("~20%", NCCL maintainer, below); nic ~0.96 is what an InfiniBand NIC delivers of its line
// rate; in_switch ~0.69 is NVLS's achieved fraction of NVLink line rate counting the S(1+1/k)
// bytes it moves per GPU. PCIe fabrics reuse the NVLink protocol efficiency: no PCIe figure is
// checked here, which docs/model.md states.

#include "published_figures.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <numeric>

#include "collective_cost.h"
#include "presets.h"
#include "units.h"

namespace ringbench::model {
namespace {

constexpr uint64_t kBytes = 4'000'000'000;  // 4 GB

// busbw of one collective over the first `members` GPUs (or a send/recv GPU 0 -> `members`).
double busbw(const Cluster& cluster, Op op, Algorithm algorithm, int members) {
  CostModel model(cluster);
  std::vector<int> group;
  if (op == Op::SendRecv) {
    group = {0, members};
  } else {
    group.resize(static_cast<size_t>(members));
    std::iota(group.begin(), group.end(), 0);
  }
  const std::vector<std::vector<int>> groups = {group};
  const CollectiveCost c = model.cost(op, algorithm, model.batch(groups), kBytes);
  return c.busbw_GBps;
}

struct Case {
  const char* name;
  CaseRole role;
  double Efficiency::*fits;  // fitted cases: the efficiency this case sets
  const char* metric;
  const char* source;
  double published_GBps;
  std::function<double(const Efficiency&)> model;  // the model's figure with these efficiencies
};

Cluster with(const char* preset_name, const Efficiency& e, int nodes) {
  Cluster c = nominal_preset(preset_name);
  c.efficiency = e;
  c.nodes = nodes;
  return c;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------------------------------------------------------- fitted
      {"DGX A100, 8 GPUs, ring all-reduce", CaseRole::Fitted, &Efficiency::scale_up, "busbw",
       "nccl-tests all_reduce_perf on one DGX A100: 232.54 GB/s (NVIDIA/nccl#1048); 230-235 GB/s is "
       "the commonly reported range",
       232.5, [](const Efficiency& e) { return busbw(with("dgx-a100", e, 1), Op::AllReduce, Algorithm::Ring, 8); }},
      {"HDR 200 Gb/s NIC, GPU to GPU across 2 nodes", CaseRole::Fitted, &Efficiency::nic, "p2p bandwidth",
       "one HDR HCA between two A100 nodes reaches 24 GB/s (NVIDIA/nccl#1048, ib_write_bw and NCCL "
       "with NCCL_IB_HCA=mlx5_0)",
       24.0, [](const Efficiency& e) { return busbw(with("dgx-a100", e, 2), Op::SendRecv, Algorithm::Direct, 8); }},
      {"DGX H100, 8 GPUs, NVLS all-reduce", CaseRole::Fitted, &Efficiency::in_switch, "busbw",
       "NCCL maintainer S. Jeaugey: with NVLink SHARP, 8 H100 reach a peak busbw of ~480 GB/s (algbw "
       "~275 GB/s) (NVIDIA/nccl-tests#212; GTC 2024 S62129)",
       480.0, [](const Efficiency& e) { return busbw(with("dgx-h100", e, 1), Op::AllReduce, Algorithm::InSwitch, 8); }},
      // ---------------------------------------------------------------- checked
      {"DGX H100, 8 GPUs, ring all-reduce", CaseRole::Checked, nullptr, "busbw",
       "S. Jeaugey: NCCL gets an effective NVLink bandwidth of 370 GB/s on H100, seen as busbw with "
       "NCCL_ALGO=RING (NVIDIA/nccl-tests#212); 368.76 GB/s measured with NVLS off (NVIDIA/nccl-tests#309)",
       368.0, [](const Efficiency& e) { return busbw(with("dgx-h100", e, 1), Op::AllReduce, Algorithm::Ring, 8); }},
      {"NDR 400 Gb/s NIC, GPU to GPU across 2 nodes", CaseRole::Checked, nullptr, "p2p bandwidth",
       "NVIDIA (AddyLaddy): ConnectX-7 NICs at NDR rate should achieve up to 48-49 GB/s per NIC "
       "(NVIDIA/nccl-tests#267)",
       48.5, [](const Efficiency& e) { return busbw(with("dgx-h100", e, 2), Op::SendRecv, Algorithm::Direct, 8); }},
      {"2 nodes x 8 A100, 4 HDR NICs per node, ring all-reduce", CaseRole::Checked, nullptr, "busbw",
       "nccl-tests across two A100 nodes with 4x HDR 200 Gb/s each: 86 GB/s (NVIDIA/nccl#1048)",
       86.0,
       [](const Efficiency& e) {
         Cluster c = with("dgx-a100", e, 2);
         c.nics.per_node = 4;
         return busbw(c, Op::AllReduce, Algorithm::Ring, 16);
       }},
      {"2 nodes x DGX A100, 8 HDR NICs per node, ring all-reduce", CaseRole::Checked, nullptr, "busbw",
       "NVIDIA (AddyLaddy), on the 2-node ring against tree: on a DGX A100 with 8x 200 Gb/s IB cards "
       "we measure 192 GB/s all-reduce busbw (NVIDIA/nccl#812)",
       192.0, [](const Efficiency& e) { return busbw(with("dgx-a100", e, 2), Op::AllReduce, Algorithm::Ring, 16); }},
      {"8 B300 (NVLink5, as dgx-b200), ring all-reduce", CaseRole::Checked, nullptr, "busbw",
       "nccl-tests on 8x B300 with NVLS off: busbw 695 GB/s (NVIDIA/nccl#2140)", 695.0,
       [](const Efficiency& e) { return busbw(with("dgx-b200", e, 1), Op::AllReduce, Algorithm::Ring, 8); }},
      {"8 B300 (NVLink5, as dgx-b200), NVLS all-reduce", CaseRole::Checked, nullptr, "busbw",
       "nccl-tests on 8x B300 with NVLS on: busbw 845 GB/s (NVIDIA/nccl#2140)", 845.0,
       [](const Efficiency& e) { return busbw(with("dgx-b200", e, 1), Op::AllReduce, Algorithm::InSwitch, 8); }},
      {"8 H800 (dgx-h100 with NVLink at 200 GB/s), NVLS all-reduce", CaseRole::Checked, nullptr, "busbw",
       "nccl-tests all-reduce on one 8x H800 node: busbw 215 GB/s (NVIDIA/nccl#1374; H800 NVLink is "
       "400 GB/s bidirectional)",
       215.0,
       [](const Efficiency& e) {
         Cluster c = with("dgx-h100", e, 1);
         c.scale_up.bw_GBps = 200.0;
         return busbw(c, Op::AllReduce, Algorithm::InSwitch, 8);
       }},
  };
  return all;
}

Efficiency fit() {
  Efficiency e;  // every efficiency 1: line rate
  for (const Case& c : cases()) {
    if (c.role != CaseRole::Fitted) continue;
    for (int i = 0; i < 20; ++i) {
      const double ratio = c.published_GBps / c.model(e);
      e.*c.fits = std::min(1.0, e.*c.fits * ratio);
      if (std::abs(ratio - 1.0) < 1e-9) break;
    }
  }
  return e;
}

std::string field_name(double Efficiency::*member) {
  if (member == &Efficiency::scale_up) return "efficiency.scale_up";
  if (member == &Efficiency::in_switch) return "efficiency.in_switch";
  if (member == &Efficiency::nic) return "efficiency.nic";
  return "";
}

}  // namespace

const char* to_string(CaseRole role) { return role == CaseRole::Fitted ? "fitted" : "checked"; }

bool ValidationRow::pass() const { return role == CaseRole::Fitted || std::abs(error) <= kCheckTolerance; }

const Efficiency& fitted_efficiency() {
  static const Efficiency e = fit();
  return e;
}

std::vector<ValidationRow> validation_table() {
  std::vector<ValidationRow> rows;
  const Efficiency& e = fitted_efficiency();
  for (const Case& c : cases()) {
    const double model = c.model(e);
    rows.push_back({c.name, c.role, c.fits ? field_name(c.fits) : "", c.metric, c.source, c.published_GBps, model,
                    (model - c.published_GBps) / c.published_GBps});
  }
  return rows;
}

}  // namespace ringbench::model
