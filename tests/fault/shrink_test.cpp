// --on-failure shrink on real jobs over the file bootstrap (no MPI): one rank killed (--inject
// kill) or frozen (--inject stall, longer than --timeout) in a random collective call of the
// sweep, at N = 4 and 5, rank 0 among the victims. Every survivor must exit 0 by itself (every row
// verified, every byte count matched) with the first survivor reporting the shrink; the results
// file must hold the /events row, rows at the old N before it and at the new N (epoch 1) after
// it, all verified, and the /runs row closed "ok" by whichever rank wrote last. A frozen victim
// wakes to find itself fenced: it exits 3, saying so. The seed is printed; RINGBENCH_TEST_SEED
// replays it. RINGBENCH_SHRINK_TRIALS=K runs K random trials instead of the four fixed shapes
// (scripts/kill-trials.sh --shrink), printing each trial's time from failure to resumed sweep.

#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "launcher.h"
#include "results/results_file.h"
#include "tests/support/text_pattern.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testing::Job;

constexpr int kTimeoutSeconds = 2;
// Past detection (--timeout, plus up to 1 s of grace) and the agreement, so the victim wakes
// declared failed, and short enough that the survivors' sweep still runs when it knocks (about 3 s
// later: its own verdict, then one agreement round).
constexpr double kStallSeconds = 4;

struct Trial {
  int ranks;
  bool kill;
  int victim;
  uint64_t call;
};

std::vector<std::string> args(const fs::path& dir, const Trial& t) {
  // Call K (past the ~45 calls of the run conditions) comes in the sweep: each size takes about
  // 2,000 calls (1,000 timed all-reduces and their barriers), 0.2-1 s. A stall's sweep is three
  // times as long: the survivors must still run some 3 s after it is declared failed, when the
  // woken victim knocks (one close grace after it wakes) and meets the fence.
  const std::string inject = t.kill ? fmt::format("kill:{}@{}", t.victim, t.call)
                                    : fmt::format("stall:{}@{}:{}", t.victim, t.call, kStallSeconds);
  return {"--collective", "allreduce", "--algo",    "ring", "-m", "8:128K", "-i", t.kill ? "1000" : "3000", "--no-link-test",
          "--timeout",    std::to_string(kTimeoutSeconds), "--on-failure", "shrink", "--inject", inject,
          "-o",           (dir / "out.h5").string()};
}

template <typename T>
T cell(const results::TableContents& table, size_t row, std::string_view column) {
  return std::get<T>(table.rows.at(row).at(table.column(column)));
}

// The results file of one trial: the event, and rows on both sides of it, all verified.
void check_results(const fs::path& file, const Trial& t) {
  const auto events = results::read_table(file, "/events");
  ASSERT_EQ(events.rows.size(), 1u);
  EXPECT_EQ(cell<std::string>(events, 0, "failed_ranks"), std::to_string(t.victim));
  EXPECT_EQ(cell<int64_t>(events, 0, "new_world_size"), t.ranks - 1);
  const auto results = results::read_table(file, "/results");
  int before = 0, after = 0;
  for (size_t r = 0; r < results.rows.size(); ++r) {
    const int64_t epoch = cell<int64_t>(results, r, "epoch");
    EXPECT_EQ(cell<int64_t>(results, r, "verified"), 1) << "row " << r;
    EXPECT_EQ(cell<int64_t>(results, r, "world_size"), epoch == 0 ? t.ranks : t.ranks - 1) << "row " << r;
    (epoch == 0 ? before : after) += 1;
  }
  EXPECT_GT(after, 0) << "no row measured after the shrink";
  const auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 1u);
  EXPECT_EQ(cell<std::string>(runs, 0, "exit_status"), "ok");
  std::printf("  results: %d row(s) at N=%d, %d at N=%d\n", before, t.ranks, after, t.ranks - 1);
}

