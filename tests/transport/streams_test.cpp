// Several TCP connections per peer (--streams K, stripe.h): the stripe arithmetic, and every
// algorithm over real loopback sockets with K = 1, 2, 3 and 4, one thread per rank or T = 2 and 3
// moving the streams at once (--threads, stream_helpers.h): exact results, exact payload bytes
// against the algorithm's formula, and our counts against the kernel's summed over the K sockets.
// A peer with another K is refused at set-up (a frozen peer with K = 2: liveness_test.cpp).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collective_inputs.h"
#include "thread_ranks.h"
#include "transport/algorithm.h"
#include "transport/counted_run.h"
#include "transport/in_memory_bootstrap.h"
#include "transport/stream_helpers.h"
#include "transport/stripe.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;

TEST(Stripe, BytesGoRoundRobinInStripes) {
  EXPECT_EQ(stripe_stream(0, 1), 0);
  EXPECT_EQ(stripe_stream(kStripeBytes * 5 + 3, 1), 0);
  EXPECT_EQ(stripe_stream(0, 4), 0);
  EXPECT_EQ(stripe_stream(kStripeBytes - 1, 4), 0);
  EXPECT_EQ(stripe_stream(kStripeBytes, 4), 1);
  EXPECT_EQ(stripe_stream(kStripeBytes * 3, 4), 3);
  EXPECT_EQ(stripe_stream(kStripeBytes * 4, 4), 0);
  EXPECT_EQ(stripe_stream(kStripeBytes * 7 + 100, 3), 1);
  EXPECT_EQ(stripe_left(0), kStripeBytes);
  EXPECT_EQ(stripe_left(kStripeBytes - 1), 1u);
  EXPECT_EQ(stripe_left(kStripeBytes * 9 + 10), kStripeBytes - 10);
  // Every byte of a stretch belongs to the stripe its offset names, and each socket's bytes are
  // every K-th stripe: the stretch from any offset to the end of its stripe stays on one socket.
  for (int k = 1; k <= 8; ++k)
    for (uint64_t offset : {uint64_t{0}, uint64_t{1}, kStripeBytes - 1, kStripeBytes, uint64_t{12345678}}) {
      const int s = stripe_stream(offset, k);
      EXPECT_EQ(stripe_stream(offset + stripe_left(offset) - 1, k), s);
      EXPECT_EQ(stripe_stream(offset + stripe_left(offset), k), (s + 1) % k);
    }
}

// Socket s's next byte after it carried b bytes: stripe_offset() inverts the round robin, so the
// stream's first unmoved byte is the least over the sockets whatever order they moved in.
TEST(Stripe, EachSocketsCountNamesItsNextByteInTheStream) {
  for (int k = 1; k <= 8; ++k)
    for (uint64_t offset = 0; offset < kStripeBytes * 20; offset += kStripeBytes / 3 + 7) {
      // Walk the stream to `offset` counting each socket's bytes, then check the inverse.
      std::vector<uint64_t> carried(static_cast<size_t>(k), 0);
      for (uint64_t at = 0; at < offset;) {
        const uint64_t step = std::min(stripe_left(at), offset - at);
        carried[static_cast<size_t>(stripe_stream(at, k))] += step;
        at += step;
      }
      uint64_t first_unmoved = UINT64_MAX;
      for (int s = 0; s < k; ++s) {
        const uint64_t next = stripe_offset(carried[static_cast<size_t>(s)], s, k);
        EXPECT_EQ(stripe_stream(next, k), s) << "k " << k << " offset " << offset;
        EXPECT_GE(next, offset) << "k " << k << " socket " << s;
        first_unmoved = std::min(first_unmoved, next);
      }
      EXPECT_EQ(first_unmoved, offset) << "k " << k;
    }
}

// The helpers run every job exactly once, on more than one thread when jobs outnumber one, and
// hand back the first failure after all jobs ended; the pool is reused batch after batch.
TEST(StreamHelpers, RunEveryJobOnceAndRethrowAfterAllEnded) {
  StreamHelpers helpers(3);
  EXPECT_EQ(helpers.threads(), 3);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::atomic<int>> ran(8);
    helpers.run(8, [&](int i) {
      ran[static_cast<size_t>(i)]++;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    });
    for (auto& count : ran) ASSERT_EQ(count.load(), 1) << "round " << round;
  }
  std::atomic<int> ended{0};
  EXPECT_THROW(helpers.run(6,
                           [&](int i) {
                             std::this_thread::sleep_for(std::chrono::microseconds(200));
                             ++ended;
                             if (i == 1) throw std::runtime_error("socket 1 failed");
                           }),
               std::runtime_error);
  EXPECT_EQ(ended.load(), 6) << "every job ends before the failure is handed back";
  std::set<std::thread::id> threads;
  std::mutex guard;
  for (int round = 0; round < 50 && threads.size() < 2; ++round)
    helpers.run(3, [&](int) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(guard);
      threads.insert(std::this_thread::get_id());
    });
  EXPECT_GE(threads.size(), 2u) << "the helpers took jobs";
}

