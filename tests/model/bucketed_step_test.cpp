// The bucketed, overlapped DDP step (model/bucketed_step.h): timelines worked out by hand, then the
// same timeline priced by the CostModel on the hand-sized cluster.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/bucketed_step.h"
#include "model/error.h"
#include "model/measured_machine.h"
#include "model/plan_cost.h"
#include "model/presets.h"
#include "spec/algorithm_spec.h"
#include "tiny_cluster.h"

namespace ringbench::model {
namespace {

// A made-up all-reduce: `latency` us per call plus 10 bytes per us.
AllReduceTime linear(double latency) {
  return [latency](uint64_t bytes) { return latency + static_cast<double>(bytes) / 10.0; };
}

TEST(BucketedStep, CommunicationBoundBucketsQueueBehindEachOther) {
  // 4 layers of 100 bytes, 2 us each; buckets of one layer, 5 + 10 = 15 us each. Ready at 2, 4,
  // 6, 8; the engine runs them back to back: 2-17, 17-32, 32-47, 47-62.
  const BucketedStep s = bucketed_step(400, 4, 100, 2.0, linear(5.0));
  ASSERT_EQ(s.buckets, 4u);
  const std::vector<double> ready{2, 4, 6, 8}, start{2, 17, 32, 47}, end{17, 32, 47, 62};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(s.timeline[k].ready_layer, static_cast<int>(k) + 1);
    EXPECT_DOUBLE_EQ(s.timeline[k].ready_us, ready[k]);
    EXPECT_DOUBLE_EQ(s.timeline[k].start_us, start[k]);
    EXPECT_DOUBLE_EQ(s.timeline[k].end_us, end[k]);
  }
  EXPECT_DOUBLE_EQ(s.compute_us, 8);
  EXPECT_DOUBLE_EQ(s.comm_alone_us, 60);
  EXPECT_DOUBLE_EQ(s.step_us, 62);
  EXPECT_DOUBLE_EQ(s.exposed_comm_us, 54);
  EXPECT_DOUBLE_EQ(s.overlap_fraction, 1.0 - 54.0 / 60.0);
}

TEST(BucketedStep, BucketsThatEndInsideALayerWaitForThatLayer) {
  // 4 layers of 100 bytes, 10 us each; buckets of 150 bytes, no latency (15, 15, 10 us). Bucket 0
  // ends at byte 150, inside layer 2: ready at 20, runs 20-35. Bucket 1 ends at byte 300, the end
  // of layer 3: ready 30, waits for the engine, 35-50. Bucket 2 (100 bytes) is ready at 40, 50-60.
  const BucketedStep s = bucketed_step(400, 4, 150, 10.0, linear(0.0));
  ASSERT_EQ(s.buckets, 3u);
  EXPECT_EQ(s.timeline[0].bytes, 150u);
  EXPECT_EQ(s.timeline[2].bytes, 100u);
  EXPECT_EQ(s.timeline[0].ready_layer, 2);
  EXPECT_EQ(s.timeline[1].ready_layer, 3);
  EXPECT_EQ(s.timeline[2].ready_layer, 4);
  EXPECT_DOUBLE_EQ(s.timeline[1].start_us, 35);
  EXPECT_DOUBLE_EQ(s.timeline[2].start_us, 50);
  EXPECT_DOUBLE_EQ(s.step_us, 60);
  EXPECT_DOUBLE_EQ(s.compute_us, 40);
  EXPECT_DOUBLE_EQ(s.comm_alone_us, 40);
  EXPECT_DOUBLE_EQ(s.exposed_comm_us, 20);
  EXPECT_DOUBLE_EQ(s.overlap_fraction, 0.5);
}

TEST(BucketedStep, ComputeBoundStepExposesOnlyTheLastBucket) {
  // Layers of 100 us, buckets of 10 us: each ends long before the next is ready, and only the
  // last, ready when the backward pass ends, shows.
  const BucketedStep s = bucketed_step(400, 4, 100, 100.0, linear(0.0));
  EXPECT_DOUBLE_EQ(s.step_us, 410);
  EXPECT_DOUBLE_EQ(s.exposed_comm_us, 10);
  EXPECT_DOUBLE_EQ(s.overlap_fraction, 0.75);
}

TEST(BucketedStep, OneBucketOfEverythingOverlapsNothing) {
  const BucketedStep s = bucketed_step(400, 4, 1000, 3.0, linear(5.0));
  ASSERT_EQ(s.buckets, 1u);
  EXPECT_EQ(s.timeline[0].bytes, 400u);
  EXPECT_DOUBLE_EQ(s.step_us, 12 + 45);
  EXPECT_DOUBLE_EQ(s.exposed_comm_us, 45);
  EXPECT_DOUBLE_EQ(s.overlap_fraction, 0.0);
}

TEST(BucketedStep, PricesEachDistinctBucketSizeOnce) {
  int calls = 0;
  const AllReduceTime counted = [&calls](uint64_t bytes) {
    ++calls;
    return static_cast<double>(bytes);
  };
  const BucketedStep s = bucketed_step(1000, 10, 30, 1.0, counted);
  EXPECT_EQ(s.buckets, 34u);  // 33 of 30 bytes and one of 10
  EXPECT_EQ(calls, 2);
  EXPECT_DOUBLE_EQ(s.comm_alone_us, 1000);
}

TEST(BucketedStep, BadWorkloadsNameTheirFlag) {
  const auto expect_names = [](auto&& call, const char* flag) {
    try {
      call();
      ADD_FAILURE() << "no error for " << flag;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  };
  expect_names([] { bucketed_step(0, 4, 100, 1.0, linear(0)); }, "--grad-bytes");
  expect_names([] { bucketed_step(400, 0, 100, 1.0, linear(0)); }, "--layers");
  expect_names([] { bucketed_step(400, 4, 0, 1.0, linear(0)); }, "--bucket-bytes");
  expect_names([] { bucketed_step(400, 4, 100, -1.0, linear(0)); }, "--compute-ms");
  expect_names([] { bucketed_step(uint64_t{1} << 40, 4, 1, 1.0, linear(0)); }, "--bucket-bytes");
}

TEST(BucketedStep, HugeWorkloadsFindTheirLayerWithoutOverflow) {
  // 1e18 bytes over 65536 layers: byte position x layers passes 2^64.
  const uint64_t g = 1'000'000'000'000'000'000;
  const BucketedStep s = bucketed_step(g, 65536, g / 4, 1.0, linear(0));
  ASSERT_EQ(s.buckets, 4u);
  EXPECT_EQ(s.timeline[0].ready_layer, 16384);
  EXPECT_EQ(s.timeline[3].ready_layer, 65536);
}

class DdpStepOnACluster : public ::testing::Test {
 protected:
  // 2 nodes x 2 GPUs, one data-parallel group of all 4, ring: every byte priced by the cost model.
  Cluster cluster = [] {
    Cluster c = testing::tiny_cluster();
    c.launch_overhead_us = 20.0;  // the per-call cost that small buckets pay again and again
    return c;
  }();
  CostModel model{cluster};
  std::vector<std::vector<int>> groups{{0, 1, 2, 3}};
  Batch batch = model.batch(groups);

  double ring(uint64_t bytes) { return model.cost(Op::AllReduce, Algorithm::Ring, batch, bytes).time_us; }
};

TEST_F(DdpStepOnACluster, BucketsCostWhatTheCostModelSaysAndComputeDefaultsToBalanced) {
  DdpWorkload w;
  w.grad_bytes = 64'000'000;
  w.layers = 8;
  w.bucket_bytes = 16'000'000;
  const BucketedStep s = ddp_step(model, batch, Algorithm::Ring, w);
  EXPECT_DOUBLE_EQ(s.compute_us_per_layer, ring(8'000'000));  // balanced: one layer's all-reduce
  ASSERT_EQ(s.buckets, 4u);
  EXPECT_DOUBLE_EQ(s.timeline[0].comm_us, ring(16'000'000));
  EXPECT_DOUBLE_EQ(s.comm_alone_us, 4 * ring(16'000'000));
  // Balanced compute: a 2-layer bucket takes about 2 layers' time, so each waits for the previous
  // and the last ends one bucket after the backward pass.
  EXPECT_GT(s.exposed_comm_us, 0.0);
  EXPECT_LT(s.exposed_comm_us, s.comm_alone_us);
  w.compute_us_per_layer = 0.0;  // no compute: nothing hidden
  const BucketedStep bare = ddp_step(model, batch, Algorithm::Ring, w);
  EXPECT_DOUBLE_EQ(bare.step_us, bare.comm_alone_us);
  EXPECT_DOUBLE_EQ(bare.overlap_fraction, 0.0);
}

TEST_F(DdpStepOnACluster, SweepFindsTheBucketBetweenLatencyAndLateStart) {
  DdpWorkload w;
  w.grad_bytes = 64'000'000;
  w.layers = 8;
  std::vector<uint64_t> sizes;
  for (uint64_t b = 1'000; b <= w.grad_bytes; b *= 4) sizes.push_back(b);
  sizes.push_back(w.grad_bytes);
  const BucketSweep sweep = bucket_sweep(model, batch, Algorithm::Ring, w, sizes);
  ASSERT_EQ(sweep.steps.size(), sizes.size());
  for (const auto& s : sweep.steps) EXPECT_LE(sweep.steps[sweep.best].step_us, s.step_us);
  // Smallest buckets: 64000 calls' launch overhead; one bucket: nothing overlapped.
  EXPECT_GT(sweep.best, 0u);
  EXPECT_LT(sweep.best, sizes.size() - 1);
  EXPECT_GT(sweep.steps.front().comm_alone_us, 64'000 * 20.0);
  EXPECT_DOUBLE_EQ(sweep.steps.back().overlap_fraction, 0.0);
}

TEST_F(DdpStepOnACluster, AutoTakesTheFastestAlgorithmPerBucket) {
  DdpWorkload w;
  w.grad_bytes = 4'000'000;
  w.layers = 4;
  w.bucket_bytes = 1'000'000;
  w.compute_us_per_layer = 0.0;
  const BucketedStep s = ddp_step(model, batch, std::nullopt, w);
  EXPECT_DOUBLE_EQ(s.timeline[0].comm_us, model.cost_best(Op::AllReduce, batch, 1'000'000).time_us);
  EXPECT_LE(s.comm_alone_us, ddp_step(model, batch, Algorithm::Ring, w).comm_alone_us);
}

// On a measured machine (topomodel calibrate's cluster, with host_cpu) a bucket is priced exactly
// as topomodel predict prices a measured row: the spec's plan under plan_cost, so the DDP step and
// predict share one costing.
Cluster four_ranks_on_two_cores() {
  MachineMeasurements m;
  m.name = "measured-test";
  m.ranks_per_host = 4;
  m.cores_per_host = 2;
  m.reduce_GBps = 10;
  m.copy_GBps = 20;
  m.same_host = {5.0, 2.0, 1.0};  // latency us, bandwidth GB/s, overhead us per piece
  m.piece_bytes = 256 << 10;
  return measured_machine(m);
}

double plan_time(const Cluster& machine, const spec::AlgorithmSpec& algorithm, uint64_t bytes) {
  const PlanCall call{&algorithm, bytes / 4, 4, 0, {0, 0, 0, 0}, 256 << 10, 0.0};
  return plan_cost(machine, call).time_us;
}

TEST(DdpStepOnAMeasuredMachine, PricesEachBucketByTheSpecificationsPlan) {
  const Cluster machine = four_ranks_on_two_cores();
  ASSERT_EQ(machine.host_cpu.piece_bytes, 256 << 10);
  const uint64_t bucket = 1 << 20;
  const double ring = plan_time(machine, spec::ring_allreduce(), bucket);
  EXPECT_DOUBLE_EQ(measured_machine_allreduce(machine, "ring", 4, bucket)(bucket), ring);
  EXPECT_DOUBLE_EQ(measured_machine_allreduce(machine, "halving-doubling", 4, bucket)(bucket),
                   measured_machine_allreduce(machine, "rhd", 4, bucket)(bucket));
  double fastest = std::numeric_limits<double>::infinity();
  for (const spec::AlgorithmSpec* a : spec::all_algorithm_specs())
    if (a->collective == "allreduce") fastest = std::min(fastest, plan_time(machine, *a, bucket));
  EXPECT_DOUBLE_EQ(measured_machine_allreduce(machine, "auto", 4, bucket)(bucket), fastest);
  EXPECT_THROW(measured_machine_allreduce(machine, "nvls", 4, bucket), InputError);

  DdpWorkload w;
  w.grad_bytes = 4 * bucket;
  w.layers = 4;
  w.bucket_bytes = bucket;
  w.compute_us_per_layer = 0.0;
  const BucketedStep s = ddp_step(measured_machine_allreduce(machine, "ring", 4, w.grad_bytes), w);
  ASSERT_EQ(s.buckets, 4u);
  EXPECT_DOUBLE_EQ(s.timeline[0].comm_us, ring);
  EXPECT_DOUBLE_EQ(s.comm_alone_us, 4 * ring);
}

}  // namespace
}  // namespace ringbench::model