// Runs one trial and checks it; returns seconds from the failure to the resumed sweep (the kill's
// or the stall's start as the victim's clock printed it, to the survivors' resumption).
double run_trial(const Trial& t, const fs::path& dir) {
  SCOPED_TRACE(fmt::format("N={} {} rank {} at call {}", t.ranks, t.kill ? "kill" : "stall", t.victim, t.call));
  Job job(t.ranks, args(dir, t), dir);
  std::vector<int> survivors;
  for (int r = 0; r < t.ranks; ++r)
    if (r != t.victim) survivors.push_back(r);
  const bool ended = job.wait(survivors, 120s);
  const bool victim_ended = job.wait({t.victim}, 30s);
  const int first = survivors.front();
  const std::string out = job.out(first);
  auto context = [&] {
    std::string text = fmt::format("first survivor {} stdout:\n{}\n", first, out);
    for (int r = 0; r < t.ranks; ++r) text += fmt::format("--- rank {} stderr:\n{}\n", r, job.err(r));
    return text;
  };
  EXPECT_TRUE(ended) << "a survivor hung\n" << context();
  if (!ended) return -1;
  for (int r : survivors) EXPECT_EQ(job.exit_code(r), 0) << "rank " << r << "\n" << context();
  const std::string event(fmt::format(R"(# shrink       : rank\(s\) {} failed .* go on as N={} .*\(unix ([0-9.]+)\))",
                                      t.victim, t.ranks - 1));
  const auto m = testing::search(out, event);
  EXPECT_TRUE(m) << "no shrink event\n" << context();
  EXPECT_TRUE(victim_ended) << "the victim did not exit";
  if (!t.kill) {
    EXPECT_EQ(job.exit_code(t.victim), 3) << context();
    EXPECT_NE(job.err(t.victim).find("fenced"), std::string::npos) << context();
  }
  check_results(dir / "out.h5", t);
  const auto struck = testing::search(job.err(t.victim), R"(at unix ([0-9.]+))");
  if (!m || !struck) return -1;
  return std::stod((*m)[1]) - std::stod((*struck)[1]);
}

// A kill strikes anywhere in the first half of the sweep, so rows come before and after it; a
// stall in its first sizes, so the sweep outlasts the frozen rank's wake-up and it meets the fence.
Trial random_trial(std::mt19937& random, int ranks, bool kill, int victim) {
  const uint64_t last = kill ? 14000 : 4000;
  return {ranks, kill, victim, std::uniform_int_distribution<uint64_t>(100, last)(random)};
}

TEST(Shrink, SurvivorsOfAKilledOrFrozenRankGoOnVerified) {
  const uint32_t seed = testing::test_seed("shrink trials");
  std::mt19937 random(seed);
  std::vector<Trial> trials;
  if (const char* count = std::getenv("RINGBENCH_SHRINK_TRIALS")) {
    // Random shapes; every fifth kills rank 0.
    for (int k = 0; k < std::atoi(count); ++k) {
      const int ranks = 4 + k % 2;
      const int victim = k % 5 == 0 ? 0 : std::uniform_int_distribution<int>(1, ranks - 1)(random);
      trials.push_back(random_trial(random, ranks, k % 3 != 1, victim));
    }
  } else {
    trials = {random_trial(random, 4, true, 0), random_trial(random, 4, false, 2), random_trial(random, 5, true, 3),
              random_trial(random, 5, false, 0)};
  }
  int k = 0;
  for (const Trial& t : trials) {
    const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-shrink-{}-{}", ::getpid(), k++);
    const double seconds = run_trial(t, dir);
    if (!HasFailure()) fs::remove_all(dir);  // a failed trial's files stay, for its ranks' logs
    std::printf("trial %d: N=%d %s rank %d at call %llu: failure to resumed sweep %.2f s (timeout %d s)\n", k, t.ranks,
                t.kill ? "kill" : "stall", t.victim, static_cast<unsigned long long>(t.call), seconds, kTimeoutSeconds);
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace ringbench
