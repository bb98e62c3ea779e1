// Failures from outside: a real 4-rank ringbench job over the file bootstrap (tests/fault/launcher.h),
// one rank SIGKILLed or SIGSTOPped at a random moment of a random collective. Every survivor must
// exit by itself, with exit code 3 (peer failed) for a kill or 4 (timed out) for a freeze, within
// --timeout + 5 s of the signal, and its own message must name the rank that was signalled. In every
// third round of the six collectives the ranks talk over two streams per peer driven by two threads
// (--streams 2 --threads 2).
// Then strangers of every kind connect to a running job, whose results must stay verified.
// The seed of the random choices is printed; RINGBENCH_TEST_SEED=<seed> replays them.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include <fmt/format.h>

#include "launcher.h"
#include "tests/support/text_pattern.h"
#include "tests/transport/stranger_socket.h"
#include "transport/algorithm.h"
#include "transport/fd.h"
#include "transport/peer_card.h"
#include "transport/wire.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
using testing::Clock;
namespace fs = std::filesystem;
using testing::Job;
using testing::table_rows;

constexpr int kRanks = 4;
constexpr int kTimeoutSeconds = 2;
const char* const kCollectives[] = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall"};

// Every algorithm of ours for the collective (not `all`: that includes the `mpi` baseline rows,
// which need MPI, and these jobs run without it).
std::string our_algorithms(const std::string& collective) {
  std::string names;
  for (const Algorithm* a : all_algorithms())
    if (a->collective() == *parse_collective(collective)) names += (names.empty() ? "" : ",") + std::string(a->name());
  return names;
}

std::vector<std::string> job_args(const std::string& collective, const fs::path& dir, int timeout_s, int streams) {
  // Long enough (several seconds even for a collective with one algorithm) that the signal finds
  // the run still going; a run that finishes first is not a trial, and too many of those fail.
  return {"--collective", collective, "--algo", our_algorithms(collective), "-m", "8:1M", "-x", "2", "--max-time", "0.1",
          "--no-link-test", "--timeout", std::to_string(timeout_s), "--streams", std::to_string(streams), "--threads",
          std::to_string(streams), "-o", (dir / "out.h5").string()};
}

