// The validation table (model/published_figures.cpp): fitted and checked cases kept apart, every
// checked case within the tolerance, every case cited.

#include "model/published_figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>

namespace ringbench::model {
namespace {

TEST(PublishedFigures, CheckedCasesLandWithinTwentyPercent) {
  for (const auto& row : validation_table()) {
    std::printf("[validate] %-7s %-60s published %7.1f GB/s, model %7.1f GB/s, %+6.1f%%\n", to_string(row.role),
                row.name.c_str(), row.published_GBps, row.model_GBps, 100 * row.error);
    if (row.role == CaseRole::Checked) {
      EXPECT_LE(std::abs(row.error), kCheckTolerance) << row.name;
    }
  }
}

TEST(PublishedFigures, FittedCasesReproduceTheirFigureAndEachSetsOneEfficiency) {
  std::set<std::string> fitted;
  int checked = 0;
  for (const auto& row : validation_table()) {
    EXPECT_FALSE(row.source.empty()) << row.name;
    if (row.role == CaseRole::Fitted) {
      EXPECT_NEAR(row.error, 0.0, 1e-6) << row.name;
      EXPECT_TRUE(fitted.insert(row.fits).second) << row.fits << " fitted twice";
    } else {
      EXPECT_TRUE(row.fits.empty()) << row.name;
      ++checked;
    }
  }
  EXPECT_EQ(fitted, (std::set<std::string>{"efficiency.scale_up", "efficiency.nic", "efficiency.in_switch"}));
  EXPECT_GE(checked, 4);
}

TEST(PublishedFigures, EfficienciesArePhysical) {
  const Efficiency& e = fitted_efficiency();
  for (double v : {e.scale_up, e.in_switch, e.nic}) {
    EXPECT_GT(v, 0.5);
    EXPECT_LT(v, 1.0);
  }
}

}  // namespace
}  // namespace ringbench::model
