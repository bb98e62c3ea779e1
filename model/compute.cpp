// Compute from shapes (compute.h): the formulas are in the header; this file applies them.

#include "compute.h"

#include <algorithm>

#include "attention_core.h"
#include "kernel_time.h"

namespace ringbench::model {
namespace {

// Forward + backward + the forward again when it is recomputed.
double total(const GemmTimes& t, bool recomputed) { return t.forward_us * (recomputed ? 2 : 1) + t.backward_us; }

struct Dims {
  double b, s, tokens, h, f, kv, heads, head_dim, tp;
};

Dims dims(const Transformer& m, const ComputeShape& shape, const Placement& p) {
  Dims d;
  d.b = shape.micro_batch;
  d.s = static_cast<double>(m.sequence) / p[Dim::CP];
  d.tokens = d.b * d.s;
  d.h = m.hidden;
  d.f = m.ffn();
  d.kv = m.kv_dim();
  d.heads = m.heads;
  d.head_dim = d.h / d.heads;
  d.tp = p[Dim::TP];
  return d;
}

double mlp_us(const GemmGpu& gpu, const Transformer& m, const Dims& d, const Placement& p, bool recomputed) {
  double tokens = d.tokens, count = 1;
  if (m.experts > 1) {
    const double local = static_cast<double>(m.experts) / p[Dim::EP];
    tokens = d.tokens * m.top_k * p[Dim::EP] / m.experts;
    count = local;
  }
  const double fc1_n = d.f * (m.gated_mlp ? 2 : 1) / d.tp;
  return total(gemm_with_backward(gpu, tokens, fc1_n, d.h, count), recomputed) +
         total(gemm_with_backward(gpu, tokens, d.h, d.f / d.tp, count), recomputed);
}

// The attention core: flash, or Megatron-LM 2021's batched GEMMs + softmax + dropout.
double attention_us(const GemmGpu& gpu, const Transformer& m, const Dims& d, const Placement& p, Recompute r) {
  const bool recomputed = r != Recompute::None;
  const double heads = d.b * d.heads / d.tp;
  if (m.flash_attention) {
    // Context parallelism: each GPU does 1/cp of the (load-balanced) causal work.
    const double forward = attention_time_us(gpu, heads, m.sequence, d.head_dim, true) / p[Dim::CP];
    return forward * ((recomputed ? 2 : 1) + kFlashBackwardRatio);
  }
  const AttentionCoreTimes core = unfused_attention_core(gpu, heads, d.s, m.sequence, d.head_dim, m.dropout);
  return core.forward_us * (recomputed ? 2 : 1) + core.backward_us;
}

double elementwise_us(const GemmGpu& gpu, const Transformer& m, const Dims& d, bool sequence_parallel,
                      bool recomputed) {
  const double act = m.bytes_per_activation;
  const double h_tokens = sequence_parallel ? d.tokens / d.tp : d.tokens;
  const double h_wide = h_tokens * (d.h * 10 * act + (m.dropout ? 2 * d.h : 0.0));  // norms, residual adds, masks
  const double f_wide = d.tokens * d.f / d.tp * (m.gated_mlp ? 3 : 2) * act;       // the MLP activation
  const double rope = m.learned_positions ? 0.0 : d.tokens * 2 * (d.h + d.kv) / d.tp * act;
  const double kernels = 5 + (m.learned_positions ? 0 : 1);
  const double forward = hbm_us(gpu, h_wide + f_wide + rope, kernels);
  const double backward = hbm_us(gpu, 2 * (h_wide + f_wide + rope), kernels);
  return forward * (recomputed ? 2 : 1) + backward;
}

}  // namespace

MicroBatchCompute micro_batch_compute(const GemmGpu& gpu, const Transformer& m, const ComputeShape& shape,
                                      const Placement& p) {
  const Dims d = dims(m, shape, p);
  const bool full = shape.recompute == Recompute::Full;
  MicroBatchCompute c;
  c.layer.qkv_us = total(gemm_with_backward(gpu, d.tokens, (d.h + 2 * d.kv) / d.tp, d.h), full);
  c.layer.proj_us = total(gemm_with_backward(gpu, d.tokens, d.h, d.h / d.tp), full);
  c.layer.mlp_us = mlp_us(gpu, m, d, p, full);
  c.layer.attention_us = attention_us(gpu, m, d, p, shape.recompute);
  c.layer.elementwise_us = elementwise_us(gpu, m, d, shape.sequence_parallel, full);
  const double expert = m.expert_params();
  const double layer_params = (m.layer_params() - expert) / d.tp + expert / (d.tp * p[Dim::EP]);
  const double accumulate = grad_accumulation_bytes_per_param(m.bytes_per_activation, shape.grad_bytes);
  c.layer.grad_accumulation_us = hbm_us(gpu, layer_params * accumulate, 4);
  const double logits = d.tokens * m.vocab / d.tp;
  const double output_params = static_cast<double>(m.vocab) * d.h / d.tp;
  c.logits_us = total(gemm_with_backward(gpu, d.tokens, m.vocab / d.tp, d.h), false) +
                hbm_us(gpu, 12 * logits + output_params * accumulate, 3);
  return c;
}

double optimizer_time_us(const GemmGpu& gpu, double params) {
  return hbm_us(gpu, params * kAdamBytesPerParam, 1);
}

}  // namespace ringbench::model
