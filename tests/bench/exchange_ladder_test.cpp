// The exchange ladder (exchange_ladder.h): which chunks a run times beyond its rows' own, and the
// timing itself with thread ranks over real loopback sockets.
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "exchange_ladder.h"
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
      EXPECT_EQ(points[rank][i].calls, kLadderCalls);
    }
  }
}

}  // namespace
}  // namespace ringbench
