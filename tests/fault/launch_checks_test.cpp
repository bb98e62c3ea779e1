// Mistakes that must stop a run before its first socket, with exit 2 and one line on rank 0:
// an --inject naming a rank the run does not have, and an output path that only looks writable
// (/proc passes access(W_OK) for root). Real ringbench ranks over the file bootstrap.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "launcher.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
using testing::Job;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-{}-{}", name, ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(LaunchChecks, InjectNamingARankBeyondTheRunIsRefusedOnEveryRank) {
  const fs::path dir = fresh_dir("inject-rank");
  Job job(2, {"-m", "8:64", "-i", "3", "--no-link-test", "--inject", "kill:9@1", "-o", (dir / "r.h5").string()},
          dir / "job");
  ASSERT_TRUE(job.wait({0, 1}, 60s));
  EXPECT_EQ(job.exit_code(0), 2) << job.err(0);
  EXPECT_EQ(job.exit_code(1), 2) << job.err(1);
  EXPECT_NE(job.err(0).find("ringbench: error: --inject kill:9@1: rank 9 does not exist in a run of 2 rank(s)"),
            std::string::npos)
      << job.err(0);
  EXPECT_EQ(job.out(0), "") << "nothing may be measured";
  EXPECT_FALSE(fs::exists(dir / "r.h5"));
  fs::remove_all(dir);
}

TEST(LaunchChecks, OutputInADirectoryThatTakesNoFilesFailsUpFront) {
  const fs::path dir = fresh_dir("output-proc");
  Job job(2, {"-m", "8:64", "-i", "3", "--no-link-test", "-o", "/proc/x.h5"}, dir / "job");
  // Under the file bootstrap rank 1 has no channel to hear of it before connecting (under MPI every
  // rank stops alike); the Job ends it.
  ASSERT_TRUE(job.wait({0}, 60s));
  EXPECT_EQ(job.exit_code(0), 2) << job.err(0);
  EXPECT_NE(job.err(0).find("ringbench: error: -o/--output: results file '/proc/x.h5' cannot be written: cannot "
                            "create a file in directory '/proc'"),
            std::string::npos)
      << job.err(0);
  EXPECT_EQ(job.out(0), "") << "nothing may be measured";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ringbench
