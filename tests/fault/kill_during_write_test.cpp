// Nothing lost: real ringbench runs (2 ranks over the file bootstrap) are SIGKILLed at random
// moments, including while rank 0 commits to the HDF5 file. After every kill the file must open,
// every earlier run must be intact (its /runs row and all its /results rows), and the killed run's
// sizes that rank 0 had printed (one may be printed but not yet committed) must be in the file.

#include <gtest/gtest.h>

#include <map>
#include <random>

#include <fmt/format.h>

#include "launcher.h"
#include "results/results_file.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
using testing::Job;
using testing::table_rows;
namespace fs = std::filesystem;

std::map<std::string, size_t> rows_per_run(const results::TableContents& results) {
  std::map<std::string, size_t> count;
  for (const auto& row : results.rows) ++count[std::get<std::string>(row.at(results.column("run_id")))];
  return count;
}

TEST(KillDuringWrite, TheFileStaysReadableWithEveryEarlierRunAndTheKilledRunsSizes) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-killwrite-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "results.h5";
  const std::vector<std::string> args = {"-m", "8:64K", "-i", "5", "-x", "1", "--no-link-test", "--timeout", "5",
                                         "-o", file.string()};
  {  // One complete run first: the earlier run that must survive everything.
    Job job(2, args, dir / "run-0");
    ASSERT_TRUE(job.wait({0, 1}, 60s));
    ASSERT_EQ(job.exit_code(0), 0) << job.err(0);
  }
  auto before = rows_per_run(results::read_table(file, "/results"));
  ASSERT_EQ(before.size(), 1u);
  std::mt19937 random(std::random_device{}());
  int trials = 0, corrupted = 0, lost = 0;
  for (int t = 1; t <= 12; ++t) {
    Job job(2, args, dir / fmt::format("run-{}", t));
    // Kill at a random moment of the run (startup, sweep, commit, end).
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + random() % 1200));
    const int printed = table_rows(job.out(0));
    job.kill(0, SIGKILL);
    job.wait({0, 1}, 15s);
    ++trials;
    results::TableContents results, runs;
    try {
      results = results::read_table(file, "/results");
      runs = results::read_table(file, "/runs");
    } catch (const std::exception& e) {
      ++corrupted;
      ADD_FAILURE() << "trial " << t << ": the file does not read back: " << e.what();
      continue;
    }
    auto after = rows_per_run(results);
    for (const auto& [run, rows] : before)
      EXPECT_EQ(after[run], rows) << "trial " << t << ": earlier run " << run << " lost rows";
    // The killed run: the newest run id not seen before.
    size_t killed_rows = 0;
    for (const auto& [run, rows] : after)
      if (!before.count(run)) killed_rows = rows;
    if (static_cast<int>(killed_rows) < printed - 1) {
      ++lost;
      ADD_FAILURE() << "trial " << t << ": " << printed << " rows printed but " << killed_rows << " in the file";
    }
    EXPECT_GE(runs.rows.size(), before.size()) << "trial " << t;
    before = after;
  }
  std::printf("kill-during-write trials: %d, files corrupted: %d, completed sizes lost: %d\n", trials, corrupted, lost);
  EXPECT_EQ(corrupted, 0);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace ringbench
