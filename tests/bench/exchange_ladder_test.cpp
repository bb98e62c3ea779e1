// The exchange ladder (exchange_ladder.h): which chunks a run times beyond its rows' own, and the
// timing itself with thread ranks over real loopback sockets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <span>
#include <vector>

#include "exchange_ladder.h"
#include "link_test.h"
#include "../transport/thread_ranks.h"

namespace ringbench {
namespace {

constexpr uint64_t MiB = uint64_t{1} << 20;

TEST(ExchangeLadder, DoublesFromTheRowsLargestChunkUpToTheLargestSize) {
  // 4 MiB at N = 4: the rows reach 1 MiB chunks; naive sends 4 MiB.
  EXPECT_EQ(ladder_chunks(4 * MiB, 4), (std::vector<uint64_t>{2 * MiB, 4 * MiB}));
  EXPECT_EQ(ladder_chunks(4 * MiB, 2), (std::vector<uint64_t>{4 * MiB}));
  // N = 3: the rows' chunk is a third; the largest size closes the ladder whatever its ratio.
  const uint64_t third = (4 * MiB + 2) / 3;
  EXPECT_EQ(ladder_chunks(4 * MiB, 3), (std::vector<uint64_t>{2 * third, 4 * MiB}));
  EXPECT_EQ(ladder_chunks(16 * MiB, 16), (std::vector<uint64_t>{2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB}));
}

TEST(ExchangeLadder, StopsAtTheCapAndWhereTheRowsAlreadyReach) {
  EXPECT_EQ(ladder_chunks(64 * MiB, 8), (std::vector<uint64_t>{16 * MiB})) << "8 MiB rows' chunks, then the cap";
  EXPECT_EQ(ladder_chunks(64 * MiB, 4), (std::vector<uint64_t>{})) << "16 MiB rows' chunks reach the cap";
  EXPECT_EQ(ladder_chunks(1024 * MiB, 2), (std::vector<uint64_t>{}));
  EXPECT_EQ(ladder_chunks(4 * MiB, 1), (std::vector<uint64_t>{})) << "one rank exchanges nothing";
  EXPECT_EQ(ladder_chunks(0, 4), (std::vector<uint64_t>{}));
  EXPECT_EQ(ladder_chunks(3, 4), (std::vector<uint64_t>{2, 3})) << "below an element per rank it still ends at the size";
}

TEST(ExchangeLadder, EveryRankTimesEveryChunk) {
  std::mutex mutex;
  std::vector<std::vector<ExchangePoint>> points(3);
  testing::run_ranks(3, testing::quiet_options(), [&](Communicator& comm) {
    auto mine = measure_exchange_ladder(comm, 3 * MiB);
    std::lock_guard lock(mutex);
    points[static_cast<size_t>(comm.rank())] = std::move(mine);
  });
  const std::vector<uint64_t> chunks = ladder_chunks(3 * MiB, 3);
  for (size_t rank = 0; rank < points.size(); ++rank) {
    SCOPED_TRACE(rank);
    ASSERT_EQ(points[rank].size(), chunks.size());
    for (size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_EQ(points[rank][i].chunk_bytes, chunks[i]);
      EXPECT_GT(points[rank][i].chunk_us, 0);
      EXPECT_EQ(points[rank][i].calls, ladder_calls(chunks[i], 4));
    }
  }
}

TEST(ExchangeLadder, LargeChunksTakeFewerCallsDownToThreeTheSameOnEveryRank) {
  // N = 4: 6 chunks back to back. 4 MiB moves 24 MiB a call: the full ten within 256 MiB.
  EXPECT_EQ(ladder_calls(4 * MiB, 6), kLadderCalls);
  EXPECT_EQ(ladder_calls(8 * MiB, 6), 5);    // 48 MiB a call
  EXPECT_EQ(ladder_calls(16 * MiB, 6), 3);   // 96 MiB: 2.7, raised to the fewest
  EXPECT_EQ(ladder_calls(16 * MiB, 30), 3);  // N = 16
  EXPECT_EQ(ladder_calls(16 << 10, 2), kLadderCalls);
  EXPECT_EQ(ladder_calls(0, 2), kLadderCalls);
}

TEST(ReductionLadder, RunsFromTheSmallestSizesChunkToTheLargestSizeInStepsOfFour) {
  // 64 KiB to 4 MiB at N = 4: a ring reduces 16 KiB chunks of the smallest, naive the whole largest.
  EXPECT_EQ(reduction_ladder_chunks(64 << 10, 4 * MiB, 4),
            (std::vector<uint64_t>{16 << 10, 64 << 10, 256 << 10, MiB, 4 * MiB}));
  // The first chunk is the power of two at or above the smallest chunk, and never below the floor.
  EXPECT_EQ(reduction_ladder_chunks(1 << 20, 4 * MiB, 3), (std::vector<uint64_t>{512 << 10, 2 * MiB, 4 * MiB}));
  EXPECT_EQ(reduction_ladder_chunks(8, 1 * MiB, 2), (std::vector<uint64_t>{16 << 10, 64 << 10, 256 << 10, MiB}));
  // Capped like the plain ladder; whole float32s; nothing for one rank.
  EXPECT_EQ(reduction_ladder_chunks(64 << 10, 16 * MiB, 4),
            (std::vector<uint64_t>{16 << 10, 64 << 10, 256 << 10, MiB, 4 * MiB}));
  EXPECT_EQ(reduction_ladder_chunks(64 * MiB, 256 * MiB, 2), (std::vector<uint64_t>{4 * MiB}));
  EXPECT_EQ(reduction_ladder_chunks(8, 4098, 2), (std::vector<uint64_t>{4096}));
  EXPECT_EQ(reduction_ladder_chunks(64 << 10, 16 * MiB, 1), (std::vector<uint64_t>{}));
}

TEST(ReductionLadder, EveryRankTimesEachChunkPlainThenReducing) {
  std::mutex mutex;
  std::vector<std::vector<ExchangePoint>> points(3);
  testing::run_ranks(3, testing::quiet_options(), [&](Communicator& comm) {
    auto mine = measure_reduction_ladder(comm, 192 << 10, 3 * MiB);
    std::lock_guard lock(mutex);
    points[static_cast<size_t>(comm.rank())] = std::move(mine);
  });
  const std::vector<uint64_t> chunks = reduction_ladder_chunks(192 << 10, 3 * MiB, 3);
  ASSERT_EQ(chunks, (std::vector<uint64_t>{64 << 10, 256 << 10, MiB, 3 * MiB}));
  for (size_t rank = 0; rank < points.size(); ++rank) {
    SCOPED_TRACE(rank);
    ASSERT_EQ(points[rank].size(), 2 * chunks.size());
    for (size_t i = 0; i < points[rank].size(); ++i) {
      EXPECT_EQ(points[rank][i].chunk_bytes, chunks[i / 2]);
      EXPECT_EQ(points[rank][i].reduces, i % 2 == 1);
      EXPECT_GT(points[rank][i].chunk_us, 0);
      EXPECT_EQ(points[rank][i].calls, ladder_calls(chunks[i / 2], 4));
    }
  }
}

// The reducing link test sums what it receives into its slots; the plain one only moves bytes.
// Every slot starts at 1.0f: moved, it stays 1.0f; summed, the slots grow.
TEST(ReductionLadder, TheReducingExchangeSumsEachReceivedChunkIntoItsSlot) {
  constexpr int kRanks = 3;
  constexpr size_t kFloats = 4096;
  std::mutex mutex;
  std::vector<float> largest(2, 0);  // per work kind, the largest value any rank's slots hold
  testing::run_ranks(kRanks, testing::quiet_options(), [&](Communicator& comm) {
    for (const ExchangeWork work : {ExchangeWork::copy, ExchangeWork::reduce}) {
      std::vector<float> slots(kRanks * kFloats, 1.0f);
      ring_exchange_seconds(comm, kFloats * sizeof(float), 1, 2 * (kRanks - 1), std::as_writable_bytes(std::span(slots)),
                            work);
      std::lock_guard lock(mutex);
      float& top = largest[work == ExchangeWork::reduce ? 1 : 0];
      top = std::max(top, *std::max_element(slots.begin(), slots.end()));
    }
  });
  EXPECT_EQ(largest[0], 1.0f) << "the plain exchange changed its data";
  EXPECT_GE(largest[1], 3.0f) << "the reducing exchange did not sum what it received";
}

// A row times its link test in instalments (RingExchange): the median is over every instalment's
// exchanges, and the data still only moves (the slots keep their values).
TEST(RingExchange, InstalmentsAddUpToOneMedianOverAllOfThem) {
  constexpr int kRanks = 3;
  constexpr size_t kFloats = 4096;
  std::mutex mutex;
  std::vector<int> timed(kRanks, 0);
  std::vector<double> median_us(kRanks, 0);
  float largest = 0;
  testing::run_ranks(kRanks, testing::quiet_options(), [&](Communicator& comm) {
    std::vector<float> slots(kRanks * kFloats, 1.0f);
    RingExchange exchange(comm, kFloats * sizeof(float), 2 * (kRanks - 1), std::as_writable_bytes(std::span(slots)));
    const double before = exchange.median_chunk_seconds();
    exchange.time(3);
    exchange.time(1);
    exchange.time(2);
    std::lock_guard lock(mutex);
    EXPECT_EQ(before, 0.0) << "a median before any exchange";
    timed[static_cast<size_t>(comm.rank())] = exchange.timed();
    median_us[static_cast<size_t>(comm.rank())] = exchange.median_chunk_seconds() * 1e6;
    largest = std::max(largest, *std::max_element(slots.begin(), slots.end()));
  });
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_EQ(timed[static_cast<size_t>(rank)], 6) << "rank " << rank;
    EXPECT_GT(median_us[static_cast<size_t>(rank)], 0) << "rank " << rank;
  }
  EXPECT_EQ(largest, 1.0f) << "the plain exchange changed its data";
}

}  // namespace
}  // namespace ringbench
