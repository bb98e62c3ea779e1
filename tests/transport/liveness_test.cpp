// Liveness with ranks as threads: a rank that freezes is named by every other rank (not their ring
// neighbours), over one socket per peer or several (--streams); each failure carries its detector;
// and heartbeats arriving in front of data frames (a slow rank, tiny socket buffers) leave results
// and the byte counts exact.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "thread_ranks.h"
#include "transport/collectives/ring_allreduce.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;

void allreduce_ones(Communicator& comm, size_t count) {
  std::vector<float> data(count, 1.0f);
  CollectiveCall call{DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(data)), count, 0};
  ring_allreduce().run(comm, call);
  for (float v : data) ASSERT_EQ(v, static_cast<float>(comm.size()));
}

// Rank 2 of 4 freezes mid-call; every other rank names it and reports a timeout, whether its bytes
// and heartbeats travel over one socket per peer or are striped over several (--streams).
void expect_a_frozen_rank_named_by_every_other_rank(int streams, int threads = 1) {
  const int n = 4, frozen = 2, calls = 20;
  std::atomic<int> named{0}, timeouts{0};
  std::atomic<bool> froze{false};
  auto options_of = [&](int) {
    TransportOptions o = testing::quiet_options();
    o.streams = streams;
    o.threads = threads;
    o.timeout = 1s;
    // Mid-call, the first time rank 2 waits from call 5 on; a rank that never has to wait (the
    // others kept it fed) freezes on entering call 15 instead.
    o.fault_hook = [&](int rank, uint64_t sequence, bool waiting) {
      if (rank == frozen && ((sequence >= 5 && waiting) || sequence >= 15) && !froze.exchange(true))
        std::this_thread::sleep_for(4s);
    };
    return o;
  };
  testing::run_ranks(n, options_of, [&](Communicator& comm) {
    try {
      for (int i = 0; i < calls; ++i) allreduce_ones(comm, 100000);
    } catch (const TransportError& e) {
      if (comm.rank() == frozen) return;  // it wakes to find the job gone: its view does not matter
      named += e.peer_rank() == frozen && std::string(e.what()).find("rank 2 failed") != std::string::npos;
      timeouts += e.kind() == TransportErrorKind::Timeout;
      return;
    }
    ADD_FAILURE() << "rank " << comm.rank() << " finished although rank 2 froze";
  });
  EXPECT_EQ(named.load(), n - 1) << "streams " << streams;
  EXPECT_EQ(timeouts.load(), n - 1) << "streams " << streams;
}

TEST(Liveness, AFrozenRankIsNamedByEveryOtherRank) { expect_a_frozen_rank_named_by_every_other_rank(1); }

TEST(Liveness, AFrozenRankWithTwoStreamsIsNamedByEveryOtherRank) { expect_a_frozen_rank_named_by_every_other_rank(2); }

// The same with each rank's two streams driven by two threads (--threads 2, stream_helpers.h).
TEST(Liveness, AFrozenRankWithTwoStreamsAndTwoThreadsIsNamedByEveryOtherRank) {
  expect_a_frozen_rank_named_by_every_other_rank(2, 2);
}

TEST(Liveness, HeartbeatsBetweenFramesLeaveResultsAndCountsExact) {
  // Rank 1 naps before each all-reduce, so the others wait long enough to send heartbeats, which
  // then arrive in front of data frames; tiny buffers split every frame. Whether a heartbeat is
  // due is a matter of timing (on a loaded machine the waiting ranks may start their wait late),
  // so the scenario repeats, up to five rounds, until rank 1 has seen heartbeats; every round's
  // results and counts must be exact, and at least one round must have had heartbeats.
  const int n = 3, max_rounds = 5;
  std::atomic<bool> napping{true};
  auto options_of = [&](int) {
    TransportOptions o = testing::quiet_options(4096);
    o.timeout = 1000ms;  // heartbeats after 200 ms without sending
    o.fault_hook = [&napping, last = std::make_shared<uint64_t>(UINT64_MAX)](int rank, uint64_t call, bool waiting) {
      if (rank != 1 || waiting || !napping || call == *last) return;
      *last = call;  // once per call, not per step: rank 1's own silence stays well inside the timeout
      std::this_thread::sleep_for(450ms);
    };
    return o;
  };
  std::atomic<int> rounds_with_heartbeats{0};
  testing::run_ranks(n, options_of, [&](Communicator& comm) {
    for (int round = 0; round < max_rounds; ++round) {
      auto before = comm.counters();
      for (int i = 0; i < 4; ++i) allreduce_ones(comm, 3001);
      auto moved = comm.counters() - before;
      EXPECT_EQ(moved.payload_sent, 4 * ring_allreduce().payload_bytes_sent(comm.rank(), n, 3001, 4, 0));
      // Beyond the headers of the 2(N-1) frames per call it receives: heartbeats.
      double heard = comm.rank() == 1 && moved.overhead_received > 4u * 2 * (n - 1) * 32 ? 1.0 : 0.0;
      CollectiveCall agree{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(&heard, 1)), 1, 0};
      ring_allreduce().run(comm, agree);  // every rank does as many rounds as rank 1 needs
      if (heard > 0) {
        if (comm.rank() == 1) ++rounds_with_heartbeats;
        break;
      }
    }
    if (comm.rank() == 1) napping = false;
    comm.barrier();
    for (const auto& check : comm.check_kernel_counts())
      EXPECT_TRUE(check.ok()) << "rank " << comm.rank() << " peer " << check.peer_rank << ": sent " << check.ours_sent
                              << " vs kernel " << check.kernel_sent << ", received " << check.ours_received
                              << " vs kernel " << check.kernel_received;
    // Nobody leaves (Bye, then close) while a peer still reads its kernel counters, as in ringbench.
    comm.barrier();
  });
  EXPECT_EQ(rounds_with_heartbeats.load(), 1) << "no heartbeats arrived in front of data frames in " << max_rounds
                                              << " rounds";
}

}  // namespace
}  // namespace ringbench
