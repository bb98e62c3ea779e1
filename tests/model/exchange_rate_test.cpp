// The copy and reduction rates measured while every rank exchanges (model/exchange_rate.h), how
// plan_cost prices with them, and their round trip through the cluster JSON format.
#include "model/exchange_rate.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/cluster_json.h"
#include "model/error.h"
#include "model/measured_machine.h"
#include "model/plan_cost.h"
#include "spec/algorithm_spec.h"

namespace ringbench::model {
namespace {

TEST(ExchangeRate, EachRankCopiesTheChunkInAndOut) {
  // 1000 B each way in 2 us: 2000 B copied per rank, one core each: 1000 B/us = 1 GB/s.
  const std::vector<ExchangeSample> samples = {{1000, 2.0}};
  const auto rates = exchange_copy_rates(samples, 2, 2, 0, 0);
  ASSERT_EQ(rates.size(), 1u);
  EXPECT_DOUBLE_EQ(rates[0].GBps, 1.0);
  // Four ranks on two cores did twice the copying in the same time.
  EXPECT_DOUBLE_EQ(exchange_copy_rates(samples, 4, 2, 0, 0)[0].GBps, 2.0);
}

TEST(ExchangeRate, MedianPerSizeAscendingCappedAndSkippingBadSamples) {
  const std::vector<ExchangeSample> samples = {{4000, 4.0}, {1000, 2.0}, {1000, 1.0}, {1000, 4.0},
                                               {4000, 0.0}, {0, 1.0},    {4000, -1.0}};
  const auto rates = exchange_copy_rates(samples, 1, 1, 1.5, 0);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_EQ(rates[0].bytes, 1000u);
  EXPECT_DOUBLE_EQ(rates[0].GBps, 1.0);  // median of 2, 1 and 0.5
  EXPECT_EQ(rates[1].bytes, 4000u);
  EXPECT_DOUBLE_EQ(rates[1].GBps, 1.5);  // 2 GB/s, capped by the memcpy probe's 1.5
  EXPECT_THROW(exchange_copy_rates(samples, 0, 1, 0, 0), InputError);
  EXPECT_THROW(exchange_copy_rates(samples, 1, 0, 0, 0), InputError);
}

TEST(ExchangeRate, TheHopLatencyComesOffEachChunkAndAShorterChunkSaysNothing) {
  // 1000 B each way in 3 us, 1 us of it the hop plan_cost charges per step: 2000 B in 2 us.
  const std::vector<ExchangeSample> samples = {{1000, 3.0}, {500, 1.0}, {250, 0.5}};
  const auto rates = exchange_copy_rates(samples, 1, 1, 0, 1.0);
  ASSERT_EQ(rates.size(), 1u);  // 1 us and 0.5 us are no longer than the hop: skipped
  EXPECT_EQ(rates[0].bytes, 1000u);
  EXPECT_DOUBLE_EQ(rates[0].GBps, 1.0);
}

TEST(ExchangeRate, RateAtIsLogLinearBetweenPointsAndFlatBeyond) {
  const std::vector<RatePoint> rates = {{1000, 1.0}, {4000, 3.0}};
  EXPECT_DOUBLE_EQ(rate_at(rates, 2000), 2.0);  // halfway in log(bytes)
  EXPECT_DOUBLE_EQ(rate_at(rates, 1000), 1.0);
  EXPECT_DOUBLE_EQ(rate_at(rates, 10), 1.0);
  EXPECT_DOUBLE_EQ(rate_at(rates, 1 << 30), 3.0);
  EXPECT_DOUBLE_EQ(rate_at({}, 2000), 0.0);
}

// One host of 4 ranks on 2 cores, same-host latency 10 us, a pair fit of 1 GB/s with 2 us per
// piece, and the rates of one exchange sample: 4000 B each way in 20 us, 10 of them the hop.
Cluster exchanging_machine(bool with_rates) {
  MachineMeasurements m;
  m.name = "measured-exchange";
  m.ranks_per_host = 4;
  m.cores_per_host = 2;
  m.reduce_GBps = 0.5;
  m.copy_GBps = 4;
  m.same_host = {10, 1, 2};
  const std::vector<ExchangeSample> samples = {{4000, 20.0}};
  if (with_rates) m.exchange_copy_rates = exchange_copy_rates(samples, 4, 2, m.copy_GBps, m.same_host.latency_us);
  return measured_machine(m);
}

// The price of `call` on exchanging_machine() with its copy-rate curve replaced by `rates`.
double priced_with(const PlanCall& call, std::vector<RatePoint> rates) {
  Cluster machine = exchanging_machine(true);
  machine.host_cpu.exchange_copy_rates = std::move(rates);
  return plan_cost(machine, call).time_us;
}

TEST(ExchangeRate, PlanCostPricesTheMeasuredExchangeAtItsOwnTime) {
  // Ring all-gather of 4000 float32 at N = 4: 3 steps of one 4000 B chunk each way per rank, the
  // ring send/receive the rate was measured on. Each step takes the exchange's own 20 us: the 10
  // us hop, then 10 us of copying. The rate is 2 x 4000 x 4 / 2 / (20 - 10) = 1600 B/us.
  const PlanCall call{&spec::ring_allgather(), 4000, 4, 0, {0, 0, 0, 0}, 0};
  const Cluster measured = exchanging_machine(true);
  EXPECT_DOUBLE_EQ(rate_at(measured.host_cpu.exchange_copy_rates, 4000), 1.6);
  const PlanCost cost = plan_cost(measured, call);
  EXPECT_DOUBLE_EQ(cost.time_us, 60.0);
  EXPECT_DOUBLE_EQ(cost.cpu_us, 30.0);
  // Without it the pair fit prices the copies: (4 x 8000 / 1000 + 4 x 2 pieces x 2) / 2 = 24 per step.
  EXPECT_DOUBLE_EQ(plan_cost(exchanging_machine(false), call).time_us, 3 * (10 + 24.0));
}

TEST(ExchangeRate, DataInALargerBufferCopiesNoFasterThanThatBuffersRow) {
  // The same all-gather, its data a slice of 256000 B per rank (a DDP bucket of a gradient
  // buffer): a row with that buffer has 64000 B chunks, measured at 0.8 GB/s, half the 4000 B
  // chunk's rate. Each step's copying takes 20 us instead of 10: 3 x (10 + 20) = 90.
  Cluster measured = exchanging_machine(true);
  measured.host_cpu.exchange_copy_rates.push_back({64000, 0.8});
  PlanCall call{&spec::ring_allgather(), 4000, 4, 0, {0, 0, 0, 0}, 0};
  EXPECT_DOUBLE_EQ(plan_cost(measured, call).time_us, 60.0);
  call.resident_bytes = 256000;
  EXPECT_DOUBLE_EQ(plan_cost(measured, call).time_us, 90.0);
  // A resident buffer no larger than the call's own (16000 B per rank) changes nothing, and a
  // faster rate there never speeds the message up.
  call.resident_bytes = 16000;
  EXPECT_DOUBLE_EQ(plan_cost(measured, call).time_us, 60.0);
  measured.host_cpu.exchange_copy_rates.back().GBps = 3.2;
  call.resident_bytes = 256000;
  EXPECT_DOUBLE_EQ(plan_cost(measured, call).time_us, 60.0);
}

TEST(ExchangeRate, APipelinedSegmentIsASliceOfTheCallsOwnBuffer) {
  // A chain broadcast of 64000 B per rank at N = 4 in 4000 B segments: each step copies a slice of
  // a buffer whose link test row has 16000 B chunks. Measured at 0.8 GB/s there, the segments copy
  // at 0.8 too, not at the 1.6 of a 4000 B chunk whose whole buffer the caches held: the same
  // price as on a machine that measured 0.8 at both. A faster rate at the buffer's chunk never
  // speeds a segment up.
  PlanCall call{&spec::chain_broadcast(), 16000, 4, 0, {0, 0, 0, 0}, 0};
  call.segment_bytes = 4000;
  EXPECT_DOUBLE_EQ(priced_with(call, {{4000, 1.6}, {16000, 0.8}}), priced_with(call, {{4000, 0.8}, {16000, 0.8}}));
  EXPECT_DOUBLE_EQ(priced_with(call, {{4000, 1.6}, {16000, 3.2}}), priced_with(call, {{4000, 1.6}, {16000, 1.6}}));
  EXPECT_GT(priced_with(call, {{4000, 0.8}, {16000, 0.8}}), priced_with(call, {{4000, 1.6}, {16000, 1.6}}));
}

TEST(ExchangeRate, AStepToSeveralPeersCopiesAtItsMessagesRateNotTheirSums) {
  // Naive all-reduce of 4000 B per rank at N = 4: one step sends the 4000 B to each of 3 peers and
  // receives 3 x 4000. Each message is its own socket's copy, so the rate at 4000 B prices it,
  // whatever the curve says at 12000 B (measured 2026-12-06 on the 2-core AMD VM: keyed by the
  // sum, the 1 MiB naive all-reduce at N = 4 was priced 45-70% slow on a curve that fell past 2 MiB).
  const PlanCall call{&spec::naive_allreduce(), 1000, 4, 0, {0, 0, 0, 0}, 0};
  EXPECT_DOUBLE_EQ(priced_with(call, {{4000, 1.6}, {12000, 0.4}}), priced_with(call, {{4000, 1.6}, {12000, 1.6}}));
  EXPECT_GT(priced_with(call, {{4000, 0.8}, {12000, 1.6}}), priced_with(call, {{4000, 1.6}, {12000, 1.6}}));
}

TEST(ExchangeRate, AChunkOneElementShortOfBufferOverNIsWholeNotASlice) {
  // 4001 float32 at N = 4: chunks of 1001, 1000, 1000 and 1000 elements (4004 and 4000 B) against
  // buffer / N = 4001 B. The 4000 B chunks are whole chunks, priced at their own rate; were they
  // slices, the rate at 4001 B (0.4) would price them, and the two machines below would differ.
  const PlanCall call{&spec::ring_allgather(), 4001, 4, 0, {0, 0, 0, 0}, 0};
  EXPECT_DOUBLE_EQ(priced_with(call, {{4000, 1.6}, {4001, 0.4}}),
                   priced_with(call, {{4000, 1.6}, {4001, 1.6}, {4002, 0.4}}));
}

TEST(ExchangeRate, RoundTripsThroughClusterJsonAndRejectsDisorder) {
  const Cluster machine = exchanging_machine(true);
  const std::string text = cluster_to_json(machine);
  const Cluster back = cluster_from_json(text, "round trip");
  ASSERT_EQ(back.host_cpu.exchange_copy_rates.size(), 1u);
  EXPECT_EQ(back.host_cpu.exchange_copy_rates[0].bytes, 4000u);
  EXPECT_DOUBLE_EQ(back.host_cpu.exchange_copy_rates[0].GBps, 1.6);
  const std::string disordered = R"({"name": "x", "gpus_per_node": 2, "scale_up": {"kind": "pcie", "bw_GBps": 1},
    "nics": {"per_node": 1, "bw_Gbps": 8}, "host_cpu": {"cores": 2, "reduce_GBps": 1, "copy_GBps": 1,
    "exchange_copy_rates": [{"bytes": 4000, "GBps": 1}, {"bytes": 1000, "GBps": 2}]}})";
  try {
    cluster_from_json(disordered, "test");
    FAIL() << "a descending exchange_copy_rates was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("host_cpu.exchange_copy_rates[1].bytes"), std::string::npos) << e.what();
  }
}

