#pragma once
// A transformer training workload, and the GPU it runs on: what the step model (step.h) needs to
// turn a placement into compute time, communication and memory.
//
// Conventions (one place):
//   * FLOPs count a multiply-add as 2. Forward FLOPs per token per layer = 2 x (matmul weights of
//     the layer, active experts only) + 4 x s x h (QK^T and AV over the full sequence, as in
//     Narayanan et al. 2021, eq. 3). Logits: 2 x h x V per token.
//   * Model FLOPs (MFU) = 3 x forward (forward + backward), i.e. ~6 x params x tokens plus
//     attention. Hardware FLOPs (HFU) add what recomputation repeats: full recomputation adds one
//     forward of every layer (not the logits), so for GPT-3 HFU equals Megatron-LM's
//     F = 96 B s l h^2 (1 + s/6h + V/16lh); selective recomputation adds the attention core.
//   * Bytes: activations and TP/PP messages at bytes_per_activation (2, bf16); DP gradients at
//     grad_reduce_bytes per parameter (4: Megatron's fp32 main grads; 2 for a bf16 reduce).
//
// Plain values; safe to copy and share between threads.

#include <string>
#include <string_view>
#include <vector>

namespace ringbench::model {

enum class Recompute { None, Selective, Full };
const char* to_string(Recompute r);
Recompute parse_recompute(std::string_view text, std::string_view flag = "--recompute");

struct Transformer {
  std::string name;
  std::string description;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;        // 0: = heads (no grouped-query attention)
  int ffn_hidden = 0;      // 0: 4 x hidden
  bool gated_mlp = false;  // SwiGLU: three ffn matrices instead of two
  bool biases = true;      // GPT: biases and LayerNorm (2 params per norm); Llama: none, RMSNorm
  bool learned_positions = true;  // GPT: s x h position embedding; Llama: RoPE (none)
  bool tied_embeddings = true;    // output layer shares the input embedding
  int vocab = 0;
  int sequence = 0;
  int experts = 1;  // > 1: every layer's MLP is a mixture of experts
  int top_k = 1;    // experts each token uses
  double bytes_per_activation = 2;
  double grad_reduce_bytes = 4;  // bytes per parameter in the DP gradient reduction
  bool flash_attention = true;   // no s x s attention matrix stored (Korthikanti's 5as/h term)
  bool dropout = true;           // GPT: dropout after attention and MLP (1-byte masks kept); Llama: none

  int kv_heads_or_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  int ffn() const { return ffn_hidden > 0 ? ffn_hidden : 4 * hidden; }
  double kv_dim() const { return static_cast<double>(hidden) / heads * kv_heads_or_heads(); }

  // Parameters of one layer's attention / MLP (all experts) / norms.
  double attention_params() const;
  double mlp_params() const;      // every expert, plus the router
  double expert_params() const;   // the experts' part of mlp_params (0 for a dense model)
  double layer_params() const;
  double embedding_params() const;  // input (+ output if untied) + positions
  double params() const;            // the whole model

  // Forward FLOPs per token.
  double layer_matmul_flops_per_token() const;     // 2 x active matmul weights
  double attention_flops_per_token() const;        // 4 x s x h
  double logits_flops_per_token() const;           // 2 x h x V
  double model_flops_per_token() const;            // 3 x forward
  double hardware_flops_per_token(Recompute r) const;
};

// Throws InputError naming the first bad field ("layers must be > 0, got 0").
void validate(const Transformer& m);

std::vector<std::string> workload_names();
// Presets: gpt3-175b, llama2-70b (alias llama-70b), llama3-405b, and the Megatron-LM 2021
// configurations used by the validation (megatron-162b). InputError naming --model if unknown.
Transformer workload_preset(std::string_view name);
// A preset name, or a JSON file (contains '/' or ends in .json); files may start from a preset
// with "base" and override fields; unknown keys are errors naming the key.
Transformer resolve_workload(std::string_view name_or_path);
// The JSON text of such a file; `source` names it in errors. Every number is range-checked
// (input_limits.h): InputError, one line naming the field.
Transformer workload_from_json(const std::string& text, const std::string& source);
std::string workload_to_json(const Transformer& m);

// What the step model needs of a GPU: dense 16-bit peak (for MFU/HFU) and memory. Compute time
// comes from shapes (compute.h, gemm.h), not from a fraction of this peak.
struct GpuSpec {
  std::string name;
  double peak_tflops = 0;  // dense bf16/fp16 tensor-core peak, TFLOP/s (1e12)
  double memory_GB = 0;    // HBM as the driver reports its total, GB = 1e9 bytes
};
// By the cluster's `gpu` field (A100, H100, B200, L40S). InputError if unknown.
GpuSpec gpu_spec(std::string_view gpu);

}  // namespace ringbench::model
