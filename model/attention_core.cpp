// Megatron-LM 2021's unfused attention core (attention_core.h): its price, the efficiency solved
// on the published benchmark, and the benchmark's other rows as checks.

#include "attention_core.h"

#include <array>

#include "kernel_time.h"

namespace ringbench::model {
namespace {

// The benchmark's setting: one A100-SXM4-40GB, batch 16 x 8 heads of dimension 64.
constexpr double kBenchmarkHbmGBps = 1555;  // NVIDIA A100 datasheet, 40 GB SXM
constexpr double kBenchmarkHeads = 16 * 8, kBenchmarkHeadDim = 64;

struct PublishedRow {
  int tokens;
  bool dropout;
  const char* pass;
  double ms;
};
// Megatron rows of Tables 15-17 (dropout 0.1) and 18-20 (no dropout), no masking, in ms.
constexpr std::array<PublishedRow, 12> kRows = {{
    {2048, true, "both", 17.41},  // fitted (Table 17)
    {2048, true, "forward", 6.56},
    {2048, true, "backward", 10.80},
    {1024, true, "both", 4.73},
    {1024, true, "forward", 1.88},
    {1024, true, "backward", 2.94},
    {2048, false, "both", 13.21},
    {2048, false, "forward", 4.28},
    {2048, false, "backward", 8.86},
    {1024, false, "both", 3.80},
    {1024, false, "forward", 1.33},
    {1024, false, "backward", 2.59},
}};

AttentionCoreTimes core_at(const GemmGpu& gpu, double efficiency, double batch_heads, double queries, double keys,
                           double head_dim, bool dropout) {
  GemmGpu scores = gpu;
  scores.hbm_efficiency *= efficiency;
  const GemmTimes qk = gemm_with_backward(scores, queries, keys, head_dim, 1, batch_heads);
  const GemmTimes pv = gemm_with_backward(scores, queries, head_dim, keys, 1, batch_heads);
  const double count = batch_heads * queries * keys;
  const double dropout_bytes = dropout ? 5.0 : 0.0;
  const double kernels = dropout ? 2 : 1;
  return {qk.forward_us + pv.forward_us + hbm_us(scores, count * (4.0 + dropout_bytes), kernels),
          qk.backward_us + pv.backward_us + hbm_us(scores, count * (6.0 + dropout_bytes), kernels)};
}

GemmGpu benchmark_gpu() {
  GemmGpu g = gemm_gpu("A100");
  g.hbm_GBps = kBenchmarkHbmGBps;
  return g;
}

double row_ms(const PublishedRow& r, double efficiency) {
  const AttentionCoreTimes t =
      core_at(benchmark_gpu(), efficiency, kBenchmarkHeads, r.tokens, r.tokens, kBenchmarkHeadDim, r.dropout);
  const std::string pass = r.pass;
  const double us = pass == "forward" ? t.forward_us : pass == "backward" ? t.backward_us : t.forward_us + t.backward_us;
  return us / 1e3;
}

// The fraction at which the model reproduces the fitted row: time falls as the fraction rises.
double solve_a100() {
  double low = 0.05, high = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (low + high);
    (row_ms(kRows[0], mid) > kRows[0].ms ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

}  // namespace

double attention_core_efficiency(const GemmGpu& gpu) {
  if (gpu.name != "A100") return 1.0;
  static const double a100 = solve_a100();
  return a100;
}

AttentionCoreTimes unfused_attention_core(const GemmGpu& gpu, double batch_heads, double queries, double keys,
                                          double head_dim, bool dropout) {
  return core_at(gpu, attention_core_efficiency(gpu), batch_heads, queries, keys, head_dim, dropout);
}

std::vector<AttentionCoreCheck> attention_core_checks() {
  const double efficiency = attention_core_efficiency(gemm_gpu("A100"));
  std::vector<AttentionCoreCheck> checks;
  for (const PublishedRow& r : kRows) {
    AttentionCoreCheck c;
    c.tokens = r.tokens;
    c.dropout = r.dropout;
    c.pass = r.pass;
    c.role = checks.empty() ? GemmRole::Fitted : GemmRole::Checked;
    c.published_ms = r.ms;
    c.model_ms = row_ms(r, efficiency);
    c.error = (c.model_ms - c.published_ms) / c.published_ms;
    checks.push_back(c);
  }
  return checks;
}

const char* attention_core_source() {
  return "FlashAttention (Dao et al. 2022, arXiv:2205.14135), App. E.6, Tables 15-20, Megatron rows: "
         "A100-SXM4-40GB, batch 16, 8 heads of dim 64, fp16, no mask";
}

}  // namespace ringbench::model
