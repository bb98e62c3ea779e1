#include "step.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
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

// Parameters of one transformer layer on one GPU: dense weights split over tp, experts also over ep.
double layer_params_per_gpu(const Transformer& m, const Placement& p) {
  const double expert = m.expert_params();
  return (m.layer_params() - expert) / p[Dim::TP] + expert / (p[Dim::TP] * p[Dim::EP]);
}

// Parameters stage `i` of `layers.size()` holds on one GPU: its layers, the input embedding (and
// learned positions) on the first stage, the output layer on the last (Megatron keeps a copy of
// a tied embedding there when the stages differ).
double stage_params(const Transformer& m, const Placement& p, const std::vector<int>& layers, size_t i) {
  const double vocab = static_cast<double>(m.vocab) * m.hidden / p[Dim::TP];
  double params = layers[i] * layer_params_per_gpu(m, p);
  if (i == 0) params += vocab + (m.learned_positions ? static_cast<double>(m.sequence) * m.hidden : 0.0);
  if (i + 1 == layers.size() && (layers.size() > 1 || !m.tied_embeddings)) params += vocab;
  return params;
}

double max_stage_params(const Transformer& m, const TrainingConfig& c, const Placement& p) {
  const std::vector<int> layers = stage_layers(m, c, p[Dim::PP]);
  double most = 0;
  for (size_t i = 0; i < layers.size(); ++i) most = std::max(most, stage_params(m, p, layers, i));
  return most;
}

// Activation bytes of one layer for one micro-batch (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", Sec. 4, redone for the layer's structure). Saved per
// token: the 2 norm inputs, the QKV input and the MLP input (4h elements, replicated over TP
// without sequence parallelism), Q (h), K and V (2 kv), the attention output (h), the MLP's fc1
// output (f, or 2f gated) and activation output (f), split over TP; 1-byte dropout masks (2h);
// without flash attention, per score the softmax output (2 bytes) and with dropout its mask (1)
// and output (2). GPT (f = 4h, kv = h): 34 s b h + 5 a s^2 b bytes, Korthikanti's Table 2.
double layer_activation_bytes(const Transformer& m, const TrainingConfig& c, const Placement& p, Recompute r) {
  const double t = p[Dim::TP], act = m.bytes_per_activation;
  const double tokens = static_cast<double>(m.sequence) / p[Dim::CP] * c.micro_batch;
  const double h = m.hidden;
  if (r == Recompute::Full) return tokens * h * act / (c.sequence_parallel ? t : 1.0);  // the layer input
  const double replicated = 4 * h * act + (m.dropout ? 2 * h : 0.0);
  const double split = (2 * h + 2 * m.kv_dim() + (m.gated_mlp ? 3.0 : 2.0) * m.ffn()) * act;
  double bytes = tokens * (c.sequence_parallel ? (replicated + split) / t : replicated + split / t);
  if (r == Recompute::None && !m.flash_attention) {
    bytes += tokens * static_cast<double>(m.heads) / t * m.sequence * (m.dropout ? 5.0 : 2.0);
  }
  return bytes;
}

// Model chunks (micro-batch x chunk of L_i / v layers) stage `i` keeps at its peak: 1F1B runs
// p - i forwards before its first backward; interleaving runs 2(p-i-1) + (v-1)N + 1 model chunks
// (Megatron-LM's warm-up with N = p micro-batches per round; Narayanan et al. 2021 Sec. 2.2.2),
// never more than the step has.
double in_flight_chunks(const TrainingConfig& c, const Placement& p, int stage) {
  const int pp = p[Dim::PP], v = c.virtual_stages, m = std::max(1, microbatches(c, p));
  if (v == 1) return static_cast<double>(std::min(pp - stage, m));
  const double round = c.round_microbatches > 0 ? c.round_microbatches : pp;
  return std::min(2.0 * (pp - stage - 1) + (v - 1.0) * round + 1, static_cast<double>(m) * v);
}