TEST(ExchangeReduceRate, TheReducingExchangeLessThePlainOneIsTheReduction) {
  // 4000 B chunks, plain in 20 us, reducing in 25: each rank also summed 4000 B in 5 us, 0.8 GB/s;
  // four ranks on two cores did twice that work in the same time: 1.6 GB/s per core.
  const std::vector<ExchangeSample> samples = {{4000, 20.0}, {4000, 25.0, true}};
  ASSERT_EQ(exchange_reduce_rates(samples, 1, 1, 0).size(), 1u);
  EXPECT_DOUBLE_EQ(exchange_reduce_rates(samples, 1, 1, 0)[0].GBps, 0.8);
  EXPECT_DOUBLE_EQ(exchange_reduce_rates(samples, 4, 2, 0)[0].GBps, 1.6);
  // The plain curve ignores the reducing sample.
  const auto copy = exchange_copy_rates(samples, 1, 1, 0, 0);
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_DOUBLE_EQ(copy[0].GBps, 0.4);
  EXPECT_THROW(exchange_reduce_rates(samples, 0, 1, 0), InputError);
  EXPECT_THROW(exchange_reduce_rates(samples, 1, 0, 0), InputError);
}

TEST(ExchangeReduceRate, PairsEachReducingSampleWithThePlainOneBeforeItAndCapsAtTheProbe) {
  const std::vector<ExchangeSample> samples = {
      {1000, 9.0, true},                        // no plain sample before it: skipped
      {1000, 10.0},       {1000, 12.0, true},   // 1000 B in 2 us: 0.5 GB/s
      {1000, 20.0},       {1000, 21.0, true},   // paired with 20, not 10: 1.0 GB/s
      {1000, 30.0},       {1000, 34.0, true},   // 0.25 GB/s: the median of the three is 0.5
      {4000, 10.0},       {4000, 9.0, true},    // faster than plain: inside the noise
      {16000, 10.0},      {16000, 11.0, true},  // 16 GB/s, above the probe
  };
  const auto capped = exchange_reduce_rates(samples, 1, 1, 2.0);
  ASSERT_EQ(capped.size(), 3u);
  EXPECT_EQ(capped[0].bytes, 1000u);
  EXPECT_DOUBLE_EQ(capped[0].GBps, 0.5);
  EXPECT_EQ(capped[1].bytes, 4000u);
  EXPECT_DOUBLE_EQ(capped[1].GBps, 2.0) << "no positive difference: the probe's rate";
  EXPECT_DOUBLE_EQ(capped[2].GBps, 2.0) << "never faster than the probe";
  // Without a cap the pair that cannot tell says nothing, and the fast one stands.
  const auto uncapped = exchange_reduce_rates(samples, 1, 1, 0);
  ASSERT_EQ(uncapped.size(), 2u);
  EXPECT_EQ(uncapped[1].bytes, 16000u);
  EXPECT_DOUBLE_EQ(uncapped[1].GBps, 16.0);
  EXPECT_TRUE(exchange_reduce_rates(std::vector<ExchangeSample>{{1000, 10.0}}, 1, 1, 2.0).empty());
}

