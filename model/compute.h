#pragma once
// A training step's compute from the shapes of its operations (issue 16), priced with the GEMM
// model (gemm.h) and HBM bandwidth; no efficiency fitted on a training run enters here.
//
// One transformer layer, one micro-batch of b sequences, on one GPU of a placement (tp, cp, ep):
// T = b s / cp tokens, h hidden, f ffn, a heads of d = h / a, kv the K/V width.
//
//   GEMMs     each forward GEMM C[m x n] = A[m x k] B[k x n] also runs twice in the backward pass:
//             dA = dC B^T (m, k, n) and dB = A^T dC (k, n, m); all priced by estimate_gemm.
//               qkv   (T, (h + 2 kv) / tp, h)
//               proj  (T, h, h / tp)
//               mlp   fc1 (T, f / tp, h), twice as wide with SwiGLU; fc2 (T, h, f / tp).
//                     Mixture of experts: experts / ep local experts, each over T top_k ep /
//                     experts tokens (balanced routing).
//   attention flash: attention_time_us (gemm.h: tiled, wave-quantized, checked on the measured
//             H200 kernels); its backward costs kFlashBackwardRatio forwards (FlashAttention-2
//             does 5 matrix products to the forward's 2: Dao 2023, arXiv:2307.08691), unchecked.
//             Without flash (Megatron-LM 2021): the unfused core over b a/tp heads of s/cp x s
//             scores (attention_core.h: batched GEMMs, softmax and dropout, at the fraction of
//             the streaming rate solved on Megatron's published attention timings).
//   elementwise  HBM-bound: bytes moved / HBM bandwidth + kKernelOverheadUs per kernel. Forward,
//             per token: 2 norms (read + write h), 2 residual adds (read 2h, write h), dropout
//             masks (1 byte x h, twice, with dropout), the MLP activation (GeLU reads and writes
//             f/tp; SwiGLU reads 2f/tp, writes f/tp), RoPE on q and k (read + write (h + kv)/tp).
//             h-wide ops run on T / tp tokens with sequence parallelism, on all T without.
//             Backward moves twice the forward's bytes (it reads the saved input and the incoming
//             gradient and writes a gradient): an assumption, stated.
//   recompute full: the whole forward again in the backward pass; selective: the attention core.
//   gradient accumulation  after each micro-batch's backward pass, each weight's gradient (at
//             bytes_per_activation) is added into its main gradient of grad_bytes (fp32 4 in
//             Megatron-LM's main_grad and Llama 3; fp16 2 in Megatron-LM 2021's sc21 runs): reads
//             act + grad, writes grad bytes per parameter the GPU holds for the layer
//             (grad_accumulation_bytes_per_param), one kernel per weight matrix (4).
//   logits    on the last stage: GEMM (T, V / tp, h) and its two backward GEMMs, and the fp32
//             cross-entropy (6 bytes per logit forward, 6 backward).
//   optimizer Adam over the parameters this GPU updates (its shard under ZeRO): reads fp32 master,
//             m, v and the fp32 gradient, writes master, m, v and the bf16 weight (30 bytes), plus
//             4 bytes to read the gradient for the global-norm clip: 34 bytes per parameter / HBM.
//             Not modelled: with fp16 main grads Megatron-LM first copies them into fp32 (2 bytes
//             read, 4 written) and unscales them (4 + 4), 14 bytes more, about 0.4% of Table 1's
//             1.7B step and less of every larger one.
//
// HBM-bound kernels are priced at the bandwidth a streaming kernel reaches on the GPU
// (GemmGpu::achievable_hbm_Bps: measured on A100, 88% of the datasheet; the datasheet elsewhere, so
// a lower bound there).

#include "gemm.h"
#include "placement.h"
#include "workload.h"

namespace ringbench::model {

inline constexpr double kFlashBackwardRatio = 2.5;  // FlashAttention-2 backward / forward FLOPs
inline constexpr double kAdamBytesPerParam = 34;    // see the header comment
// Bytes moved per parameter to add one micro-batch's weight gradient into the main gradient.
inline double grad_accumulation_bytes_per_param(double activation_bytes, double grad_bytes) {
  return activation_bytes + 2 * grad_bytes;
}

// Time by operation class; for a layer, summed over forward, backward and recomputed forward.
struct OpTimes {
  double qkv_us = 0, proj_us = 0, mlp_us = 0, attention_us = 0, elementwise_us = 0, grad_accumulation_us = 0;
  double total_us() const { return qkv_us + proj_us + mlp_us + attention_us + elementwise_us + grad_accumulation_us; }
  OpTimes scaled(double f) const {
    return {qkv_us * f, proj_us * f, mlp_us * f, attention_us * f, elementwise_us * f, grad_accumulation_us * f};
  }
};

struct MicroBatchCompute {
  OpTimes layer;         // one transformer layer, one micro-batch, forward + backward (+ recompute)
  double logits_us = 0;  // output layer and loss, one micro-batch (the last stage only)
};

struct ComputeShape {
  int micro_batch = 1;
  Recompute recompute = Recompute::Full;
  bool sequence_parallel = false;
  double grad_bytes = 4;  // main gradients' bytes per parameter (TrainingConfig::grad_bytes)
};

MicroBatchCompute micro_batch_compute(const GemmGpu& gpu, const Transformer& m, const ComputeShape& shape,
                                      const Placement& p);

// The optimizer step over `params` parameters held in this GPU's optimizer shard.
double optimizer_time_us(const GemmGpu& gpu, double params);

}  // namespace ringbench::model
