// The link fit (model/link_fit.h) on synthetic ping-pong figures with known parameters.
#include "model/link_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "model/error.h"

namespace ringbench::model {
namespace {

constexpr uint64_t kPiece = 256 << 10;  // ringbench's default pipeline piece
const LinkParameters kTruth{18.0, 2.5, 6.0};

// ringbench's six link-test sizes (bench/ringbench/machine_probes.cpp), or twelve.
std::vector<uint64_t> sizes(bool many) {
  if (!many) return {64, 1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20};
  std::vector<uint64_t> s;
  for (uint64_t b = 64; b <= (8u << 20); b *= 4) s.push_back(b);
  s.push_back(512 << 10);
  s.push_back(3 << 20);
  return s;
}

std::vector<LinkSample> samples(const LinkParameters& truth, const std::vector<uint64_t>& bytes) {
  std::vector<LinkSample> out;
  for (uint64_t b : bytes) out.push_back({b, message_time_us(truth, b, kPiece)});
  return out;
}

void expect_recovered(const LinkParameters& got, const LinkParameters& truth) {
  EXPECT_NEAR(got.latency_us, truth.latency_us, 0.01 * truth.latency_us);
  EXPECT_NEAR(got.bandwidth_GBps, truth.bandwidth_GBps, 0.01 * truth.bandwidth_GBps);
  EXPECT_NEAR(got.message_overhead_us, truth.message_overhead_us, 0.01 * truth.message_overhead_us);
}

TEST(LinkFit, RecoversExactParametersFromRingbenchSizes) {
  const auto data = samples(kTruth, sizes(false));
  const LinkFit fit = fit_link(data, kPiece, "same host");
  expect_recovered(fit.link, kTruth);
  for (double r : fit.residual) EXPECT_NEAR(r, 0, 1e-9);
  for (bool u : fit.used) EXPECT_TRUE(u);
}

TEST(LinkFit, RejectsOneDescheduledSize) {
  for (bool many : {false, true}) {
    auto data = samples(kTruth, sizes(many));
    data[2].one_way_us *= 10;  // 16 KiB (4 KiB of twelve) took ten times as long once
    const LinkFit fit = fit_link(data, kPiece, "same host");
    expect_recovered(fit.link, kTruth);
    EXPECT_FALSE(fit.used[2]) << "many sizes: " << many;
    EXPECT_NEAR(fit.residual[2], 0.1 - 1, 1e-6);  // the rejected point keeps its residual
  }
}

TEST(LinkFit, DropsEverySizeSlowerThanALargerOne) {
  // A loaded host's run: the three smallest sizes each waited 10 ms for a core.
  auto data = samples(kTruth, sizes(true));
  for (size_t i = 0; i < 3; ++i) data[i].one_way_us = 10000;
  const LinkFit fit = fit_link(data, kPiece, "same host");
  expect_recovered(fit.link, kTruth);
  for (size_t i = 0; i < data.size(); ++i) EXPECT_EQ(fit.used[i], i >= 3) << data[i].bytes;
}

TEST(LinkFit, RecoversParametersThroughSmallNoise) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.0005, 0.0005);
  auto data = samples(kTruth, sizes(true));
  for (auto& s : data) s.one_way_us *= 1 + noise(rng);
  const LinkParameters got = fit_link(data, kPiece, "across hosts").link;
  EXPECT_NEAR(got.latency_us, kTruth.latency_us, 0.01 * kTruth.latency_us);
  EXPECT_NEAR(got.bandwidth_GBps, kTruth.bandwidth_GBps, 0.01 * kTruth.bandwidth_GBps);
  // The overhead shows only in the steps of the piece count, against multi-MiB times whose 0.05%
  // is a few microseconds: within 5% (exact data above recover it within 1%).
  EXPECT_NEAR(got.message_overhead_us, kTruth.message_overhead_us, 0.05 * kTruth.message_overhead_us);
}

TEST(LinkFit, OverheadTheDataCannotSeeIsZero) {
  // One piece per message: the overhead cannot be told from the latency, so it is folded in.
  const LinkParameters truth{20.0, 1.25, 0.0};
  const auto data = samples(truth, sizes(false));
  const LinkFit fit = fit_link(data, 0, "same host");
  expect_recovered(fit.link, truth);
  EXPECT_EQ(fit.link.message_overhead_us, 0.0);
}

TEST(LinkFit, NegativeTermsAreFixedAtZero) {
  // Times that fall below a pure bandwidth line at small sizes would fit a negative latency.
  std::vector<LinkSample> data;
  for (uint64_t b : sizes(false)) data.push_back({b, b / 2.0e3 * (b < 4096 ? 0.5 : 1.0)});
  const LinkFit fit = fit_link(data, kPiece, "same host");
  EXPECT_GE(fit.link.latency_us, 0);
  EXPECT_GE(fit.link.message_overhead_us, 0);
  EXPECT_GT(fit.link.bandwidth_GBps, 0);
}

TEST(LinkFit, BadSamplesAreInputErrorsNamingTheClass) {
  const std::vector<LinkSample> one_size = {{1024, 5.0}, {1024, 6.0}};
  EXPECT_THROW(fit_link(one_size, kPiece, "same host"), InputError);
  const std::vector<LinkSample> shrinking = {{64, 50.0}, {1 << 20, 10.0}, {4 << 20, 5.0}};
  try {
    fit_link(shrinking, kPiece, "across hosts");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("across hosts"), std::string::npos) << e.what();
  }
  const std::vector<LinkSample> nan_time = {{64, 5.0}, {1024, std::nan("")}};
  EXPECT_THROW(fit_link(nan_time, kPiece, "same host"), InputError);
}

}  // namespace
}  // namespace ringbench::model
