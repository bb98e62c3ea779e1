#pragma once
// Megatron-LM 2021's unfused attention core, the part of a layer that flash attention replaced:
// over each of `batch_heads` heads, the batched GEMMs QK^T (queries x keys x head_dim) and PV, each
// with its two backward GEMMs, and the fused scale-mask-softmax (2 bytes read and 2 written per
// score) and dropout (2 + 2 + a 1-byte mask) over the queries x keys scores; their backward
// passes move 6 and 5 bytes per score.
//
// Every one of these kernels streams the score matrix with little work per byte, and they do not
// reach the rate a pure streaming kernel does (GemmGpu::hbm_efficiency): softmax reduces each row
// twice, and a GEMM with k = head_dim has short main loops between its loads and stores. The
// fraction of the streaming rate they do reach is solved, as the GEMM mainloop efficiency is, on
// one published kernel benchmark, and checked on the rest of it (attention_core_checks):
//
//   FlashAttention (Dao et al. 2022, arXiv:2205.14135), Appendix E.6, Tables 15-20, the "Megatron"
//   rows: its attention on one A100-SXM4-40GB (1,555 GB/s datasheet), batch 16, 8 heads of
//   dimension 64, fp16, the mean of 100 calls, forward, backward and both, with dropout 0.1 and
//   without, at 128 to 2048 tokens. Fitted: 2048 tokens, dropout, forward + backward (17.41 ms),
//   the configuration Megatron-LM's GPT runs train with, and the longest calls.
//
// Stated in advance: the 40 GB part's streaming rate is taken as the same fraction of its
// datasheet as the 80 GB part's measured one (gemm.cpp); rows below 1024 tokens are not checks,
// because the published times stay near a floor there (forward 0.24, 0.26 and 0.42 ms at 128,
// 256 and 512 tokens for 256x fewer scores than at 2048): the cost of launching a dozen kernels
// from Python per call, which a training step, queueing its kernels ahead, does not pay; the
// padding-mask rows (Tables 9-14) are not checks either: the GPT runs use the causal kernel, which
// reads no mask, and the model has no mask. Only A100 has such a benchmark; on every other GPU
// the fraction is 1, so the core's time stays a lower bound there, as the HBM-bound kernels' do.

#include <string>
#include <vector>

#include "gemm.h"

namespace ringbench::model {

struct AttentionCoreTimes {
  double forward_us = 0, backward_us = 0;
};

// The core over `batch_heads` (micro-batch x heads on this GPU) heads of dimension `head_dim`,
// `queries` x `keys` scores each.
AttentionCoreTimes unfused_attention_core(const GemmGpu& gpu, double batch_heads, double queries, double keys,
                                          double head_dim, bool dropout);

// Fraction of the GPU's streaming HBM rate the core's kernels reach: solved on A100, 1 elsewhere.
double attention_core_efficiency(const GemmGpu& gpu);

// The benchmark's rows at 1024 and 2048 tokens (the fitted one first), with the model's figure.
struct AttentionCoreCheck {
  int tokens = 0;
  bool dropout = false;
  std::string pass;  // "forward", "backward" or "both"
  GemmRole role = GemmRole::Checked;
  double published_ms = 0, model_ms = 0;
  double error = 0;  // (model - published) / published
};
std::vector<AttentionCoreCheck> attention_core_checks();
const char* attention_core_source();

}  // namespace ringbench::model
