#include "step.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "error.h"
#include "units.h"

namespace ringbench::model {
namespace {

constexpr double kGB = kBytesPerGB;

int microbatches(const TrainingConfig& c, const Placement& p) {
  return c.global_batch / (c.micro_batch * p[Dim::DP] * p[Dim::EP]);
}

// TP collectives per layer per micro-batch: 2 forward + 2 backward, and 2 more when full
// recomputation repeats the forward.
double tp_per_layer(Recompute r) { return r == Recompute::Full ? 6.0 : 4.0; }

// Parameters one GPU holds: dense weights split over tp x pp, experts also over ep.
double params_per_gpu(const Transformer& m, const Placement& p) {
  const double expert = m.layers * m.expert_params();
  const double dense = m.params() - expert;
  return dense / (p[Dim::TP] * p[Dim::PP]) + expert / (p[Dim::TP] * p[Dim::PP] * p[Dim::EP]);
}

// Activation bytes of one layer for one micro-batch (Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models", Table 2; their constants assume 2-byte
// activations and are scaled by bytes_per_activation / 2). `recompute` None gives the full set.
double layer_activation_bytes(const Transformer& m, const TrainingConfig& c, const Placement& p, Recompute r) {
  const double t = p[Dim::TP];
  const double s_local = static_cast<double>(m.sequence) / p[Dim::CP];
  const double sbh = s_local * c.micro_batch * m.hidden;
  const double attention = m.flash_attention ? 0.0 : 5.0 * m.heads * m.sequence / m.hidden;
  const double scale = m.bytes_per_activation / 2.0;
  double bytes = 0;
  switch (r) {
    case Recompute::None:
      bytes = c.sequence_parallel ? sbh / t * (34 + attention) : sbh * (10 + 24 / t + attention / t);
      break;
    case Recompute::Selective: bytes = c.sequence_parallel ? 34 * sbh / t : sbh * (10 + 24 / t); break;
    case Recompute::Full: bytes = 2 * sbh / (c.sequence_parallel ? t : 1.0); break;
  }
  return bytes * scale;
}

}  // namespace

bool divisible(const Transformer& m, const TrainingConfig& c, const Placement& p, std::string& why) {
  const int tp = p[Dim::TP], pp = p[Dim::PP], v = c.virtual_stages;
  if (m.heads % tp != 0) {
    why = fmt::format("tp {} does not divide {} heads", tp, m.heads);
    return false;
  }
  if (m.layers % (pp * v) != 0) {
    why = fmt::format("pp {} x virtual stages {} does not divide {} layers", pp, v, m.layers);
    return false;
  }
  if (p[Dim::EP] > 1 && m.experts % p[Dim::EP] != 0) {
    why = fmt::format("ep {} does not divide {} experts", p[Dim::EP], m.experts);
    return false;
  }
  if (m.sequence % p[Dim::CP] != 0) {
    why = fmt::format("cp {} does not divide sequence {}", p[Dim::CP], m.sequence);
    return false;
  }
  const int replicas = c.micro_batch * p[Dim::DP] * p[Dim::EP];
  if (c.global_batch % replicas != 0) {
    why = fmt::format("micro-batch {} x dp {} x ep {} does not divide global batch {}", c.micro_batch, p[Dim::DP],
                      p[Dim::EP], c.global_batch);
    return false;
  }
  if (v > 1 && microbatches(c, p) % pp != 0) {
    why = fmt::format("interleaving needs micro-batches ({}) to be a multiple of pp {}", microbatches(c, p), pp);
    return false;
  }
  return true;
}

MemoryUse memory_use(const Transformer& m, const TrainingConfig& c, const Placement& p, const GpuSpec& gpu) {
  MemoryUse u;
  const double params = params_per_gpu(m, p);
  const double shards = c.distributed_optimizer ? p[Dim::DP] * p[Dim::CP] * p[Dim::EP] : 1.0;
  u.weights_GB = params * c.weight_bytes / kGB;
  u.grads_GB = params * c.grad_bytes / kGB;
  u.optimizer_GB = params * c.optimizer_bytes / shards / kGB;
  // The first stage holds the most: 1F1B keeps min(pp, m) micro-batches of layers/pp layers in
  // flight, i.e. `layers` layers' worth; interleaving adds (pp-1)/(pp v) (Narayanan et al. 2021).
  const int pp = p[Dim::PP], m_count = std::max(1, microbatches(c, p));
  const double in_flight = static_cast<double>(std::min(pp, m_count)) / pp;
  const double interleave = c.virtual_stages > 1 ? 1.0 + (pp - 1.0) / (pp * c.virtual_stages) : 1.0;
  double activations = m.layers * in_flight * interleave * layer_activation_bytes(m, c, p, c.recompute);
  if (c.recompute == Recompute::Full) activations += layer_activation_bytes(m, c, p, Recompute::None);
  // fp32 logits of one micro-batch on the last stage, split over tp.
  activations += 4.0 * c.micro_batch * m.sequence / p[Dim::CP] * m.vocab / p[Dim::TP];
  u.activations_GB = activations / kGB;
  u.total_GB = u.weights_GB + u.grads_GB + u.optimizer_GB + u.activations_GB;
  u.usable_GB = gpu.memory_GB * c.usable_memory_fraction;
  return u;
}

TransformerWorkload::TransformerWorkload(Transformer m, TrainingConfig c, GpuSpec gpu, bool check_memory)
    : model_(std::move(m)), config_(c), gpu_(std::move(gpu)), check_memory_(check_memory) {}

bool TransformerWorkload::fits(const Placement& p, std::string& why) const {
  bool ok = divisible(model_, config_, p, why);
  if (ok && check_memory_) {
    const MemoryUse u = memory_use(model_, config_, p, gpu_);
    if (!u.fits()) {
      why = fmt::format("needs {:.1f} GB per GPU, {:.1f} GB usable", u.total_GB, u.usable_GB);
      ok = false;
    }
  }
  if (!ok) rejected_.push_back({p, config_.micro_batch, why});
  return ok;
}

StepTraffic TransformerWorkload::traffic(const Placement& p) const {
  const Transformer& m = model_;
  const TrainingConfig& c = config_;
  StepTraffic t;
  const double mb = microbatches(c, p);
  const double layers_here = static_cast<double>(m.layers) / p[Dim::PP];
  const double s_local = static_cast<double>(m.sequence) / p[Dim::CP];
  const double act = c.micro_batch * s_local * m.hidden * m.bytes_per_activation;  // b s h bytes
  const int tp = p[Dim::TP];
  t.tp_bytes = static_cast<uint64_t>(act);
  t.tp_per_step = tp > 1 ? mb * layers_here * tp_per_layer(c.recompute) : 0.0;
  t.tp_sequence_parallel = c.sequence_parallel;
  t.pp_bytes = static_cast<uint64_t>(act / tp);
  t.pp_per_step = p[Dim::PP] > 1 ? 2.0 * c.virtual_stages * mb : 0.0;
  // Scatter/gather: with sequence parallelism the activation is already split over TP, each rank
  // sends and keeps its own shard, and there is nothing to gather.
  t.pp_gather_bytes = p[Dim::PP] > 1 && tp > 1 && !c.sequence_parallel ? static_cast<uint64_t>(act) : 0;
  // CP: every rank gathers K and V of the whole sequence (its tp share of the KV heads).
  t.cp_bytes = static_cast<uint64_t>(c.micro_batch * static_cast<double>(m.sequence) * 2 * m.kv_dim() *
                                     m.bytes_per_activation / tp);
  t.cp_per_step = p[Dim::CP] > 1 ? mb * layers_here * (c.recompute == Recompute::Full ? 3.0 : 2.0) : 0.0;
  // EP: dispatch and combine all-to-all of the tokens' top-k copies.
  t.ep_bytes = static_cast<uint64_t>(act * m.top_k / (c.sequence_parallel ? tp : 1));
  t.ep_per_step = p[Dim::EP] > 1 && m.experts > 1 ? mb * layers_here * tp_per_layer(c.recompute) : 0.0;
  t.dp_bytes = static_cast<uint64_t>(params_per_gpu(m, p) * m.grad_reduce_bytes);
  t.dp_per_step = p[Dim::DP] > 1 ? 1.0 : 0.0;
  t.dp_sharded = c.distributed_optimizer;
  t.dp_bucket_bytes = c.dp_overlap ? static_cast<uint64_t>(c.bucket_params * m.grad_reduce_bytes) : 0;
  return t;
}

StepResult step_from(const PlacementResult& comm, const Transformer& m, const TrainingConfig& c, const GpuSpec& gpu,
                     double efficiency) {
  StepResult r;
  const Placement& p = comm.placement;
  r.placement = p;
  r.config = c;
  r.comm = comm;
  r.microbatches = microbatches(c, p);
  const double n = p.gpus();
  const double tokens = static_cast<double>(c.global_batch) * m.sequence;
  const double hw_flops = tokens * m.hardware_flops_per_token(c.recompute);
  const double model_flops = tokens * m.model_flops_per_token();
  const double rate = gpu.peak_tflops * 1e12 * efficiency;
  r.compute_us = hw_flops / n / rate * 1e6;
  const StepTraffic& t = comm.traffic;
  r.tp_us = t.tp_per_step * comm.tp.time_us;
  r.cp_us = t.cp_per_step * comm.cp.time_us;
  r.ep_us = t.ep_per_step * comm.ep.time_us;
  r.pp_us = t.pp_per_step * (comm.pp.time_us + comm.pp_gather.time_us);
  const double busy = r.compute_us + r.tp_us + r.cp_us + r.ep_us + r.pp_us;
  r.bubble_us = (p[Dim::PP] - 1.0) / (c.virtual_stages * static_cast<double>(r.microbatches)) * busy;
  if (t.dp_per_step > 0) {
    const double reduce = comm.dp.time_us;
    const double gather = t.dp_sharded ? comm.dp_gather.time_us : 0.0;
    r.dp_total_us = reduce + gather;
    if (c.dp_overlap) {
      // Gradients are final only in the last micro-batch's backward pass: that is the window.
      const double backward_share = c.recompute == Recompute::Full ? 3.0 / 4.0 : 2.0 / 3.0;
      const double window = r.compute_us / r.microbatches * backward_share;
      r.dp_exposed_us = std::max(comm.dp_bucket.time_us, reduce - window) + gather;
    } else {
      r.dp_exposed_us = r.dp_total_us;
    }
  }
  r.step_us = busy + r.bubble_us + r.dp_exposed_us;
  r.tokens_per_s = tokens / (r.step_us * 1e-6);
  r.model_tflops_per_gpu = model_flops / n / (r.step_us * 1e-6) / 1e12;
  r.hardware_tflops_per_gpu = hw_flops / n / (r.step_us * 1e-6) / 1e12;
  r.mfu = r.model_tflops_per_gpu / gpu.peak_tflops;
  r.hfu = r.hardware_tflops_per_gpu / gpu.peak_tflops;
  r.memory = memory_use(m, c, p, gpu);
  return r;
}

StepResult step(CostModel& model, const Transformer& m, const TrainingConfig& c, const Placement& p) {
  validate(m);
  std::string why;
  if (!divisible(m, c, p, why)) throw InputError(fmt::format("placement {}: {}", p.shape(), why));
  const GpuSpec gpu = gpu_spec(model.cluster().gpu);
  const double efficiency = compute_efficiency(model.cluster().gpu);
  const auto saved = model.phases();
  model.set_phases(CostModel::Phases::Sequential);
  TransformerWorkload w(m, c, gpu, false);
  const PlacementResult comm = evaluate(model, w, p);
  model.set_phases(saved);
  return step_from(comm, m, c, gpu, efficiency);
}

StepSweep step_sweep(CostModel& model, const Transformer& m, const TrainingConfig& c, int gpus,
                     const std::vector<int>& micro_batches, const SweepOptions& options) {
  validate(m);
  const GpuSpec gpu = gpu_spec(model.cluster().gpu);
  const double efficiency = compute_efficiency(model.cluster().gpu);
  const auto saved = model.phases();
  model.set_phases(CostModel::Phases::Sequential);
  StepSweep out;
  for (int mb : micro_batches) {
    if (mb < 1) throw InputError(fmt::format("--micro-batch must be >= 1, got {}", mb));
    TrainingConfig cm = c;
    cm.micro_batch = mb;
    TransformerWorkload w(m, cm, gpu);
    try {
      for (const auto& r : sweep(model, w, gpus, options)) out.results.push_back(step_from(r, m, cm, gpu, efficiency));
    } catch (const InputError&) {
      // no placement with this micro-batch: its rejections say why
    }
    out.rejected.insert(out.rejected.end(), w.rejections().begin(), w.rejections().end());
  }
  model.set_phases(saved);
  if (out.results.empty()) {
    throw InputError(fmt::format("no placement of {} GPUs fits {} (first rejection: {})", gpus, m.name,
                                 out.rejected.empty() ? "none" : out.rejected.front().why));
  }
  std::stable_sort(out.results.begin(), out.results.end(),
                   [](const StepResult& a, const StepResult& b) { return a.step_us < b.step_us; });
  return out;
}

}  // namespace ringbench::model
