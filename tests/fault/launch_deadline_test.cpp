// The launch deadline (bench/ringbench/launch_watchdog.h) on real ringbench processes over the
// file bootstrap: a rank that never starts makes every other rank say what it waited for and exit
// with the timeout code within the deadline; strangers at the ranks' ports during start-up (the
// issue's case: a stranger at the launch's ports once left 3 of 3 jobs hanging with no output) are
// turned away and the job runs to a verified end.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "launcher.h"
#include "tests/transport/stranger_socket.h"
#include "transport/peer_card.h"
#include "transport/wire.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testing::Job;

constexpr int kRanks = 4;
// The launch deadline for --timeout 1: LaunchWatchdog::kMinimum (10 s).
constexpr auto kLaunchDeadline = 10s;

TEST(LaunchDeadline, ARankThatNeverStartsMakesTheOthersSayWhatTheyWaitedFor) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-launch-{}", ::getpid());
  Job job(kRanks, {"-m", "8", "--no-link-test", "--timeout", "1", "-o", (dir / "out.h5").string()}, dir,
          kRanks - 1);  // rank 3 is never started
  const auto started = testing::Clock::now();
  ASSERT_TRUE(job.wait({0, 1, 2}, kLaunchDeadline + 10s)) << "ranks still running past the launch deadline";
  for (int r = 0; r < kRanks - 1; ++r) {
    const std::string err = job.err(r);
    EXPECT_EQ(job.exit_code(r), 4) << err;
    EXPECT_NE(err.find(fmt::format("ringbench: error: rank {}: launch deadline 10 s passed while waiting for the "
                                   "address exchange",
                                   r)),
              std::string::npos)
        << err;
    // Not before the deadline.
    EXPECT_GE(job.end_time(r) - started, kLaunchDeadline - 1s) << err;
  }
  std::printf("rank 0 said: %s", job.err(0).c_str());
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

std::vector<std::byte> bytes_of(const wire::Hello& hello) {
  auto a = wire::encode(hello);
  return {a.begin(), a.end()};
}

TEST(LaunchDeadline, StrangersDuringStartUpAreTurnedAwayAndTheJobEndsVerified) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-launch-strangers-{}", ::getpid());
  Job job(kRanks, {"-m", "8:64K", "--max-time", "0.2", "--no-link-test", "--timeout", "5", "-o",
                   (dir / "out.h5").string()},
          dir, kRanks - 1);  // rank 3 starts once the strangers are in
  // Ranks 0-2 listen and have published their cards; they wait for rank 3's.
  std::vector<PeerCard> cards;
  const auto give_up = testing::Clock::now() + 30s;
  for (int r = 0; r < kRanks - 1; ++r) {
    const fs::path card = dir / "boot" / fmt::format("card.{}", r);
    while (!fs::exists(card) && testing::Clock::now() < give_up) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(fs::exists(card)) << job.err(r);
    cards.push_back(decode_card(testing::slurp(card), r));
  }
  std::vector<Fd> strangers;
  for (const auto& card : cards) {
    wire::Hello wrong;  // a handshake without the job's secret
    wrong.secret = cards[0].secret_proposal ^ 0x5a5a;
    wrong.from_rank = 3;
    wrong.to_rank = static_cast<uint32_t>(card.rank);
    wrong.world_size = kRanks;
    for (const auto& bytes : {std::vector<std::byte>{}, std::vector<std::byte>(10, std::byte{0x52}),
                              std::vector<std::byte>(100, std::byte{0x17}), bytes_of(wrong)}) {
      Fd fd;
      EXPECT_TRUE(testing::closed_within(card.port, bytes, 1s, &fd)) << "could not connect to rank " << card.rank;
      strangers.push_back(std::move(fd));
    }
  }
  job.start(kRanks - 1);
  ASSERT_TRUE(job.wait({0, 1, 2, 3}, 90s)) << "job hung with strangers at its doors:\n" << job.err(0);
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(job.exit_code(r), 0) << job.err(r);
  EXPECT_NE(job.out(0).find("# result: all rows verified"), std::string::npos) << job.out(0);
  int turned_away = 0;
  for (int r = 0; r < kRanks - 1; ++r) {
    const std::string err = job.err(r);
    for (size_t at = 0; (at = err.find("a connection from", at)) != std::string::npos; ++at) ++turned_away;
  }
  std::printf("strangers during start-up: %zu, turned away (logged): %d\n", strangers.size(), turned_away);
  EXPECT_GE(turned_away, static_cast<int>(strangers.size()) / 2) << job.err(0);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace ringbench
