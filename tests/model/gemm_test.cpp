// The GEMM model (model/gemm.h): quantization behaves as NVIDIA's guide describes, the fitted row
// reproduces its figure, and the stated error on the published and measured data holds.

#include "model/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

namespace ringbench::model {
namespace {

TEST(Gemm, OneMoreTileThanTheSmsCostsAWholeWave) {
  const GemmGpu a100 = gemm_gpu("A100");
  // 108 SMs: 108 tiles of 256x128 are one wave; one tile more starts a second wave.
  const GemmEstimate full = estimate_gemm(a100, 256 * 12, 128 * 9, 8192);
  const GemmEstimate over = estimate_gemm(a100, 256 * 12 + 1, 128 * 9, 8192);
  EXPECT_EQ(full.waves, 1);
  EXPECT_EQ(full.tile_m, 256);
  // The extra row forces a second wave or a smaller tile: either way throughput drops by far more
  // than the 1/3072 extra work.
  EXPECT_LT(over.tflops, 0.9 * full.tflops) << "waves " << over.waves << ", tile " << over.tile_m << "x" << over.tile_n;
}

TEST(Gemm, SmallInnerDimensionIsBoundByMemoryNotMath) {
  const GemmGpu h100 = gemm_gpu("H100");
  const GemmEstimate thin = estimate_gemm(h100, 8192, 8192, 64);
  // k = 64: the output's bytes, not the math, set the time (epilogue and roofline both count them).
  EXPECT_LT(thin.tflops, 0.3 * h100.peak_tflops);
  EXPECT_TRUE(estimate_gemm(h100, 64, 64, 64).time_us >= kKernelOverheadUs);
  EXPECT_FALSE(estimate_gemm(h100, 8192, 8192, 8192).memory_bound);
}

TEST(Gemm, FittedRowReproducesItsFigureAndChecksAreReported) {
  const auto checks = gemm_checks();
  ASSERT_GE(checks.size(), 21u);
  EXPECT_EQ(checks.front().role, GemmRole::Fitted);
  EXPECT_NEAR(checks.front().error, 0.0, 1e-6);
  for (const auto& c : checks) {
    std::printf("[gemm] %s %-18s %s published %6.1f model %6.1f %+6.1f%%\n", c.gpu.c_str(), c.shape.c_str(),
                c.role == GemmRole::Fitted ? "fitted " : "checked", c.published_tflops, c.model_tflops, 100 * c.error);
    EXPECT_FALSE(c.source.empty());
    EXPECT_GT(c.model_tflops, 0);
    EXPECT_LT(c.model_tflops, gemm_gpu(c.gpu).peak_tflops);  // no row beats its GPU's peak
  }
  const GemmGpu a100 = gemm_gpu("A100");
  EXPECT_GT(a100.mainloop_efficiency, 0.5);
  EXPECT_LT(a100.mainloop_efficiency, 1.0);
}

// One rule picks the fitted row of every family: the GEMM with the most FLOPs in its data, a call
// long enough to run at the sustained clock a training step runs at. On A100 every other call of
// 10 ms or more then lands within 5% (they sustain 209-225 TFLOP/s whatever their shape), while
// the short boost-clock calls of the m sweep run up to 14% faster than the model.
TEST(Gemm, A100IsSolvedOnItsLargestGemmAndTheOtherSustainedCallsAgree) {
  const auto checks = gemm_checks();
  const auto flops = [](const GemmCheck& c) {  // 2 x the product of "[batch x] m x n x k"
    std::string dims = c.shape;
    std::replace(dims.begin(), dims.end(), 'x', ' ');
    std::istringstream in(dims);
    double product = 2, d = 0;
    while (in >> d) product *= d;
    return product;
  };
  const GemmCheck& fitted = checks.front();
  int sustained = 0;
  for (const auto& c : checks) {
    if (c.gpu != "A100") continue;
    EXPECT_LE(flops(c), flops(fitted)) << c.shape;
    const double published_ms = flops(c) / (c.published_tflops * 1e12) * 1e3;
    if (&c != &fitted && published_ms >= 10) {
      ++sustained;
      EXPECT_LE(std::abs(c.error), 0.05) << c.shape << " at " << published_ms << " ms";
    }
  }
  EXPECT_EQ(sustained, 4);
}

// A100 HBM-bound kernels run at the measured 1.80 TB/s, not the datasheet's 2,039 GB/s; Hopper keeps
// its datasheet figure (no measurement at hand).
TEST(Gemm, HbmBoundTimeUsesTheBandwidthAStreamingKernelReaches) {
  const GemmGpu a100 = gemm_gpu("A100");
  EXPECT_NEAR(a100.achievable_hbm_Bps(), 1.80e12, 1e3);
  EXPECT_NEAR(gemm_gpu("H100").achievable_hbm_Bps(), 3350e9, 1e3);
  // m = 16 (a GEMV-like shape): reading B once sets the time, at 1.80 TB/s.
  const GemmEstimate thin = estimate_gemm(a100, 16, 16384, 16384);
  ASSERT_TRUE(thin.memory_bound);
  const double bytes = 2.0 * (16.0 * 16384 * 2 + 16384.0 * 16384);
  EXPECT_NEAR(thin.time_us, bytes / 1.80e12 * 1e6 + kKernelOverheadUs, 1e-6);
}

// The published H100 rows are all checks (H100 borrows the H200's efficiency), follow the A100 rows,
// and stay out of the A100 error that Fig. 13's tie rule uses.
TEST(Gemm, H100RowsAreChecksBesideTheA100Ones) {
  const auto h100 = h100_gemm_checks();
  ASSERT_EQ(h100.size(), 5u);
  for (const auto& c : h100) {
    EXPECT_EQ(c.gpu, "H100");
    EXPECT_EQ(c.role, GemmRole::Checked);
    EXPECT_NEAR(c.error, (c.model_tflops - c.published_tflops) / c.published_tflops, 1e-12);
  }
  const auto all = gemm_checks();
  EXPECT_EQ(all.back().shape, h100.back().shape);
  EXPECT_EQ(all.front().gpu, "A100");
}

TEST(Gemm, ErrorOnTheMeasuredH200TransformerGemmsIsWithinItsStatedBound) {
  int rows = 0;
  for (const auto& e : h200_error_by_class()) {
    std::printf("[h200] %-5s %3d rows: median |err| %5.1f%%, worst %5.1f%%, mean %+5.1f%%\n", e.shape_class.c_str(),
                e.count, 100 * e.median_abs, 100 * e.worst_abs, 100 * e.mean_signed);
    rows += e.count;
    if (e.shape_class != "sdpa") {
      EXPECT_LE(e.median_abs, 0.10) << e.shape_class;  // docs/model.md states the GEMM model's error
      EXPECT_LE(e.worst_abs, 0.25) << e.shape_class;
    }
  }
  EXPECT_EQ(rows, static_cast<int>(h200_measurements().size()) - 1);  // all but the fitted row
}

TEST(Gemm, UnknownGpuIsAnInputError) { EXPECT_ANY_THROW(gemm_gpu("V100")); }

}  // namespace
}  // namespace ringbench::model
