// Measurement with thread ranks over real loopback sockets: the stopping decision is rank 0's and
// every rank follows it, and algorithms taking turns at one size each keep their own result.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "measurement.h"
#include "transport/algorithm.h"
#include "../transport/thread_ranks.h"

namespace ringbench {
namespace {

// Ring all-reduce with a random pause before each call, different on every rank, so that every
// rank's own view of the calls (and any statistic it could compute alone) differs from rank 0's.
class JitteryRing : public Algorithm {
 public:
  JitteryRing(uint32_t seed, int rank) : random_(seed + static_cast<uint32_t>(rank)), rank_(rank) {}
  Collective collective() const override { return ring().collective(); }
  std::string_view name() const override { return "jittery-ring"; }
  uint32_t steps(int world) const override { return ring().steps(world); }
  uint64_t payload_bytes_sent(int rank, int world, size_t count, size_t element_bytes, int root) const override {
    return ring().payload_bytes_sent(rank, world, count, element_bytes, root);
  }
  void run(Communicator& comm, const CollectiveCall& call) const override {
    std::uniform_int_distribution<int> pause_us(0, 300 * (rank_ + 1));
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us(random_)));
    ring().run(comm, call);
  }

 private:
  static const Algorithm& ring() { return *find_algorithm(Collective::AllReduce, "ring"); }
  mutable std::mt19937 random_;
  int rank_;
};

struct RankView {
  std::vector<int> iterations;
  std::vector<std::string> stop_reasons;
  std::vector<size_t> call_counts;  // rank 0 only: samples kept
  std::vector<uint64_t> wrong;      // rank 0 only
  std::vector<double> link_us;      // rank 0 only: rank 0's own link test, per chunk
};

// Runs measure_together on `n` thread ranks; returns each rank's view of each result.
std::vector<RankView> measure_on_threads(int n, const BenchOptions& options, const std::vector<std::string>& names,
                                         uint32_t seed, uint64_t bytes) {
  std::vector<RankView> views(static_cast<size_t>(n));
  std::mutex mutex;
  testing::run_ranks(n, testing::quiet_options(), [&](Communicator& comm) {
    JitteryRing jittery(seed, comm.rank());
    std::vector<Contestant> contestants;
    for (size_t i = 0; i < names.size(); ++i)
      contestants.push_back({names[i] == "jittery-ring" ? &jittery : find_algorithm(Collective::AllReduce, names[i]),
                             options.placement == Placement::Both && i % 2 == 1});
    Measurement measurement(comm, options, seed);
    const std::vector<SizeResult> results = measurement.measure_together(contestants, bytes);
    RankView view;
    for (const SizeResult& r : results) {
      view.iterations.push_back(r.iterations);
      view.stop_reasons.push_back(r.stop_reason);
      view.call_counts.push_back(r.call_us.size());
      view.wrong.push_back(r.wrong());
      view.link_us.push_back(r.ranks.empty() ? 0.0 : r.ranks.front().link_us);
    }
    std::lock_guard lock(mutex);
    views[static_cast<size_t>(comm.rank())] = std::move(view);
  });
  return views;
}

BenchOptions quick_options() {
  BenchOptions options;
  options.warmup = 1;
  options.link_test = false;
  options.max_seconds_per_size = 0.15;
  return options;
}

TEST(CollectiveStoppingDecision, EveryRankStopsWhereRankZeroDecides) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  const std::vector<std::string> names = {"jittery-ring", "ring"};
  const auto views = measure_on_threads(3, quick_options(), names, seed, 64 << 10);
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    const RankView& root = views[0];
    EXPECT_GT(root.iterations[i], 0);
    EXPECT_EQ(root.iterations[i] % 10, 0) << "whole blocks of 10 calls";
    EXPECT_TRUE(root.stop_reasons[i] == "ci" || root.stop_reasons[i] == "time") << root.stop_reasons[i];
    EXPECT_EQ(root.call_counts[i], static_cast<size_t>(root.iterations[i]));
    EXPECT_EQ(root.wrong[i], 0u);
    for (size_t rank = 1; rank < views.size(); ++rank) {
      EXPECT_EQ(views[rank].iterations[i], root.iterations[i]) << "rank " << rank;
      EXPECT_EQ(views[rank].stop_reasons[i], root.stop_reasons[i]) << "rank " << rank;
    }
  }
}

TEST(CollectiveStoppingDecision, ExactIterationsOverrideTheTimeBudget) {
  BenchOptions options = quick_options();
  options.iterations = 25;          // 10 + 10 + 5: the last block is short
  options.max_seconds_per_size = 1e-6;
  const auto views = measure_on_threads(2, options, {"jittery-ring"}, 7, 4096);
  for (const RankView& view : views) {
    EXPECT_EQ(view.iterations[0], 25);
    EXPECT_EQ(view.stop_reasons[0], "iterations");
  }
  EXPECT_EQ(views[0].call_counts[0], 25u);
}

// Turns share one buffer, which the link test and (back to back, in place) every further call
// overwrite: each algorithm's result must be checked right after its own last call from the
// inputs, also when it finishes while others go on, for the same algorithm twice (auto's pick
// beside its own row), and in place beside out of place (--place both: every second one here).
TEST(TakingTurns, EachAlgorithmKeepsItsOwnVerifiedResult) {
  for (TimingMode timing : {TimingMode::Barrier, TimingMode::BackToBack}) {
    SCOPED_TRACE(timing == TimingMode::Barrier ? "barrier" : "back-to-back");
    BenchOptions options = quick_options();
    options.max_seconds_per_size = 0.05;
    options.link_test = true;
    options.timing = timing;
    options.placement = Placement::Both;
    const std::vector<std::string> names = {"ring", "naive", "rhd", "ring"};
    const auto views = measure_on_threads(3, options, names, 11, 12 << 10);
    for (size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(views[0].wrong[i], 0u) << names[i] << " #" << i;
      EXPECT_GT(views[0].iterations[i], 0) << names[i];
      EXPECT_GT(views[0].link_us[i], 0) << names[i] << ": no link test timed between its blocks";
    }
  }
}

// The link test's shares: one exchange per call while the row's total is under the cap, then one
// per block, never none (a row of one short block still gets its bound).
TEST(LinkTestShares, OnePerCallUpToTheCapThenOnePerBlock) {
  int done = 0;
  for (int block = 0; block < 6; ++block) done += link_repetitions_before_block(done, 10);
  EXPECT_EQ(done, 60) << "a 60-call row times 60 exchanges, as many as its calls";
  for (int block = 6; block < 10; ++block) done += link_repetitions_before_block(done, 10);
  EXPECT_EQ(done, kMaxLinkRepetitions);
  EXPECT_EQ(link_repetitions_before_block(done, 10), 1) << "past the cap, one per block";
  EXPECT_EQ(link_repetitions_before_block(95, 10), 5) << "the block that reaches the cap";
  EXPECT_EQ(link_repetitions_before_block(0, 5), 5) << "-i 25's short last block";
  EXPECT_EQ(link_repetitions_before_block(0, 0), 1);
  EXPECT_EQ(link_repetitions_before_block(0, 1000), kMaxLinkRepetitions);
}

}  // namespace
}  // namespace ringbench