// Bytes of one chunk's input for one micro-batch (b s h, split over tp with sequence parallelism):
// what free_stage_inputs releases per chunk in flight. Layer_activation_bytes counts it as the
// first layer's norm input. With full recomputation it is the checkpoint itself and stays.
double freed_stage_input_bytes(const Transformer& m, const TrainingConfig& c, const Placement& p) {
  if (!c.free_stage_inputs || c.recompute == Recompute::Full) return 0.0;
  const double tokens = static_cast<double>(m.sequence) / p[Dim::CP] * c.micro_batch;
  return tokens * m.hidden * m.bytes_per_activation / (c.sequence_parallel ? p[Dim::TP] : 1.0);
}

MemoryUse stage_memory(const Transformer& m, const TrainingConfig& c, const Placement& p,
                       const std::vector<int>& layers, size_t i) {
  MemoryUse u;
  const double params = stage_params(m, p, layers, i);
  const double shards = p[Dim::DP] * p[Dim::CP] * p[Dim::EP];
  const int zero = sharding_stage(c);
  u.stage = static_cast<int>(i);
  u.layers = layers[i];
  u.optimizer_GB = params * c.optimizer_bytes / (zero >= 1 ? shards : 1.0) / kGB;
  u.grads_GB = params * c.grad_bytes / (zero >= 2 ? shards : 1.0) / kGB;
  u.weights_GB = params * c.weight_bytes / (zero >= 3 ? shards : 1.0) / kGB;
  if (zero >= 3) u.weights_GB += 2 * layer_params_per_gpu(m, p) * c.weight_bytes / kGB;  // gathered + prefetched
  const double chunks = in_flight_chunks(c, p, u.stage);
  u.in_flight_layers = chunks * layers[i] / c.virtual_stages;
  double activations = u.in_flight_layers * layer_activation_bytes(m, c, p, c.recompute) -
                       chunks * freed_stage_input_bytes(m, c, p);
  // Full recomputation rebuilds one layer's whole working set in the backward pass.
  if (c.recompute == Recompute::Full) activations += layer_activation_bytes(m, c, p, Recompute::None);
  // The last stage's fp32 logits of one micro-batch, split over tp.
  if (i + 1 == layers.size()) activations += 4.0 * c.micro_batch * m.sequence / p[Dim::CP] * m.vocab / p[Dim::TP];
  u.activations_GB = activations / kGB;
  u.total_GB = u.weights_GB + u.grads_GB + u.optimizer_GB + u.activations_GB;
  return u;
}

bool stages_divide(const Transformer& m, const TrainingConfig& c, int pp, std::string& why) {
  const int v = c.virtual_stages;
  if (!c.stage_layers.empty()) {
    int sum = 0;
    for (int l : c.stage_layers) sum += l < 1 ? -m.layers - 1 : l;
    if (static_cast<int>(c.stage_layers.size()) != pp || sum != m.layers) {
      why = fmt::format("stage layers [{}] are not pp {} stages of >= 1 layer summing to {} layers",
                        fmt::join(c.stage_layers, ", "), pp, m.layers);
      return false;
    }
    return true;
  }
  const int k = pp > 1 ? c.lighter_edge_stages : 0;
  if ((m.layers + 2 * k) % (pp * v) != 0 || (m.layers + 2 * k) / pp - k < 1) {
    why = k > 0 ? fmt::format("pp {} x virtual stages {} does not divide {} layers + 2 x {} lighter edge-stage slots",
                              pp, v, m.layers, k)
                : fmt::format("pp {} x virtual stages {} does not divide {} layers", pp, v, m.layers);
    return false;
  }
  return true;
}

}  // namespace

int sharding_stage(const TrainingConfig& c) { return std::max(c.zero_stage, c.distributed_optimizer ? 1 : 0); }

std::vector<int> stage_layers(const Transformer& m, const TrainingConfig& c, int pp) {
  if (!c.stage_layers.empty()) return c.stage_layers;
  const int k = pp > 1 ? c.lighter_edge_stages : 0;
  std::vector<int> layers(static_cast<size_t>(pp), (m.layers + 2 * k) / pp);
  layers.front() -= k;
  layers.back() -= k;
  return layers;
}

