#pragma once
// A GEMM's time from its shape, priced the way NVIDIA's "Matrix Multiplication Background User's
// Guide" (DU-09799-001) explains GEMM performance: the output is cut into thread-block tiles, the
// tiles run in waves over the SMs, and the GEMM is also bounded by moving its operands through HBM.
//
//   rule (fixed in advance, the same for every GPU and never tuned on a training run):
//     tiles   = ceil(m / tm) x ceil(n / tn)             tile quantization: partial tiles cost full
//     waves   = ceil(tiles / SMs)                       wave quantization: a partial wave costs full
//     tile    = 2 tm tn ceil(k / 64) 64 / (peak / SMs x mainloop efficiency)
//               + tm tn x 2 bytes / (HBM / min(SMs, tiles))           epilogue: the tile's output
//     compute = waves x tile, over the tile set {256x128, 128x256, 128x128, 128x64, 64x128, 64x64}
//               (cuBLAS's typical tiles, the guide's Sec. 2.3), taking the fastest (the heuristic
//               cuBLAS approximates)
//     memory  = 2 (mk + kn + mn) bytes / HBM                        roofline: each operand once
//     time    = max(compute, memory) + kKernelOverhead_us
//
// GPU constants are published (SM count, dense 16-bit peak, HBM bandwidth: NVIDIA datasheets) or
// measured on the GPU itself: the mainloop efficiency is solved on ONE GEMM benchmark per GPU
// family, the one with the most FLOPs in that family's data (a call long enough to run at the
// sustained clock a training step runs at; gemm.cpp names it and says why; that row is marked
// fitted), and every other GEMM is a check. Error:
// gemm_checks() (published A100 figures) and h200_error_by_class() (the measured H200 data).

#include <string>
#include <string_view>
#include <vector>

namespace ringbench::model {

inline constexpr double kKernelOverheadUs = 4.0;  // launch-to-completion floor of one kernel

struct GemmGpu {
  std::string name;
  int sms = 0;
  double peak_tflops = 0;  // dense bf16/fp16 tensor-core peak
  double hbm_GBps = 0;     // HBM bandwidth, GB/s (1e9 bytes/s), datasheet
  double mainloop_efficiency = 0;  // fraction of per-SM peak a full tile's main loop sustains
  std::string efficiency_source;   // the one GEMM benchmark it is solved on
  // Fraction of hbm_GBps a streaming kernel reaches, measured on the GPU (gemm.cpp names the
  // measurement); 1 where none is at hand, so the HBM-bound times stay lower bounds there.
  double hbm_efficiency = 1.0;
  double achievable_hbm_Bps() const { return hbm_GBps * 1e9 * hbm_efficiency; }
};

// A100, H100, H200 (and "test", the hand-sized test GPU). InputError for any other.
GemmGpu gemm_gpu(std::string_view gpu);
bool has_gemm_gpu(std::string_view gpu);

struct GemmEstimate {
  double time_us = 0;
  int tile_m = 0, tile_n = 0;
  long long waves = 0;
  bool memory_bound = false;
  double tflops = 0;  // 2mnk / time
};
GemmEstimate estimate_gemm(const GemmGpu& gpu, double m, double n, double k);
// `batch` independent GEMMs of one shape in one kernel (a strided-batched GEMM, as Megatron's
// unfused attention runs QK^T and PV): the tiles of every batch share the waves and the roofline.
GemmEstimate estimate_batched_gemm(const GemmGpu& gpu, double batch, double m, double n, double k);

// A GEMM measurement: kind (shape class + label), m, n, k, milliseconds per call.
struct GemmMeasurement {
  const char* kind;
  double m, n, k, ms;
};
const std::vector<GemmMeasurement>& h200_measurements();  // gemm_h200_data.cpp

enum class GemmRole { Fitted, Checked };

struct GemmCheck {
  std::string gpu;
  std::string shape;   // "m x n x k", or "batch x m x n x k" for a batched GEMM
  GemmRole role;
  std::string source;
  double published_tflops = 0;
  double model_tflops = 0;
  double error = 0;  // (model - published) / published
};
// Published A100 GEMM throughputs (the fitted row first), then the H100 rows, with the model's figure.
std::vector<GemmCheck> gemm_checks();
// Published H100 GEMM throughputs (all checks: H100 borrows the H200's mainloop efficiency).
std::vector<GemmCheck> h100_gemm_checks();

struct ShapeClassError {
  std::string shape_class;  // "scan", "qkv", "proj", "fc1", "fc2", "sdpa"
  int count = 0;
  double median_abs = 0, worst_abs = 0, mean_signed = 0;  // of (model - measured) / measured throughput
};
// The model's error on the measured H200 data, by shape class (the fitted row excluded).
std::vector<ShapeClassError> h200_error_by_class();

// Flash attention's forward kernel over `batch_heads` (batch x heads) heads of dimension
// `head_dim` and `sequence` tokens. Rule, fixed in advance after FlashAttention's tiling (Dao et
// al. 2022, 2023): one thread block per 128 query rows of one head, looping over 128-row key/value
// blocks (causal: only the blocks at or below the diagonal, so block i does i + 1 of them); blocks
// are dispatched in launch order, each to the first SM that is free (wave quantization with unequal
// tiles); a key/value block costs 4 x 128 x 128 x head_dim FLOPs at the per-SM peak times the
// attention efficiency; + kKernelOverheadUs. The efficiency is solved on the measured H200 kernel
// with the most FLOPs (Hopper; A100 uses its GEMM mainloop efficiency, unchecked).
double attention_time_us(const GemmGpu& gpu, double batch_heads, double sequence, double head_dim, bool causal);
double attention_efficiency(const GemmGpu& gpu);

}  // namespace ringbench::model