TEST(ExchangeReduceRate, PlanCostPricesTheReducingExchangeAtItsOwnTime) {
  // Ring reduce-scatter of 16000 B per rank at N = 4: 3 steps, each sending and receiving one 4000
  // B chunk and reducing it, the reducing link test's pattern. Measured at 20 us plain (10 of it
  // the hop) and 25 us reducing, each step is priced at the reducing exchange's own 25 us.
  Cluster machine = exchanging_machine(true);
  const PlanCall call{&spec::ring_reducescatter(), 4000, 4, 0, {0, 0, 0, 0}, 0};
  // Without the curve the probe prices it: 4000 B x 2 ranks per core / 0.5 GB/s = 16 us a step.
  EXPECT_DOUBLE_EQ(plan_cost(machine, call).time_us, 3 * (20.0 + 16.0));
  const std::vector<ExchangeSample> samples = {{4000, 20.0}, {4000, 25.0, true}};
  machine.host_cpu.exchange_reduce_rates = exchange_reduce_rates(samples, 4, 2, 0);
  EXPECT_DOUBLE_EQ(plan_cost(machine, call).time_us, 3 * 25.0);
  // The all-gather reduces nothing: the curve leaves it as it was.
  const PlanCall gather{&spec::ring_allgather(), 4000, 4, 0, {0, 0, 0, 0}, 0};
  EXPECT_DOUBLE_EQ(plan_cost(machine, gather).time_us, 60.0);
}

TEST(ExchangeReduceRate, RoundTripsThroughClusterJson) {
  Cluster machine = exchanging_machine(true);
  machine.host_cpu.exchange_reduce_rates = {{4000, 1.6}, {64000, 0.9}};
  const Cluster back = cluster_from_json(cluster_to_json(machine), "round trip");
  ASSERT_EQ(back.host_cpu.exchange_reduce_rates.size(), 2u);
  EXPECT_EQ(back.host_cpu.exchange_reduce_rates[1].bytes, 64000u);
  EXPECT_DOUBLE_EQ(back.host_cpu.exchange_reduce_rates[1].GBps, 0.9);
  // A machine file from before the curve has none, and prices at the probe.
  EXPECT_TRUE(cluster_from_json(cluster_to_json(exchanging_machine(true)), "old").host_cpu.exchange_reduce_rates.empty());
}

}  // namespace
}  // namespace ringbench::model