bool divisible(const Transformer& m, const TrainingConfig& c, const Placement& p, std::string& why) {
  const int tp = p[Dim::TP], pp = p[Dim::PP], v = c.virtual_stages;
  if (m.heads % tp != 0) {
    why = fmt::format("tp {} does not divide {} heads", tp, m.heads);
    return false;
  }
  if (!stages_divide(m, c, pp, why)) return false;
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
  if (v > 1 && c.round_microbatches == 0 && microbatches(c, p) % pp != 0) {
    why = fmt::format("interleaving needs micro-batches ({}) to be a multiple of pp {}", microbatches(c, p), pp);
    return false;
  }
  return true;
}

MemoryUse memory_use(const Transformer& m, const TrainingConfig& c, const Placement& p, const GpuSpec& gpu) {
  const std::vector<int> layers = stage_layers(m, c, p[Dim::PP]);
  MemoryUse most;
  for (size_t i = 0; i < layers.size(); ++i) {
    const MemoryUse u = stage_memory(m, c, p, layers, i);
    if (i == 0 || u.total_GB > most.total_GB) most = u;
  }
  most.usable_GB = gpu.memory_GB * c.usable_memory_fraction;
  return most;
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
  const std::vector<int> stages = stage_layers(m, c, p[Dim::PP]);
  const double layers_here = *std::max_element(stages.begin(), stages.end());  // the slowest stage's
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
  t.dp_bytes = static_cast<uint64_t>(max_stage_params(m, c, p) * m.grad_reduce_bytes);
  t.dp_per_step = p[Dim::DP] > 1 ? 1.0 : 0.0;
  t.dp_sharded = sharding_stage(c) >= 1;
  t.dp_bucket_bytes = c.dp_overlap ? static_cast<uint64_t>(c.bucket_params * m.grad_reduce_bytes) : 0;
  return t;
}

namespace {

// The pipeline's compute: m x the slowest stage's micro-batch, by operation class; and the
// optimizer step over this GPU's shard. Returns each stage's compute for one micro-batch.
std::vector<double> price_compute(StepResult& r, const Transformer& m, const TrainingConfig& c, const GemmGpu& gpu,
                                  const MicroBatchCompute& mb) {
  const std::vector<int> layers = stage_layers(m, c, r.placement[Dim::PP]);
  std::vector<double> stage_us;
  double slowest = -1;
  for (size_t i = 0; i < layers.size(); ++i) {
    const double logits = i + 1 == layers.size() ? mb.logits_us : 0.0;
    const double t = layers[i] * mb.layer.total_us() + logits;
    stage_us.push_back(t);
    if (t > slowest) {
      slowest = t;
      r.critical_layers = layers[i];
      r.logits_us = logits * r.microbatches;
    }
  }
  r.compute_ops = mb.layer.scaled(static_cast<double>(r.critical_layers) * r.microbatches);
  r.compute_us = slowest * r.microbatches;
  const double shards = r.placement[Dim::DP] * r.placement[Dim::CP] * r.placement[Dim::EP];
  r.optimizer_us = optimizer_time_us(gpu, max_stage_params(m, c, r.placement) / (sharding_stage(c) >= 1 ? shards : 1.0));
  return stage_us;
}

// The pipeline's fill and drain (step.h): the first micro-batch's forward and the last one's
// backward cross every stage but the slowest, so the bubble is the sum of the other stages'
// micro-batch times (compute, the layers' TP/CP/EP collectives and the boundary sends), / v with
// interleaving. Even stages: (p-1)/(v m) of the busy time.
double fill_drain_us(const StepResult& r, const Transformer& m, const TrainingConfig& c,
                     const std::vector<double>& stage_compute_us) {
  const double mb = r.microbatches;
  const std::vector<int> layers = stage_layers(m, c, r.placement[Dim::PP]);
  const double per_layer_comm = (r.tp_us + r.cp_us + r.ep_us) / (mb * r.critical_layers);
  double sum = 0, slowest = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const double t = stage_compute_us[i] + layers[i] * per_layer_comm + r.pp_us / mb;
    sum += t;
    slowest = std::max(slowest, t);
  }
  return (sum - slowest) / c.virtual_stages;
}

