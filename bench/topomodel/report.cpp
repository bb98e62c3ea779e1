#include "report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/median.h"
#include "model/units.h"
#include "sizes.h"

namespace ringbench::topomodel {

std::string describe_members(const std::vector<int>& m) {
  if (m.empty()) return "none";
  bool contiguous = true;
  for (size_t i = 1; i < m.size(); ++i) contiguous = contiguous && m[i] == m[i - 1] + 1;
  if (contiguous) return m.size() == 1 ? fmt::format("{}", m[0]) : fmt::format("{}-{}", m.front(), m.back());
  if (m.size() <= 4) return fmt::format("{}", fmt::join(m, ","));
  return fmt::format("{},{},{},...,{}", m[0], m[1], m[2], m.back());
}

std::string cluster_line(const model::Cluster& c) {
  return fmt::format("{}: {} nodes x {} GPUs = {} GPUs, {} GPUs per {} island, {} x {:g} Gb/s NICs per node",
                     c.name, c.nodes, c.gpus_per_node, c.gpus(), c.scale_up.gpus_per_island,
                     model::to_string(c.scale_up.kind), c.nics.per_node, c.nics.bw_Gbps);
}

void print_collective_table(const std::vector<model::CollectiveCost>& costs, int best) {
  fmt::print("#\n");
  fmt::print("#   {:<17} {:>11} {:>10} {:>11} {:>9} {:>9} {:>12}  {}\n", "algorithm", "time", "latency", "bandwidth",
             "algbw", "busbw", "wire/GPU", "bottleneck");
  fmt::print("#   {:<17} {:>11} {:>10} {:>11} {:>9} {:>9} {:>12}  {}\n", "", "(us)", "(us)", "(us)", "(GB/s)",
             "(GB/s)", "(bytes)", "(link)");
  for (size_t i = 0; i < costs.size(); ++i) {
    const auto& c = costs[i];
    const char* mark = static_cast<int>(i) == best ? "*" : " ";
    if (!c.applicable) {
      fmt::print(" {}  {:<17} {:>11}  ({})\n", mark, model::to_string(c.algorithm), "n/a", c.why_not);
      continue;
    }
    fmt::print(" {}  {:<17} {:>11.2f} {:>10.2f} {:>11.2f} {:>9.2f} {:>9.2f} {:>12.4g}  {}\n", mark,
               model::to_string(c.algorithm), c.time_us, c.latency_us, c.bandwidth_us, c.algbw_GBps, c.busbw_GBps,
               c.wire_bytes_per_gpu, c.bottleneck.empty() ? "-" : c.bottleneck);
  }
  if (best >= 0) {
    fmt::print("# auto: {} (fastest, marked *)\n", model::to_string(costs[static_cast<size_t>(best)].algorithm));
  } else {
    fmt::print("# auto: no algorithm applies\n");
  }
}

void print_sweep_table(const std::vector<model::PlacementResult>& results, size_t top) {
  using model::Dim;
  fmt::print("#\n");
  fmt::print("# {:>4} {:>5} {:>3} {:>3} {:>5} {:>4} {:<15} {:>7} {:<16} {:>10} {:<16} {:>11} {:>9} {:>12} {:>7}\n",
             "rank", "tp", "cp", "ep", "dp", "pp", "order", "tp_isl", "tp_algorithm", "tp_time", "dp_algorithm",
             "dp_time", "pp_time", "step_comm", "x_best");
  fmt::print("# {:>4} {:>5} {:>3} {:>3} {:>5} {:>4} {:<15} {:>7} {:<16} {:>10} {:<16} {:>11} {:>9} {:>12} {:>7}\n", "",
             "", "", "", "", "", "(inner first)", "", "", "(us)", "", "(us)", "(us)", "(ms)", "");
  const double best = results.empty() ? 0.0 : results.front().step_comm_us;
  for (size_t i = 0; i < results.size() && i < top; ++i) {
    const auto& r = results[i];
    const auto& p = r.placement;
    fmt::print("  {:>4} {:>5} {:>3} {:>3} {:>5} {:>4} {:<15} {:>7} {:<16} {:>10.1f} {:<16} {:>11.1f} {:>9.1f} {:>12.3f} {:>7.2f}\n",
               i + 1, p[Dim::TP], p[Dim::CP], p[Dim::EP], p[Dim::DP], p[Dim::PP], p.order_string(), r.tp_islands,
               p[Dim::TP] > 1 ? model::to_string(r.tp.algorithm) : "-", r.tp.time_us,
               p[Dim::DP] * p[Dim::CP] * p[Dim::EP] > 1 ? model::to_string(r.dp.algorithm) : "-", r.dp.time_us,
               r.pp.time_us, r.step_comm_us / 1000.0, best > 0 ? r.step_comm_us / best : 1.0);
  }
  if (results.size() > top) fmt::print("# ... {} more placements (--top to show more; -o writes all)\n", results.size() - top);
}

void print_validation_table(const std::vector<model::ValidationRow>& rows) {
  fmt::print("# The model against published measurements. Fitted cases set one efficiency each; checked cases\n");
  fmt::print("# are predictions with those efficiencies and must land within {:.0f}%. GB = 1e9 bytes.\n",
             100 * model::kCheckTolerance);
  fmt::print("#\n");
  fmt::print("# {:<3} {:<58} {:<8} {:<21} {:>10} {:>9} {:>8}  {}\n", "id", "case", "role", "fits / metric",
             "published", "model", "error", "result");
  fmt::print("# {:<3} {:<58} {:<8} {:<21} {:>10} {:>9} {:>8}  {}\n", "", "", "", "", "(GB/s)", "(GB/s)", "(%)", "");
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& v = rows[i];
    const bool fitted = v.role == model::CaseRole::Fitted;
    fmt::print("  {:<3} {:<58} {:<8} {:<21} {:>10.1f} {:>9.1f} {:>+8.1f}  {}\n", i + 1, v.name, model::to_string(v.role),
               fitted ? v.fits : v.metric, v.published_GBps, v.model_GBps, 100.0 * v.error,
               fitted ? "fitted" : (v.pass() ? "ok" : "FAIL"));
  }
  fmt::print("#\n# sources:\n");
  for (size_t i = 0; i < rows.size(); ++i) fmt::print("#  {:<3} {}\n", i + 1, rows[i].source);
}


