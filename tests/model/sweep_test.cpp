#include "model/sweep.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "model/error.h"
#include "model/presets.h"

namespace ringbench::model {
namespace {

MessageWorkload small_workload() {
  MessageWorkload w;
  w.tp_bytes = 32'000'000;
  w.pp_bytes = 32'000'000;
  w.gradient_bytes = 14'000'000'000;
  w.layers = 32;
  w.microbatches = 8;
  return w;
}

TEST(Sweep, EnumeratesEveryFactorisationAndOrderOnce) {
  CostModel model(with_gpus(preset("dgx-h100"), 64));
  const auto results = sweep(model, small_workload(), 64);
  std::map<std::tuple<int, int, int, std::string>, int> seen;
  for (const auto& r : results) {
    const auto& p = r.placement;
    EXPECT_EQ(p.gpus(), 64);
    ++seen[{p[Dim::TP], p[Dim::PP], p[Dim::DP], p.order_string()}];
  }
  for (const auto& [key, count] : seen) EXPECT_EQ(count, 1);
  // tp x pp x dp = 64 = 2^6 with pp | 32 layers: every (tp, pp) with tp x pp | 64 appears; three
  // dimensions larger than 1 give 6 orders, two give 2, one gives 1.
  size_t expected = 0;
  for (int tp = 1; tp <= 64; tp *= 2) {
    for (int pp = 1; tp * pp <= 64 && pp <= 32; pp *= 2) {
      const int active = (tp > 1) + (pp > 1) + (64 / tp / pp > 1);
      expected += active == 3 ? 6 : active == 2 ? 2 : 1;
    }
  }
  EXPECT_EQ(results.size(), expected);
}

TEST(Sweep, IsSortedBestFirstAndSumsTheStep) {
  CostModel model(with_gpus(preset("dgx-a100"), 128));
  const auto results = sweep(model, small_workload(), 128);
  for (size_t i = 1; i < results.size(); ++i) EXPECT_LE(results[i - 1].step_comm_us, results[i].step_comm_us);
  for (const auto& r : results) {
    const auto& t = r.traffic;
    EXPECT_NEAR(r.step_comm_us,
                t.tp_per_step * r.tp.time_us + t.dp_per_step * r.dp.time_us + t.pp_per_step * r.pp.time_us, 1e-6);
  }
}

TEST(Sweep, TensorParallelInsideTheIslandIsNeverSlowerThanSpreadingIt) {
  CostModel model(with_gpus(preset("dgx-a100"), 256));
  const auto results = sweep(model, small_workload(), 256);
  std::map<std::tuple<int, int>, double> best_inside;
  for (const auto& r : results) {
    if (r.placement[Dim::TP] > 1 && r.placement[Dim::TP] <= 8 && r.tp_islands == 1) {
      best_inside[{r.placement[Dim::TP], r.placement[Dim::PP]}] = r.tp.time_us;
    }
  }
  int compared = 0;
  for (const auto& r : results) {
    const auto key = std::make_tuple(r.placement[Dim::TP], r.placement[Dim::PP]);
    if (r.tp_islands > 1 && best_inside.count(key)) {
      EXPECT_GT(r.tp.time_us, best_inside[key]) << r.placement.shape() << " " << r.placement.order_string();
      ++compared;
    }
  }
  EXPECT_GT(compared, 10);
}

TEST(Sweep, RespectsTheWorkloadsLimitsAndRejectsBadSizes) {
  MessageWorkload w = small_workload();
  w.max_tp = 4;
  CostModel model(with_gpus(preset("dgx-h100"), 64));
  for (const auto& r : sweep(model, w, 64)) {
    EXPECT_LE(r.placement[Dim::TP], 4);
    EXPECT_EQ(32 % r.placement[Dim::PP], 0);
  }
  EXPECT_THROW(sweep(model, w, 128), InputError);
  EXPECT_THROW(sweep(model, w, 0), InputError);
  SweepOptions bad_cp;
  bad_cp.cp = 3;
  EXPECT_THROW(sweep(model, w, 64, bad_cp), InputError);
}

TEST(Sweep, ContextAndExpertParallelAddTheirCollectives) {
  MessageWorkload w = small_workload();
  w.ep_bytes = 16'000'000;
  w.cp_bytes = 8'000'000;
  CostModel model(with_gpus(preset("dgx-h100"), 64));
  SweepOptions options;
  options.cp = 2;
  options.ep = 2;
  const auto results = sweep(model, w, 64, options);
  for (const auto& r : results) {
    EXPECT_EQ(r.placement[Dim::CP], 2);
    EXPECT_EQ(r.placement[Dim::EP], 2);
    EXPECT_GT(r.ep.time_us, 0.0);
    EXPECT_GT(r.cp.time_us, 0.0);
  }
}

}  // namespace
}  // namespace ringbench::model
