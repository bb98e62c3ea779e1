#pragma once
// The two prices every operation of a step's compute is built from (compute.h, attention_core.h):
// a GEMM with its two backward GEMMs, and an HBM-bound kernel.

#include "gemm.h"

namespace ringbench::model {

struct GemmTimes {
  double forward_us = 0, backward_us = 0;
};

// A forward GEMM C[m x n] = A[m x k] B[k x n], `count` times over `batch` independent GEMMs, and its
// two backward GEMMs dA = dC B^T (m, k, n) and dB = A^T dC (k, n, m).
inline GemmTimes gemm_with_backward(const GemmGpu& gpu, double m, double n, double k, double count = 1,
                                    double batch = 1) {
  GemmTimes t;
  t.forward_us = count * estimate_batched_gemm(gpu, batch, m, n, k).time_us;
  t.backward_us = count * (estimate_batched_gemm(gpu, batch, m, k, n).time_us +
                           estimate_batched_gemm(gpu, batch, k, n, m).time_us);
  return t;
}

// `kernels` HBM-bound kernels moving `bytes` in all, at the rate a streaming kernel reaches.
inline double hbm_us(const GemmGpu& gpu, double bytes, double kernels) {
  return bytes / gpu.achievable_hbm_Bps() * 1e6 + kernels * kKernelOverheadUs;
}

}  // namespace ringbench::model