struct Case {
  const Algorithm* algorithm;
  int streams;
  size_t socket_buffer_bytes;  // 4096 splits every send, so stripe boundaries fall mid-iov
  int threads = 1;             // 2 or 3: the sockets' shares move at once, out of stripe order
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::string(to_string(info.param.algorithm->collective())) + "_" +
                     std::string(info.param.algorithm->name()) + "_k" + std::to_string(info.param.streams) +
                     (info.param.threads > 1 ? "_t" + std::to_string(info.param.threads) : "") +
                     (info.param.socket_buffer_bytes ? "_tinybuf" : "");
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Algorithm* a : all_algorithms())
    for (Case c : {Case{a, 1, 0}, Case{a, 2, 0}, Case{a, 4, 0}, Case{a, 3, 4096}, Case{a, 2, 0, 2}, Case{a, 4, 4096, 3}})
      all.push_back(c);
  return all;
}

class StreamsTest : public ::testing::TestWithParam<Case> {};

// N = 3 and a count past several stripes per step: frames and pipelined reductions cross stripe
// and socket boundaries, and a receive may find a later stripe's socket ready before its own.
TEST_P(StreamsTest, EveryAlgorithmIsExactAndCountedOverKSockets) {
  const Case c = GetParam();
  const int n = 3;
  const size_t count = testing::count_for(testing::CountKind::Large, n);
  const Collective collective = c.algorithm->collective();
  TransportOptions options = testing::quiet_options(c.socket_buffer_bytes);
  options.streams = c.streams;
  options.threads = c.threads;
  testing::run_ranks(n, options, [&](Communicator& comm) {
    ASSERT_EQ(comm.streams(), c.streams);
    ASSERT_EQ(comm.stream_threads(), c.threads);
    std::vector<float> buffer(count);
    const int root = testing::rooted(collective) ? 1 : 0;
    const std::string where = "rank " + std::to_string(comm.rank());
    auto e = testing::expectation(collective, ReduceOp::Sum, n, comm.rank(), count, root);
    for (size_t i = 0; i < count; ++i) buffer[i] = static_cast<float>(e.input[i]);
    CollectiveCall call{DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(buffer)), count, root};
    CountedRun run = run_counted(comm, *c.algorithm, call);
    EXPECT_TRUE(run.bytes_ok()) << where << ": sent " << run.moved.payload_sent << ", formula " << run.expected_payload;
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i) wrong += e.result[i] && buffer[i] != static_cast<float>(*e.result[i]);
    EXPECT_EQ(wrong, 0u) << where;
    comm.barrier();
    for (const auto& check : comm.check_kernel_counts())
      EXPECT_TRUE(check.ok()) << where << " peer " << check.peer_rank << ": sent " << check.ours_sent << " vs kernel "
                              << check.kernel_sent << ", received " << check.ours_received << " vs kernel "
                              << check.kernel_received;
    comm.barrier();  // nobody leaves while a peer still reads its kernel counters
  });
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, StreamsTest, ::testing::ValuesIn(cases()), case_name);

// A rank started with another --streams is refused at set-up, by a Handshake error that says both
// counts, instead of a job that hangs or reads a stream striped differently. (Rank 1 may instead
// see rank 0 hang up, or stop listening, first: the refusal is rank 0's to report.)
TEST(Streams, APeerWithAnotherCountIsRefusedAtSetUp) {
  auto exchange = std::make_shared<InMemoryExchange>(2);
  std::string errors[2];
  TransportErrorKind kinds[2] = {TransportErrorKind::System, TransportErrorKind::System};  // until set
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      TransportOptions o = testing::quiet_options();
      o.streams = r == 1 ? 2 : 1;
      o.connect_timeout = 3s;
      try {
        InMemoryBootstrap bootstrap(exchange, r, 2);
        Communicator::connect(bootstrap, o);
        errors[r] = "set-up succeeded";
      } catch (const TransportError& e) {
        errors[r] = e.what();
        kinds[r] = e.kind();
      }
    });
  for (auto& t : ranks) t.join();
  EXPECT_EQ(kinds[0], TransportErrorKind::Handshake) << errors[0];
  EXPECT_NE(errors[0].find("runs with --streams 2, this rank with --streams 1"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1], "set-up succeeded");
}

}  // namespace
}  // namespace ringbench
