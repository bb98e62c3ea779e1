// Published training runs: the one place the step model's compute efficiency comes from, and
// the checks of the step model against what the training runs achieved.
//
// Method. For each GPU type one run is *fitted*: the achieved fraction of peak is solved so the
// model reproduces that run's published TFLOP/s per GPU (fixed-point iteration: the exposed DP
// time depends weakly on compute time). Every other run is *checked* with that fraction. Runs
// are modelled with the configuration their source states; where the source is silent the
// assumption is written next to the case, and the same assumption is used for every case of
// that source (never tuned per case).
//
//   A100: fitted on Megatron-LM's GPT-3 run on 384 GPUs (the smallest bubble, m = 384 micro-
//         batches per pipeline), checked on 768, 1,024 and 1,536 GPUs and on Figure 13's ranking.
//   H100: fitted on Llama 3 405B on 8,192 GPUs, checked on 16,384 GPUs.

#include "published_runs.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <mutex>

#include "error.h"
#include "presets.h"

namespace ringbench::model {
namespace {

constexpr const char* kMegatron =
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, SC21 "
    "(arXiv:2104.04473)";
constexpr const char* kLlama3 = "Llama Team, The Llama 3 Herd of Models (arXiv:2407.21783), Table 4";

struct RunCase {
  std::string name;
  CaseRole role;
  std::string cluster;  // preset
  std::string source;
  std::string convention;
  double published;
  std::function<Transformer()> workload;
  TrainingConfig config;
  Placement placement;
};

Placement shape(int tp, int pp, int dp, int cp = 1) {
  Placement p;
  p[Dim::TP] = tp;
  p[Dim::PP] = pp;
  p[Dim::DP] = dp;
  p[Dim::CP] = cp;
  return p;
}

// Megatron-LM 2021 runs: mixed precision, full activation recomputation ("F assumes activation
// recomputation", eq. 3), micro-batch 1 (Table 2), scatter/gather p2p, no sequence parallelism,
// no distributed optimizer, fp32 gradient all-reduce not overlapped (DDP=local in the sc21
// scripts). Assumed: the plain 1F1B schedule (Table 2 does not say interleaved).
TrainingConfig megatron_2021(int global_batch) {
  TrainingConfig c;
  c.global_batch = global_batch;
  c.micro_batch = 1;
  c.recompute = Recompute::Full;
  c.dp_overlap = false;
  return c;
}

// Llama 3 405B pre-training (Table 4 and Sec. 3.3): bf16, sequence 8192, 16M tokens per step
// (2,048 sequences), FSDP-style sharded optimizer, gradient reduction overlapped, interleaved
// pipeline, micro-batch 1, sequence parallel with TP. Assumed: 4 virtual stages; no activation
// recomputation (MFU = HFU). Llama 3 removes one layer from the first and the last stage to
// balance embedding and logits, so its pipeline has 128 layer slots: modelled as 128 layers.
TrainingConfig llama3() {
  TrainingConfig c;
  c.global_batch = 2048;
  c.micro_batch = 1;
  c.virtual_stages = 4;
  c.recompute = Recompute::None;
  c.sequence_parallel = true;
  c.distributed_optimizer = true;
  c.dp_overlap = true;
  return c;
}

Transformer llama3_pipeline() {
  Transformer m = workload_preset("llama3-405b");
  m.layers = 128;
  m.grad_reduce_bytes = 2;  // bf16 reduce-scatter (FSDP)
  return m;
}

const std::vector<RunCase>& run_cases() {
  static const std::vector<RunCase> all = {
      {"GPT-3 174.6B, 384 A100, tp8 pp12 dp4, batch 1536", CaseRole::Fitted, "dgx-a100",
       std::string(kMegatron) + ", Table 2 (PTD parallelism): 153 TFLOP/s per GPU", "HFU", 153.0,
       [] { return workload_preset("gpt3-175b"); }, megatron_2021(1536), shape(8, 12, 4)},
      {"GPT-3 174.6B, 768 A100, tp8 pp12 dp8, batch 1536", CaseRole::Checked, "dgx-a100",
       std::string(kMegatron) + ", Table 2: 149 TFLOP/s per GPU", "HFU", 149.0,
       [] { return workload_preset("gpt3-175b"); }, megatron_2021(1536), shape(8, 12, 8)},
      {"GPT-3 174.6B, 1536 A100, tp8 pp12 dp16, batch 1536", CaseRole::Checked, "dgx-a100",
       std::string(kMegatron) + ", Table 2: 141 TFLOP/s per GPU", "HFU", 141.0,
       [] { return workload_preset("gpt3-175b"); }, megatron_2021(1536), shape(8, 12, 16)},
      {"GPT-3 175B, 1024 A100, tp8 pp8 dp16, batch 1536", CaseRole::Checked, "dgx-a100",
       std::string(kMegatron) + ", Sec. 5.1: 'On n=1024 A100 GPUs using batch size 1536, we achieve X=140 "
                                "teraFLOP/s per GPU' (placement assumed tp8 pp8)",
       "HFU", 140.0, [] { return workload_preset("gpt3-175b"); }, megatron_2021(1536), shape(8, 8, 16)},
      {"Llama 3 405B, 8192 H100, tp8 pp16 dp64, 16M tokens", CaseRole::Fitted, "dgx-h100",
       std::string(kLlama3) + ": 430 TFLOP/s per GPU (43% BF16 MFU)", "MFU", 430.0, llama3_pipeline, llama3(),
       shape(8, 16, 64)},
      {"Llama 3 405B, 16384 H100, tp8 pp16 dp128, 16M tokens", CaseRole::Checked, "dgx-h100",
       std::string(kLlama3) + ": 400 TFLOP/s per GPU (41% BF16 MFU)", "MFU", 400.0, llama3_pipeline, llama3(),
       shape(8, 16, 128)},
  };
  return all;
}

StepResult model_run(const RunCase& c, double efficiency) {
  const Cluster cluster = with_gpus(preset(c.cluster), c.placement.gpus());
  CostModel cost(cluster);
  cost.set_phases(CostModel::Phases::Sequential);
  const Transformer m = c.workload();
  TransformerWorkload w(m, c.config, gpu_spec(cluster.gpu), false);
  const PlacementResult comm = evaluate(cost, w, c.placement);
  return step_from(comm, m, c.config, gpu_spec(cluster.gpu), efficiency);
}

double tflops(const RunCase& c, const StepResult& s) {
  return c.convention == "HFU" ? s.hardware_tflops_per_gpu : s.model_tflops_per_gpu;
}

std::map<std::string, double> fit() {
  std::map<std::string, double> out;
  for (const RunCase& c : run_cases()) {
    if (c.role != CaseRole::Fitted) continue;
    const std::string gpu = preset(c.cluster).gpu;
    double e = 0.5;
    for (int i = 0; i < 30; ++i) {
      const double ratio = c.published / tflops(c, model_run(c, e));
      e = std::min(1.0, e * ratio);
      if (std::abs(ratio - 1.0) < 1e-9) break;
    }
    out[gpu] = e;
  }
  return out;
}

const std::map<std::string, double>& fitted() {
  static const std::map<std::string, double> f = fit();
  return f;
}

}  // namespace

bool RunRow::pass() const { return role == CaseRole::Fitted || std::abs(error) <= kCheckTolerance; }

double compute_efficiency(const std::string& gpu) {
  if (gpu == "test") return 0.5;
  const auto& f = fitted();
  const auto it = f.find(gpu);
  if (it != f.end()) return it->second;
  if (gpu == "B200" || gpu == "L40S") return f.at("H100");
  throw InputError(fmt::format("no compute efficiency for GPU '{}' (fitted: A100, H100)", gpu));
}

std::vector<RunRow> run_validation_table() {
  std::vector<RunRow> rows;
  for (const RunCase& c : run_cases()) {
    const std::string gpu = preset(c.cluster).gpu;
    const StepResult s = model_run(c, compute_efficiency(gpu));
    const double model = tflops(c, s);
    rows.push_back({c.name, c.role, gpu, c.convention, c.source, c.published, model,
                    (model - c.published) / c.published, s});
  }
  return rows;
}

std::vector<RankingRow> ranking_checks() {
  std::vector<RankingRow> rows;
  // Megatron-LM 2021 Fig. 13: 162.2B GPT (32 layers, hidden 20480, 128 heads), 64 A100, tp x pp =
  // 64, global batch 32 and 128, micro-batch 1, full recomputation (run_figure_13.sh). "We see
  // peak performance when the tensor-parallel size is equal to the number of GPUs in a single
  // node (8 with DGX A100 nodes)" (Sec. 5.4.1), for both batch sizes.
  for (int batch : {32, 128}) {
    RankingRow row;
    row.name = fmt::format("162.2B GPT, 64 A100, (tp, pp) in (2,32)..(32,2), batch {}", batch);
    row.source = std::string(kMegatron) + ", Fig. 13 and Sec. 5.4.1";
    row.published_best = "tp8 pp8";
    double best = 0;
    for (int tp : {2, 4, 8, 16, 32}) {
      RunCase c{"", CaseRole::Checked, "dgx-a100", "", "HFU", 0,
                [] { return workload_preset("megatron-162b"); }, megatron_2021(batch), shape(tp, 64 / tp, 1)};
      const StepResult s = model_run(c, compute_efficiency("A100"));
      const std::string name = c.placement.shape();
      row.model_tflops.emplace_back(name, s.hardware_tflops_per_gpu);
      if (s.hardware_tflops_per_gpu > best) {
        best = s.hardware_tflops_per_gpu;
        row.model_best = name;
      }
    }
    if (batch == 32) {
      // Why no GEMM-shape factor decides it: the published A100 GEMM sweeps (Anthony et al. 2024,
      // arXiv:2401.14489; EleutherAI/cookbook sizing/results) do not cover m = 2048 tokens with inner
      // dimension h/tp = 1280..2560, and extrapolated they put tp16 0.8-1.1% behind tp8, astride the
      // 0.7% that reverses the tie (docs/model.md's validation section has the numbers).
      row.known_miss =
          "a near tie (tp16 pp4 ahead by 0.6%; 0.7% more compute time on tp16 would reverse it): tp16's "
          "cross-node TP now costs ring all-reduces at 175 GB/s busbw (1381 ms, 14% of the step) against pp8's "
          "bubble of 7/32 (1792 ms); the rest is outside the model: GEMMs at h/tp = 1280 run at the same fitted "
          "fraction as at 2560 (one per GPU type; published A100 GEMM sweeps do not cover these shapes and vary "
          "by more than 0.7% between neighbouring ones), and its 2-node ring is 11.5% faster than measured "
          "(validation case 6)";
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace ringbench::model