void price_data_parallel(StepResult& r, const TrainingConfig& c) {
  const StepTraffic& t = r.comm.traffic;
  if (t.dp_per_step <= 0) return;
  const double reduce = r.comm.dp.time_us;
  const double gather = t.dp_sharded ? r.comm.dp_gather.time_us : 0.0;
  r.dp_total_us = reduce + gather;
  if (c.dp_overlap) {
    // Gradients are final only in the last micro-batch's backward pass: that is the window.
    const double backward_share = c.recompute == Recompute::Full ? 3.0 / 4.0 : 2.0 / 3.0;
    const double window = r.compute_us / r.microbatches * backward_share;
    r.dp_exposed_us = std::max(r.comm.dp_bucket.time_us, reduce - window) + gather;
  } else {
    r.dp_exposed_us = r.dp_total_us;
  }
}

}  // namespace

MicroBatchCompute micro_batch_compute(const Transformer& m, const TrainingConfig& c, const Placement& p,
                                      const GpuSpec& gpu) {
  return micro_batch_compute(gemm_gpu(gpu.name), m, {c.micro_batch, c.recompute, c.sequence_parallel, c.grad_bytes}, p);
}

StepResult step_from(const PlacementResult& comm, const Transformer& m, const TrainingConfig& c, const GpuSpec& gpu) {
  return step_from(comm, m, c, gpu, micro_batch_compute(m, c, comm.placement, gpu));
}

StepResult step_from(const PlacementResult& comm, const Transformer& m, const TrainingConfig& c, const GpuSpec& gpu,
                     const MicroBatchCompute& compute) {
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
  const std::vector<double> stage_compute_us = price_compute(r, m, c, gemm_gpu(gpu.name), compute);
  const StepTraffic& t = comm.traffic;
  r.tp_us = t.tp_per_step * comm.tp.time_us;
  r.cp_us = t.cp_per_step * comm.cp.time_us;
  r.ep_us = t.ep_per_step * comm.ep.time_us;
  r.pp_us = t.pp_per_step * (comm.pp.time_us + comm.pp_gather.time_us);
  const double busy = r.compute_us + r.tp_us + r.cp_us + r.ep_us + r.pp_us;
  r.bubble_us = fill_drain_us(r, m, c, stage_compute_us);
  price_data_parallel(r, c);
  r.step_us = busy + r.bubble_us + r.dp_exposed_us + r.optimizer_us;
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
  TransformerWorkload w(m, c, gpu, false);
  const PlacementResult comm = evaluate(model, w, p);
  return step_from(comm, m, c, gpu);
}

StepSweep step_sweep(CostModel& model, const Transformer& m, const TrainingConfig& c, int gpus,
                     const std::vector<int>& micro_batches, const SweepOptions& options) {
  validate(m);
  const GpuSpec gpu = gpu_spec(model.cluster().gpu);
  StepSweep out;
  for (int mb : micro_batches) {
    if (mb < 1) throw InputError(fmt::format("--micro-batch must be >= 1, got {}", mb));
    TrainingConfig cm = c;
    cm.micro_batch = mb;
    TransformerWorkload w(m, cm, gpu);
    try {
      // The micro-batch's compute depends on (tp, cp, ep) only: priced once per triple.
      std::map<std::array<int, 3>, MicroBatchCompute> priced;
      for (const auto& r : sweep(model, w, gpus, options)) {
        const Placement& p = r.placement;
        const std::array<int, 3> key{p[Dim::TP], p[Dim::CP], p[Dim::EP]};
        auto it = priced.find(key);
        if (it == priced.end()) it = priced.emplace(key, micro_batch_compute(m, cm, p, gpu)).first;
        out.results.push_back(step_from(r, m, cm, gpu, it->second));
      }
    } catch (const InputError&) {
      // no placement with this micro-batch: its rejections say why
    }
    out.rejected.insert(out.rejected.end(), w.rejections().begin(), w.rejections().end());
  }
  if (out.results.empty()) {
    throw InputError(fmt::format("no placement of {} GPUs fits {} (first rejection: {})", gpus, m.name,
                                 out.rejected.empty() ? "none" : out.rejected.front().why));
  }
  std::stable_sort(out.results.begin(), out.results.end(),
                   [](const StepResult& a, const StepResult& b) { return a.step_us < b.step_us; });
  return out;
}

}  // namespace ringbench::model
