// --slice auto's start-up probe (slice_probe.h) with thread ranks over real loopback sockets:
// every rank ends up sending with rank 0's winner, and the probe runs only where it can matter.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "bench_options.h"
#include "slice_probe.h"
#include "../transport/thread_ranks.h"

namespace ringbench {
namespace {

bool is_candidate(size_t slice) {
  return std::find(std::begin(kSliceCandidates), std::end(kSliceCandidates), slice) != std::end(kSliceCandidates);
}

TEST(SliceProbe, EveryRankSendsWithRankZerosFastestCandidate) {
  std::mutex mutex;
  std::vector<SliceProbe> probes(3);
  std::vector<size_t> in_force(3);
  testing::run_ranks(3, testing::quiet_options(), [&](Communicator& comm) {
    SliceProbe probe = probe_write_slice(comm, 1 << 20);
    std::lock_guard lock(mutex);
    in_force[static_cast<size_t>(comm.rank())] = comm.write_slice_bytes();
    probes[static_cast<size_t>(comm.rank())] = std::move(probe);
  });
  const SliceProbe& root = probes[0];
  ASSERT_EQ(root.median_us.size(), std::size(kSliceCandidates));
  for (double us : root.median_us) EXPECT_GT(us, 0);
  EXPECT_GE(root.rounds, 3);
  EXPECT_LE(root.rounds, kSliceProbeRounds);
  EXPECT_EQ(root.chosen, kSliceCandidates[fastest_candidate(root.median_us)]) << describe(root);
  for (size_t rank = 0; rank < probes.size(); ++rank) {
    SCOPED_TRACE(rank);
    EXPECT_TRUE(is_candidate(probes[rank].chosen));
    EXPECT_EQ(probes[rank].chosen, root.chosen) << "rank 0 decides for every rank";
    EXPECT_EQ(probes[rank].rounds, root.rounds) << "every rank makes the same calls";
    EXPECT_EQ(in_force[rank], root.chosen) << "the winner is the slice the rows then run with";
  }
}

TEST(SliceProbe, FastestCandidateIsTheLeastMedian) {
  const double medians[] = {13.0, 7.6, 6.4};
  EXPECT_EQ(fastest_candidate(medians), 2u);
  const double first[] = {5.0, 7.6, 6.4};
  EXPECT_EQ(fastest_candidate(first), 0u);
}

TEST(SliceProbe, ProbesTheLargestSizeUpToTheCap) {
  BenchOptions options;
  options.max_bytes = 64ull << 20;
  EXPECT_EQ(slice_probe_bytes(options), kMaxProbeBytes);
  options.max_bytes = 1 << 20;
  EXPECT_EQ(slice_probe_bytes(options), uint64_t{1} << 20);
  options.size_list = {3 << 20, 1 << 20};
  EXPECT_EQ(slice_probe_bytes(options), uint64_t{3} << 20) << "--sizes' largest, wherever it is in the list";
  options.workload = Workload::Ddp;
  options.ddp.grad_bytes = 128ull << 20;
  EXPECT_EQ(slice_probe_bytes(options), kMaxProbeBytes);
}

TEST(SliceProbe, NoProbeWherePinnedTooSmallOnlyMpiOrCountedByFaults) {
  BenchOptions options;
  options.max_bytes = kMinProbeBytes / 2;
  EXPECT_FALSE(slice_probe_bytes(options)) << "no call a slice would cut";
  options.max_bytes = 16 << 20;
  options.transport.write_slice_bytes = 64 << 10;
  EXPECT_FALSE(slice_probe_bytes(options)) << "--slice pins it";
  options.transport.write_slice_bytes = 0;
  options.algorithms = {"mpi"};
  EXPECT_FALSE(slice_probe_bytes(options)) << "no row of ours";
  options.algorithms = {"ring", "mpi"};
  EXPECT_TRUE(slice_probe_bytes(options));
  options.injects = {"kill:1@20"};
  EXPECT_FALSE(slice_probe_bytes(options)) << "--inject numbers the calls; the probe's would shift them";
}

}  // namespace
}  // namespace ringbench