namespace {

double median_abs_error(const std::vector<model::GemmCheck>& checks, const std::string& gpu, double* worst) {
  std::vector<double> v;
  for (const auto& c : checks) {
    if (c.role == model::GemmRole::Checked && c.gpu == gpu) v.push_back(std::abs(c.error));
  }
  std::sort(v.begin(), v.end());
  *worst = v.empty() ? 0.0 : v.back();
  if (v.empty()) return 0.0;
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

void print_attention_core_validation(const std::vector<model::AttentionCoreCheck>& checks) {
  fmt::print("# Megatron-LM's unfused attention core (model/attention_core.h: batched GEMMs, softmax, dropout)\n");
  fmt::print("# against its published timings; its kernels' share of the streaming HBM rate is fitted on one row.\n#\n");
  fmt::print("# {:>6} {:<8} {:<9} {:<8} {:>10} {:>9} {:>8}\n", "tokens", "dropout", "pass", "role", "published", "model",
             "error");
  fmt::print("# {:>6} {:<8} {:<9} {:<8} {:>10} {:>9} {:>8}\n", "", "", "", "", "(ms)", "(ms)", "(%)");
  std::vector<double> errors;
  for (const auto& c : checks) {
    const bool fitted = c.role == model::GemmRole::Fitted;
    fmt::print("  {:>6} {:<8} {:<9} {:<8} {:>10.2f} {:>9.2f} {:>+8.1f}\n", c.tokens, c.dropout ? "0.1" : "none", c.pass,
               fitted ? "fitted" : "checked", c.published_ms, c.model_ms, 100 * c.error);
    if (!fitted) errors.push_back(std::abs(c.error));
  }
  const double median = errors.empty() ? 0.0 : model::median(errors);
  const double worst = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  fmt::print("# unfused attention core: median |error| {:.1f}%, worst {:.1f}% ({} checked); its kernels reach {:.3f} of\n",
             100 * median, 100 * worst, errors.size(),
             model::attention_core_efficiency(model::gemm_gpu("A100")));
  fmt::print("# the A100's streaming rate\n# source: {}\n#\n", model::attention_core_source());
}

void print_gemm_validation(const std::vector<model::GemmCheck>& checks,
                           const std::vector<model::ShapeClassError>& h200) {
  fmt::print("#\n# The GEMM model (model/gemm.h: tile and wave quantization over the SMs, HBM roofline) against\n");
  fmt::print("# published GEMM throughputs. One row per GPU family is fitted (the mainloop efficiency);\n");
  fmt::print("# the rest are checks. Its stated error is the median and worst below.\n#\n");
  fmt::print("# {:<5} {:<18} {:<8} {:>10} {:>9} {:>8}  {}\n", "gpu", "m x n x k", "role", "published", "model", "error",
             "tile, waves");
  fmt::print("# {:<5} {:<18} {:<8} {:>10} {:>9} {:>8}\n", "", "", "", "(TFLOP/s)", "(TFLOP/s)", "(%)");
  for (const auto& c : checks) {
    fmt::print("  {:<5} {:<18} {:<8} {:>10.1f} {:>9.1f} {:>+8.1f}\n", c.gpu, c.shape,
               c.role == model::GemmRole::Fitted ? "fitted" : "checked", c.published_tflops, c.model_tflops,
               100 * c.error);
  }
  for (const std::string gpu : {"A100", "H100"}) {
    double worst = 0;
    const double median = median_abs_error(checks, gpu, &worst);
    const auto first = std::find_if(checks.begin(), checks.end(), [&](const auto& c) { return c.gpu == gpu; });
    const auto count = std::count_if(checks.begin(), checks.end(), [&](const auto& c) {
      return c.gpu == gpu && c.role == model::GemmRole::Checked;
    });
    if (first == checks.end()) continue;
    fmt::print("# {} published GEMMs: median |error| {:.1f}%, worst {:.1f}% ({} checked)\n", gpu, 100 * median,
               100 * worst, count);
    fmt::print("# source: {}\n", first->source);
  }
  fmt::print("#\n");
  fmt::print("# The same model on the measured H200 data (model/gemm_h200_data.cpp; H100-class SMs, faster HBM),\n");
  fmt::print("# error of the model's throughput, by shape class (the fitted row left out):\n#\n");
  fmt::print("# {:<8} {:>6} {:>12} {:>10} {:>12}\n", "class", "rows", "median |err|", "worst", "mean signed");
  fmt::print("# {:<8} {:>6} {:>12} {:>10} {:>12}\n", "", "", "(%)", "(%)", "(%)");
  for (const auto& e : h200) {
    fmt::print("  {:<8} {:>6} {:>12.1f} {:>10.1f} {:>+12.1f}\n", e.shape_class, e.count, 100 * e.median_abs,
               100 * e.worst_abs, 100 * e.mean_signed);
  }
  fmt::print("# H200 mainloop efficiency {:.3f} ({}); A100 {:.3f}\n#\n", model::gemm_gpu("H200").mainloop_efficiency,
             model::gemm_gpu("H200").efficiency_source, model::gemm_gpu("A100").mainloop_efficiency);
}
}  // namespace ringbench::topomodel

namespace ringbench::topomodel {

void print_workload_lines(const model::Transformer& m, const model::TrainingConfig& c, const model::Cluster& cluster) {
  const model::GpuSpec gpu = model::gpu_spec(cluster.gpu);
  fmt::print("# model     {}: {:.1f}e9 params, {} layers, hidden {}, {} heads, seq {}, vocab {}\n", m.name,
             m.params() / 1e9, m.layers, m.hidden, m.heads, m.sequence, m.vocab);
  fmt::print("# training  global batch {} sequences ({:.3g} tokens), recompute {}, sequence parallel {}, "
             "distributed optimizer {}, dp overlap {}, virtual stages {}\n",
             c.global_batch, static_cast<double>(c.global_batch) * m.sequence, model::to_string(c.recompute),
             c.sequence_parallel ? "on" : "off", c.distributed_optimizer ? "on" : "off", c.dp_overlap ? "on" : "off",
             c.virtual_stages);
  const model::GemmGpu g = model::gemm_gpu(cluster.gpu);
  fmt::print("# compute   {} from shapes: {} SMs, {:g} TFLOP/s peak, GEMM mainloop {:.3f} and attention {:.3f} of it "
             "(solved on kernel benchmarks, `topomodel validate`), {:g} GB/s HBM ({:.0f}% reached{}); {:.1f} GB, {:.0f}% usable\n",
             gpu.name, g.sms, g.peak_tflops, g.mainloop_efficiency, model::attention_efficiency(g), g.hbm_GBps,
             100 * g.hbm_efficiency,
             m.flash_attention ? std::string()
                               : fmt::format(", {:.0f}% of that by the unfused attention core",
                                             100 * model::attention_core_efficiency(g)),
             gpu.memory_GB, 100 * c.usable_memory_fraction);
  fmt::print("# memory    ZeRO stage {} over dp x cp x ep; stages {}\n", model::sharding_stage(c),
             c.stage_layers.empty() && c.lighter_edge_stages == 0
                 ? std::string("even")
                 : (c.stage_layers.empty() ? fmt::format("{} layer(s) fewer on the first and last", c.lighter_edge_stages)
                                           : fmt::format("[{}]", fmt::join(c.stage_layers, ", "))));
}

namespace {

// The compute row and its operation classes (model/compute.h), as rows of the breakdown.
template <typename Line>
void print_compute_lines(const model::StepResult& r, const Line& line) {
  line("compute", r.compute_us,
       fmt::format("m x the slowest stage's micro-batch ({} layers{}), priced from shapes:", r.critical_layers,
                   r.logits_us > 0 ? " + logits" : ""));
  const auto& ops = r.compute_ops;
  line("  qkv", ops.qkv_us, "QKV GEMM, forward + 2 backward (+ recomputed forward)");
  line("  proj", ops.proj_us, "attention output projection GEMM");
  line("  mlp", ops.mlp_us, "MLP GEMMs (fc1, fc2)");
  line("  attention", ops.attention_us, "attention core (flash kernel, or QK^T/softmax/dropout/PV)");
  line("  elementwise", ops.elementwise_us, "norms, residual adds, dropout, activation, RoPE: bytes / HBM");
  line("  grad_accum", ops.grad_accumulation_us, "weight gradients added into the main grads: bytes / HBM");
  if (r.logits_us > 0) line("  logits", r.logits_us, "output-layer GEMMs and fp32 cross-entropy");
}

}  // namespace

void print_step_breakdown(const model::StepResult& r) {
  const auto& t = r.comm.traffic;
  const double step = r.step_us;
  auto line = [&](const char* what, double us, const std::string& how) {
    fmt::print("  {:<12} {:>12.1f} {:>7.1f}  {}\n", what, us / 1000.0, step > 0 ? 100 * us / step : 0.0, how);
  };
  fmt::print("#\n# {:<12} {:>12} {:>7}  {}\n", "part", "time", "share", "how");
  fmt::print("# {:<12} {:>12} {:>7}  {}\n", "", "(ms)", "(%)", "");
  print_compute_lines(r, line);
  line("tp", r.tp_us,
       t.tp_per_step > 0 ? fmt::format("{:g} x {} {} of {} ({:.1f} us each, {} island(s))", t.tp_per_step,
                                       model::to_string(r.comm.tp.algorithm),
                                       t.tp_sequence_parallel ? "reduce-scatter+all-gather" : "all-reduce",
                                       human_bytes(static_cast<double>(t.tp_bytes)), r.comm.tp.time_us,
                                       r.comm.tp_islands)
                         : std::string("-"));
  if (t.cp_per_step > 0) {
    line("cp", r.cp_us, fmt::format("{:g} x all-gather of {} ({:.1f} us each)", t.cp_per_step,
                                    human_bytes(static_cast<double>(t.cp_bytes)), r.comm.cp.time_us));
  }
  if (t.ep_per_step > 0) {
    line("ep", r.ep_us, fmt::format("{:g} x all-to-all of {} ({:.1f} us each)", t.ep_per_step,
                                    human_bytes(static_cast<double>(t.ep_bytes)), r.comm.ep.time_us));
  }
  line("pp_p2p", r.pp_us,
       t.pp_per_step <= 0 ? std::string("-")
       : t.pp_gather_bytes > 0
           ? fmt::format("{:g} x (send of {} + tp all-gather of {}) ({:.1f} + {:.1f} us each)", t.pp_per_step,
                         human_bytes(static_cast<double>(t.pp_bytes)),
                         human_bytes(static_cast<double>(t.pp_gather_bytes)), r.comm.pp.time_us,
                         r.comm.pp_gather.time_us)
           : fmt::format("{:g} x send of {} ({:.1f} us each)", t.pp_per_step,
                         human_bytes(static_cast<double>(t.pp_bytes)), r.comm.pp.time_us));
  line("bubble", r.bubble_us,
       fmt::format("fill + drain: the other {} stages' micro-batch / v ({}), against m = {}",
                   r.placement[model::Dim::PP] - 1, r.config.virtual_stages, r.microbatches));
  line("dp_exposed", r.dp_exposed_us,
       t.dp_per_step > 0
           ? fmt::format("{} {} of {} takes {:.1f} ms; {}", model::to_string(r.comm.dp.algorithm),
                         t.dp_sharded ? "reduce-scatter+all-gather" : "all-reduce",
                         human_bytes(static_cast<double>(t.dp_bytes)), r.dp_total_us / 1000,
                         r.config.dp_overlap ? "overlapped with the last backward" : "not overlapped")
           : std::string("-"));
  line("optimizer", r.optimizer_us, "Adam over this GPU's optimizer shard, 34 bytes per parameter / HBM");
  line("step", r.step_us, "");
  fmt::print("#\n");
  fmt::print("# throughput {:.4g} tokens/s; per GPU {:.1f} TFLOP/s model (MFU {:.1f}%), {:.1f} TFLOP/s hardware "
             "(HFU {:.1f}%)\n",
             r.tokens_per_s, r.model_tflops_per_gpu, 100 * r.mfu, r.hardware_tflops_per_gpu, 100 * r.hfu);
  const auto& m = r.memory;
  fmt::print("# memory     {:.1f} GB per GPU (weights {:.1f}, grads {:.1f}, optimizer {:.1f}, activations {:.1f}) of "
             "{:.1f} usable: {}\n",
             m.total_GB, m.weights_GB, m.grads_GB, m.optimizer_GB, m.activations_GB, m.usable_GB,
             m.fits() ? "fits" : "DOES NOT FIT");
  fmt::print("#            the fullest stage: {} ({} layers, {:g} layer x micro-batch activations in flight)\n",
             m.stage, m.layers, m.in_flight_layers);
}

void print_step_table(const std::vector<model::StepResult>& results, size_t top) {
  using model::Dim;
  fmt::print("#\n");
  fmt::print("# {:>4} {:>3} {:>3} {:>4} {:>3} {:<15} {:>3} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>10} {:>6} {:>6} {:>6} {:>6}\n",
             "rank", "tp", "pp", "dp", "mb", "order", "isl", "step", "compute", "tp", "pp_p2p", "bubble", "dp_exp",
             "tokens/s", "MFU", "HFU", "mem", "x_best");
  fmt::print("# {:>4} {:>3} {:>3} {:>4} {:>3} {:<15} {:>3} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>10} {:>6} {:>6} {:>6} {:>6}\n",
             "", "", "", "", "", "(inner first)", "", "(ms)", "(ms)", "(ms)", "(ms)", "(ms)", "(ms)", "", "(%)", "(%)",
             "(GB)", "");
  const double best = results.empty() ? 0.0 : results.front().step_us;
  for (size_t i = 0; i < results.size() && i < top; ++i) {
    const auto& r = results[i];
    const auto& p = r.placement;
    fmt::print("  {:>4} {:>3} {:>3} {:>4} {:>3} {:<15} {:>3} {:>9.1f} {:>9.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} "
               "{:>10.4g} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.2f}\n",
               i + 1, p[Dim::TP], p[Dim::PP], p[Dim::DP], r.config.micro_batch, p.order_string(), r.comm.tp_islands,
               r.step_us / 1e3, r.compute_us / 1e3, r.tp_us / 1e3, r.pp_us / 1e3, r.bubble_us / 1e3,
               r.dp_exposed_us / 1e3, r.tokens_per_s, 100 * r.mfu, 100 * r.hfu, r.memory.total_GB,
               best > 0 ? r.step_us / best : 1.0);
  }
  if (results.size() > top) fmt::print("# ... {} more placements (--top to show more; -o writes all)\n", results.size() - top);
}

void print_rejections(const std::vector<model::TransformerWorkload::Rejection>& rejected, size_t top) {
  size_t memory = 0;
  for (const auto& r : rejected) memory += r.why.find("GB") != std::string::npos ? 1 : 0;
  fmt::print("# rejected  {} (tp, pp, dp, mb) combinations: {} do not fit in memory, {} do not divide the model/batch\n",
             rejected.size(), memory, rejected.size() - memory);
  for (size_t i = 0; i < rejected.size() && i < top; ++i) {
    const auto& r = rejected[i];
    fmt::print("#   {} mb{}: {}\n", r.placement.shape(), r.micro_batch, r.why);
  }
  if (rejected.size() > top) fmt::print("#   ... {} more (-o writes all to /model/rejected)\n", rejected.size() - top);
}

void print_blast_table(const std::vector<model::BlastRadius>& rows) {
  fmt::print("#\n# {:<11} {:>8} {:>12} {:>12} {:>12} {:>9}  {}\n", "component", "count", "failures", "stalled",
             "stalled", "replicas", "what fails with it");
  fmt::print("# {:<11} {:>8} {:>12} {:>12} {:>12} {:>9}  {}\n", "", "(in job)", "(per day)", "(sync GPUs)",
             "(elastic)", "(lost)", "");
  for (const auto& r : rows) {
    fmt::print("  {:<11} {:>8} {:>12.3f} {:>12} {:>12} {:>9}  {}\n", model::to_string(r.component), r.count,
               r.failures_per_day, r.stalled_sync, r.stalled_elastic, r.replicas_lost, r.note);
  }
}

void print_goodput_table(const std::vector<std::pair<double, double>>& rows, double best) {
  fmt::print("#\n# {:>12} {:>9}\n", "interval", "goodput");
  fmt::print("# {:>12} {:>9}\n", "(min)", "(%)");
  for (const auto& [interval, g] : rows) {
    fmt::print("{} {:>12.1f} {:>9.2f}{}\n", interval == best ? "*" : " ", interval / 60, 100 * g,
               interval == best ? "  Young/Daly optimum" : "");
  }
}

void print_run_validation(const std::vector<model::RunRow>& runs, const std::vector<model::RankingRow>& rankings,
                          const model::TrendRow& trend) {
  fmt::print("#\n# Training steps against published runs. Nothing is fitted on a training run (compute from shapes;\n");
  fmt::print("# the fitted constants are the GEMM and collective rows above), so every run is a check, in the\n");
  fmt::print("# source's FLOP convention, and must land within {:.0f}%.\n", 100 * model::kCheckTolerance);
  fmt::print("# Each run must also fit in its GPU's memory with the options its source states.\n");
  fmt::print("#\n# {:<3} {:<52} {:<8} {:<5} {:>10} {:>9} {:>8} {:>11}  {}\n", "id", "run", "role", "conv", "published",
             "model", "error", "memory", "result");
  fmt::print("# {:<3} {:<52} {:<8} {:<5} {:>10} {:>9} {:>8} {:>11}  {}\n", "", "", "", "", "(TFLOP/s)", "(TFLOP/s)", "(%)",
             "(GB/usable)", "");
  std::vector<double> errors;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    errors.push_back(std::abs(r.error));
    const auto& mem = r.step.memory;
    fmt::print("  {:<3} {:<52} {:<8} {:<5} {:>10.1f} {:>9.1f} {:>+8.1f} {:>5.1f}/{:<5.1f}  {}\n", i + 1, r.name,
               model::to_string(r.role), r.convention, r.published_tflops, r.model_tflops, 100 * r.error, mem.total_GB,
               mem.usable_GB, r.pass() ? "ok" : (mem.fits() ? "OFF" : "OFF (does not fit)"));
  }
  std::sort(errors.begin(), errors.end());
  if (!errors.empty()) {
    const size_t n = errors.size();
    fmt::print("# {} runs: median |error| {:.1f}%, worst {:.1f}%\n", n,
               100 * (n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2])), 100 * errors.back());
  }
  fmt::print("#\n# Trend: {}: published {:.3f}, model {:.3f} ({:+.1f}%, within {:.0f}%: {})\n", trend.name,
             trend.published_ratio, trend.model_ratio, 100 * trend.error, 100 * model::kTrendTolerance,
             trend.pass() ? "ok" : "OFF");
  fmt::print("#\n# Placement rankings: the model's fastest of a published sweep must be the published best where its\n");
  fmt::print("# margin over the runner-up exceeds the GEMM model's stated error; a smaller margin is a tie.\n");
  for (const auto& k : rankings) {
    std::string list;
    for (const auto& [name, tf] : k.model_tflops) list += fmt::format("{}{} {:.1f}", list.empty() ? "" : ", ", name, tf);
    fmt::print("  {:<62} published best {:<8} model best {:<8} margin {:.1f}% vs error {:.1f}%: {}\n", k.name,
               k.published_best, k.model_best, 100 * k.margin, 100 * k.tolerance,
               k.tie() ? (k.picked() ? "ok (but within the error: a tie)" : "TIE (not counted)")
                       : (k.picked() ? "ok" : "OFF"));
    fmt::print("#   model HFU TFLOP/s: {}\n", list);
  }
  fmt::print("#\n# Sources:\n");
  for (size_t i = 0; i < runs.size(); ++i) fmt::print("#  run {}: {}\n", i + 1, runs[i].source);
  for (const auto& k : rankings) fmt::print("#  {}: {}\n", k.name, k.source);
}

}  // namespace ringbench::topomodel
