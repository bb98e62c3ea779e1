// Pricing ringbench's plans on a measured machine (model/plan_cost.h), against hand-computed
// times, and the measured machine's round trip through the cluster JSON format.
#include "model/plan_cost.h"

#include <gtest/gtest.h>

#include "model/cluster_json.h"
#include "model/error.h"
#include "model/measured_machine.h"
#include "spec/algorithm_spec.h"

namespace ringbench::model {
namespace {

// Same host: 10 us latency, 1 GB/s (1000 B/us), 2 us per piece; across hosts: 50 us, 1 GB/s,
// 3 us per piece. Reduction 0.5 GB/s (500 B/us), memcpy 4 GB/s, so the kernel copies at the
// same-host link's 1 GB/s; 2 cores per host.
MachineMeasurements measurements() {
  MachineMeasurements m;
  m.name = "measured-test";
  m.hosts = 2;
  m.ranks_per_host = 2;
  m.cores_per_host = 2;
  m.reduce_GBps = 0.5;
  m.copy_GBps = 4;
  m.same_host = {10, 1, 2};
  m.across_hosts = LinkParameters{50, 1, 3};
  return m;
}

// Ring all-reduce of 1000 float32 (4000 B) at N = 2: two steps of one 2000 B chunk each way,
// the first reduces its chunk, the second copies it.
PlanCall ring_call(std::vector<int> hosts, uint64_t piece_bytes = 0) {
  return {&spec::ring_allreduce(), 1000, 4, 0, std::move(hosts), piece_bytes};
}

TEST(PlanCost, RingAllReduceOnOwnCores) {
  const Cluster machine = measured_machine(measurements());
  EXPECT_DOUBLE_EQ(kernel_copy_GBps(machine), 1.0);
  // Step 1: wire 2 + 2000/1000 = 4; work per rank (2000 sent + 2000 received) / 1000 + 2000 / 500
  // reduced = 8, one core each: 10 latency + max(4, 8) = 18. Step 2: work 4, 10 + max(4, 4) = 14.
  const PlanCost cost = plan_cost(machine, ring_call({0, 0}));
  EXPECT_DOUBLE_EQ(cost.time_us, 32.0);
  EXPECT_DOUBLE_EQ(cost.latency_us, 20.0);
  EXPECT_DOUBLE_EQ(cost.cpu_us, 8.0);
  EXPECT_DOUBLE_EQ(cost.wire_us, 4.0);
  EXPECT_EQ(cost.steps, 2);
}

TEST(PlanCost, PiecesEachPayTheOverhead) {
  const Cluster machine = measured_machine(measurements());
  // 2000 B in 1000 B pieces: wire 2 x 2 + 2 = 6. Step 1: 10 + max(6, 8) = 18; step 2: 10 + max(6, 4) = 16.
  EXPECT_DOUBLE_EQ(plan_cost(machine, ring_call({0, 0}, 1000)).time_us, 34.0);
}

TEST(PlanCost, AcrossHostsUsesTheAcrossClass) {
  const Cluster machine = measured_machine(measurements());
  // Wire 3 + 2 = 5. Step 1: 50 + max(5, 8) = 58; step 2: 50 + max(5, 4) = 55.
  EXPECT_DOUBLE_EQ(plan_cost(machine, ring_call({0, 1})).time_us, 113.0);
}

// Ranks of one host that cross at once share its link: the link test timed one flow alone. A
// pairwise all-to-all at N = 4 of 4000 B blocks, over a 1 GB/s link with no latency, and a same
// host and CPU so fast they cost nothing: in step 2 (r sends to r + 2) both ranks of each host
// send across, so the host's link carries 8000 B (8 us); in steps 1 and 3 one rank of each host
// sends across and one receives (4 us each). On four hosts each rank has its own link: 3 x 4 us.
TEST(PlanCost, RanksOfOneHostShareItsLinkAcrossHosts) {
  MachineMeasurements m = measurements();
  m.same_host = {0, 1e6, 0};
  m.across_hosts = LinkParameters{0, 1, 0};
  m.copy_GBps = m.reduce_GBps = 1e6;
  const Cluster machine = measured_machine(m);
  const auto alltoall = [](std::vector<int> hosts) { return PlanCall{&spec::pairwise_alltoall(), 4000, 4, 0, std::move(hosts), 0}; };
  EXPECT_NEAR(plan_cost(machine, alltoall({0, 0, 1, 1})).time_us, 16.0, 0.01);
  EXPECT_NEAR(plan_cost(machine, alltoall({0, 1, 2, 3})).time_us, 12.0, 0.01);
  // The ring crosses with one flow per host each way: nothing shared, 6 steps of a 1000 B chunk.
  EXPECT_NEAR(plan_cost(machine, PlanCall{&spec::ring_allreduce(), 1000, 4, 0, {0, 0, 1, 1}, 0}).time_us, 6.0, 0.01);
}

TEST(PlanCost, APipelinePaysEachHopsLatencyOnce) {
  const Cluster machine = measured_machine(measurements());
  // Chain broadcast of 3 segments of 64 KiB at N = 2: 3 steps, each segment's wire 2 + 65536 /
  // 1000 = 67.536 us; the CPU (65.536 us per rank) is below it. The root sends back to back, so
  // rank 1 finishes at one latency plus 3 x 67.536, not 3 x (10 + 67.536).
  const PlanCall chain{&spec::chain_broadcast(), 3 * 16384, 4, 0, {0, 0}, 0};
  const PlanCost cost = plan_cost(machine, chain);
  EXPECT_EQ(cost.steps, 3);
  EXPECT_NEAR(cost.time_us, 10 + 3 * 67.536, 1e-9);
  EXPECT_NEAR(cost.latency_us, 10, 1e-9);
}

// The model prices the segment a row ran with (PlanCall::segment_bytes, /results segment_bytes):
// the same chain in one 192 KiB segment is one step, paying the 2 us message overhead once where
// the default 64 KiB cut paid it three times (APipelinePaysEachHopsLatencyOnce); 0 is that cut.
TEST(PlanCost, PricesTheSegmentTheCallRanWith) {
  const Cluster machine = measured_machine(measurements());
  PlanCall chain{&spec::chain_broadcast(), 3 * 16384, 4, 0, {0, 0}, 0};
  const PlanCost by_default = plan_cost(machine, chain);
  chain.segment_bytes = 64 << 10;
  EXPECT_EQ(plan_cost(machine, chain).steps, by_default.steps);
  EXPECT_DOUBLE_EQ(plan_cost(machine, chain).time_us, by_default.time_us);
  chain.segment_bytes = 3 * 65536;
  const PlanCost whole = plan_cost(machine, chain);
  EXPECT_EQ(whole.steps, 1);
  // One step of 196608 B: wire 2 + 196608 / 1000 = 198.608 us, after one latency.
  EXPECT_NEAR(whole.time_us, 10 + 198.608, 1e-9);
}

// ringbench times a call from the last rank's entry; ranks that enter earlier start early
// (plan_cost.h, "Entry skew"). The chain of APipelinePaysEachHopsLatencyOnce with its ranks entering
// 1000 us apart: with the root last, rank 1 waits for its data, 212.608 us as if together; with
// rank 1 last, its first segment is already there and it pays no latency, 3 x 67.536 = 202.608 us.
// The price is the median of the two. The ring all-reduce of RingAllReduceOnOwnCores exchanges at
// its first step, so whichever rank enters last paces the other: 32 us either way.
TEST(PlanCost, RanksEnteringEarlyStartTheDataflowEarly) {
  const Cluster machine = measured_machine(measurements());
  PlanCall chain{&spec::chain_broadcast(), 3 * 16384, 4, 0, {0, 0}, 0};
  chain.entry_skew_us = 1000;
  EXPECT_NEAR(plan_cost(machine, chain).time_us, (212.608 + 202.608) / 2, 1e-9);
  PlanCall ring = ring_call({0, 0});
  ring.entry_skew_us = 1000;
  EXPECT_DOUBLE_EQ(plan_cost(machine, ring).time_us, 32.0);
  // At N = 3 the median is the middle rank entering last: the root's segments are waiting for it,
  // so it pays no latency for them (faster than together), but the leaf still waits for each one
  // the middle forwards (slower than the leaf's own 3 segments with everything waiting for it).
  PlanCall chain3{&spec::chain_broadcast(), 3 * 16384, 4, 0, {0, 0, 0}, 0};
  const double together = plan_cost(machine, chain3).time_us;
  chain3.entry_skew_us = 1000;
  const double skewed = plan_cost(machine, chain3).time_us;
  EXPECT_LT(skewed, together);
  EXPECT_GT(skewed, 3 * 67.536);  // the leaf, last with everything waiting, copies its 3 segments
}

TEST(PlanCost, SharedCoresSetThePaceWhenRanksOutnumberThem) {
  MachineMeasurements m = measurements();
  m.cores_per_host = 1;
  m.copy_GBps = 0.1;  // below the link: the kernel copies at 100 B/us
  const Cluster machine = measured_machine(m);
  EXPECT_DOUBLE_EQ(kernel_copy_GBps(machine), 0.1);
  // Step 1, per rank: 4000 / 100 = 40 copied + 4 reduced = 44, and one piece sent and one received
  // at 2 us each: 4; two ranks on one core: 96, so 10 + 96 = 106. Step 2: 40 + 4 per rank, 88: 98.
  const PlanCost cost = plan_cost(machine, ring_call({0, 0}));
  EXPECT_DOUBLE_EQ(cost.time_us, 204.0);
  EXPECT_DOUBLE_EQ(cost.cpu_us, 184.0);
  // The same two ranks on two hosts of one core each share nothing: 50 + 44, then 50 + 40.
  EXPECT_DOUBLE_EQ(plan_cost(machine, ring_call({0, 1})).time_us, 184.0);
}

TEST(PlanCost, PiecesCostBothEndsCpuWhenRanksOutnumberCores) {
  // Ring all-reduce of 4000 B at N = 4: six steps of one 1000 B piece each way. Wire 2 + 1 = 3;
  // work 1 + 1 copied (+ 2 reduced in the first three steps); pieces 2 x (1 sent + 1 received) = 4.
  const PlanCall four_ranks = ring_call({0, 0, 0, 0});
  // 4 ranks on 2 cores: the pieces join the shared sum, (4 x (4 + 4)) / 2 = 16 in a reducing step
  // and (4 x (2 + 4)) / 2 = 12 in a copying one: 3 x (10 + 16) + 3 x (10 + 12) = 144. Without
  // them it would be 3 x (10 + 8) + 3 x (10 + 4) = 96.
  const PlanCost shared = plan_cost(measured_machine(measurements()), four_ranks);
  EXPECT_DOUBLE_EQ(shared.time_us, 144.0);
  EXPECT_DOUBLE_EQ(shared.cpu_us, 84.0);
  // On 4 cores each rank has its own: its pieces overlap its copies in the wire term as before,
  // 3 x (10 + max(3, 4)) + 3 x (10 + max(3, 2)) = 81.
  MachineMeasurements own = measurements();
  own.cores_per_host = 4;
  EXPECT_DOUBLE_EQ(plan_cost(measured_machine(own), four_ranks).time_us, 81.0);
}

TEST(PlanCost, ARankUsesOneCoreAtMost) {
  MachineMeasurements m = measurements();
  m.cores_per_host = 16;  // more cores than ranks: still 8 and 4 per step, as on 2 cores
  EXPECT_DOUBLE_EQ(plan_cost(measured_machine(m), ring_call({0, 0})).time_us, 32.0);
}

TEST(PlanCost, OtherProcessesLeaveFewerCores) {
  PlanCall call = ring_call({0, 0});
  call.foreign_cpu_share = 0.75;  // half a core left of 2; 2 ranks on 2 cores: no pieces_r
  // Step 1: work 8 per rank, max(8 / 0.5, 16 / 0.5) = 32, 10 + 32 = 42; step 2: 4, 8 / 0.5 = 16, 26.
  EXPECT_DOUBLE_EQ(plan_cost(measured_machine(measurements()), call).time_us, 68.0);
  call.foreign_cpu_share = 1;
  EXPECT_THROW(plan_cost(measured_machine(measurements()), call), InputError);
}

TEST(PlanCost, WithoutAHostCpuOnlyLinksCount) {
  Cluster machine = measured_machine(measurements());
  machine.host_cpu = {};
  EXPECT_DOUBLE_EQ(kernel_copy_GBps(machine), 0.0);
  // The per-piece overheads are host_cpu's too: 10 + 2000 / 1000 = 12 per step.
  EXPECT_DOUBLE_EQ(plan_cost(machine, ring_call({0, 0})).time_us, 24.0);
}

TEST(PlanCost, MeasuredMachineRoundTripsThroughClusterJson) {
  const Cluster machine = measured_machine(measurements());
  const Cluster back = cluster_from_json(cluster_to_json(machine), "round trip");
  EXPECT_EQ(back.host_cpu.cores, 2);
  EXPECT_DOUBLE_EQ(back.host_cpu.across_hosts_message_overhead_us, 3.0);
  EXPECT_DOUBLE_EQ(plan_cost(back, ring_call({0, 1}, 1000)).time_us,
                   plan_cost(machine, ring_call({0, 1}, 1000)).time_us);
  EXPECT_DOUBLE_EQ(link_class(back, false).bandwidth_GBps, 1.0);
}

TEST(PlanCost, OneHostMachineRepeatsTheSameHostFitAcross) {
  MachineMeasurements m = measurements();
  m.across_hosts.reset();
  const Cluster machine = measured_machine(m);
  EXPECT_DOUBLE_EQ(link_class(machine, false).latency_us, 10.0);
  EXPECT_NE(machine.description.find("one host"), std::string::npos);
}

TEST(PlanCost, BadInputsAreInputErrors) {
  MachineMeasurements m = measurements();
  m.reduce_GBps = 0;  // a run without probes
  EXPECT_THROW(measured_machine(m), InputError);
  const Cluster machine = measured_machine(measurements());
  EXPECT_THROW(plan_cost(machine, ring_call({})), InputError);
  PlanCall no_algorithm = ring_call({0, 0});
  no_algorithm.algorithm = nullptr;
  EXPECT_THROW(plan_cost(machine, no_algorithm), InputError);
  PlanCall negative_skew = ring_call({0, 0});
  negative_skew.entry_skew_us = -1;
  EXPECT_THROW(plan_cost(machine, negative_skew), InputError);
}

TEST(PlanCost, BlockPlacementFillsHostsInOrder) {
  EXPECT_EQ(block_placement(4, 2), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(block_placement(3, 1), (std::vector<int>{0, 0, 0}));
}

}  // namespace
}  // namespace ringbench::model