// Waits until rank 0 has printed `rows` table rows (the collectives are running), at most `limit`.
bool wait_for_rows(Job& job, int rows, std::chrono::milliseconds limit) {
  auto give_up = Clock::now() + limit;
  while (Clock::now() < give_up) {
    if (table_rows(job.out(0)) >= rows) return true;
    if (job.poll({0})) return false;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(Fault, KillOrStopOneRankFromOutsideEverySurvivorNamesItAndExitsInTime) {
  const uint32_t seed = testing::test_seed("fault trials");
  SCOPED_TRACE(fmt::format("seed {} (replay with RINGBENCH_TEST_SEED={})", seed, seed));
  std::mt19937 random(seed);
  const int kTrials = 24;
  int trials = 0, hangs = 0, right_rank = 0, survivors_total = 0, retries = 0;
  std::vector<double> detection;
  for (int t = 0; trials < kTrials && retries < 20; ++t) {
    const std::string collective = kCollectives[t % 6];
    const bool stop = t % 2 == 1;
    const int victim = std::uniform_int_distribution<int>(0, kRanks - 1)(random);
    const int streams = (t / 6) % 3 == 1 ? 2 : 1;  // every collective, killed and stopped
    fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-fault-{}-{}", ::getpid(), t);
    Job job(kRanks, job_args(collective, dir, kTimeoutSeconds, streams), dir);
    bool running = wait_for_rows(job, 1 + static_cast<int>(random() % 3), 30s);
    if (running) std::this_thread::sleep_for(std::chrono::milliseconds(random() % 300));
    // Checked right before the signal (not before the random pause), so a run that finished in the
    // pause is not mistaken for survivors that failed to detect anything.
    job.poll({0, 1, 2, 3});
    bool any_ended = false;
    for (int r = 0; r < kRanks; ++r) any_ended |= job.ended(r);
    if (!running || any_ended) {  // finishing before the signal: not a trial
      ++retries;
      job.wait({0, 1, 2, 3}, 10s);
      for (int r = 0; r < kRanks; ++r)
        if (job.ended(r) && job.exit_code(r) != 0)  // a failure nobody caused
          ADD_FAILURE() << "unprovoked failure, rank " << r << " exit " << job.exit_code(r) << ":\n" << job.err(r);
      fs::remove_all(dir);
      continue;
    }
    ++trials;
    job.kill(victim, stop ? SIGSTOP : SIGKILL);
    const auto signalled = Clock::now();
    std::vector<int> survivors;
    for (int r = 0; r < kRanks; ++r)
      if (r != victim) survivors.push_back(r);
    const bool all_ended = job.wait(survivors, std::chrono::seconds(kTimeoutSeconds + 5));
    bool completed = all_ended;  // every survivor finished its run cleanly: the signal came too late
    for (int r : survivors) completed &= job.exit_code(r) == 0;
    if (completed) {
      --trials;
      ++retries;
      job.kill(victim, SIGKILL);
      job.kill(victim, SIGCONT);
      job.wait({victim}, 5s);
      fs::remove_all(dir);
      continue;
    }
    if (!all_ended) ++hangs;
    const std::string names_victim = fmt::format("ringbench: error: rank [0-9]+: rank {} failed", victim);
    for (int r : survivors) {
      ++survivors_total;
      const std::string err = job.err(r);
      const std::string what = fmt::format("trial {} ({} {} rank {}, {} stream(s) and thread(s)), survivor {}:\n{}", t,
                                           collective, stop ? "SIGSTOP" : "SIGKILL", victim, streams, r, err);
      ASSERT_TRUE(job.ended(r)) << "hang: " << what;
      detection.push_back(std::chrono::duration<double>(job.end_time(r) - signalled).count());
      EXPECT_EQ(job.exit_code(r), stop ? 4 : 3) << what;
      bool named = testing::contains_match(err, names_victim);
      EXPECT_TRUE(named) << what;
      right_rank += named;
    }
    job.kill(victim, SIGKILL);
    job.kill(victim, SIGCONT);
    job.wait({victim}, 5s);
    if (!::testing::Test::HasFailure()) fs::remove_all(dir);
  }
  ASSERT_GE(trials, 20) << "too many runs finished before the signal";
  std::sort(detection.begin(), detection.end());
  std::string figures = fmt::format(
      "fault trials: {} (N={}, --timeout {} s, seed {}), hangs: {}, survivors: {}, right rank named: {} of {}, "
      "detection s min/median/max: {:.2f}/{:.2f}/{:.2f}",
      trials, kRanks, kTimeoutSeconds, seed, hangs, survivors_total, right_rank, survivors_total, detection.front(),
      detection[detection.size() / 2], detection.back());
  std::printf("%s\n", figures.c_str());
  RecordProperty("figures", figures);
  EXPECT_EQ(hangs, 0);
  EXPECT_EQ(right_rank, survivors_total);
}

using testing::closed_within;

std::vector<std::byte> hello_bytes(const wire::Hello& hello) {
  auto a = wire::encode(hello);
  return {a.begin(), a.end()};
}

TEST(Fault, StrangersDuringARunAreTurnedAwayAndResultsStayVerified) {
  fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-strangers-{}", ::getpid());
  Job job(kRanks,
          {"-m", "8:4M", "-x", "2", "--max-time", "0.4", "--timeout", "10", "-o", (dir / "out.h5").string()},
          dir);
  ASSERT_TRUE(wait_for_rows(job, 1, 30s)) << job.err(0);
  std::vector<PeerCard> cards;
  for (int r = 0; r < kRanks; ++r) cards.push_back(decode_card(testing::slurp(dir / "boot" / fmt::format("card.{}", r)), r));
  const uint64_t secret = cards[0].secret_proposal;

  // Every kind of stranger at every rank at once (held open), then each must be closed in time.
  struct Stranger {
    int rank;
    std::string kind;
    Fd fd;
  };
  std::vector<Stranger> strangers;
  for (int rank = 0; rank < kRanks; ++rank) {
    const uint16_t port = cards[rank].port;
    auto add = [&](std::string kind, const std::vector<std::byte>& bytes) {
      Stranger s{rank, std::move(kind), {}};
      if (closed_within(port, bytes, 1s, &s.fd)) strangers.push_back(std::move(s));
      else ADD_FAILURE() << "could not connect to rank " << rank << " as " << s.kind;
    };
    std::vector<std::byte> garbage(100);
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<std::byte>(i * 37 + 11);
    add("garbage", garbage);
    wire::Hello h;
    h.secret = secret;
    h.from_rank = (rank + 1) % kRanks;
    h.to_rank = rank;
    h.world_size = kRanks;
    auto bad = h;
    bad.magic = 0x12345678;
    add("wrong magic", hello_bytes(bad));
    bad = h;
    bad.secret = secret ^ 0x5a5a;
    add("wrong secret", hello_bytes(bad));
    bad = h;
    bad.version = 99;
    add("wrong version", hello_bytes(bad));
    bad = h;
    bad.from_rank = 77;
    add("rank out of range", hello_bytes(bad));
    add("rank already connected (right secret)", hello_bytes(h));
    add("silent", {});
    add("half a handshake, then silence", std::vector<std::byte>(10, std::byte{0x52}));
    for (int i = 0; i < 40; ++i) add("flood", {});
  }
  int tried = static_cast<int>(strangers.size()), closed = 0;
  for (auto& s : strangers) {
    timeval tv{8, 0};
    ::setsockopt(s.fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char c[64];
    ssize_t n;
    while ((n = ::recv(s.fd.get(), c, sizeof c, 0)) > 0) {
    }
    bool ok = n == 0 || (n < 0 && errno == ECONNRESET);
    closed += ok;
    EXPECT_TRUE(ok) << "stranger (" << s.kind << ") at rank " << s.rank << " was not closed within 8 s";
  }
  ASSERT_TRUE(job.wait({0, 1, 2, 3}, 120s)) << "job did not finish";
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(job.exit_code(r), 0) << job.err(r);
    EXPECT_NE(job.err(r).find("rejected a connection from"), std::string::npos) << job.err(r);
  }
  const std::string out = job.out(0);
  EXPECT_NE(out.find("# result: all rows verified"), std::string::npos) << out;
  EXPECT_NE(out.find("12 of 12 connection ends agree with TCP_INFO"), std::string::npos) << out;
  std::printf("strangers tried: %d, closed: %d, job verified: %s\n", tried, closed,
              out.find("# result: all rows verified") != std::string::npos ? "yes" : "no");
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace ringbench
