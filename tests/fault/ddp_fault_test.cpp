// A rank dies while the ddp workload's bucket all-reduces are in flight on the progress thread
// (docs/overlap.md): every survivor must end by itself, exit 3 and name the dead rank, as a blocking
// call's survivors do. The bucket calls are waited for last one first (the calls complete in issue
// order), so this also checks that the failure still surfaces from whichever call it struck.

#include <gtest/gtest.h>

#include <cstdio>

#include <fmt/format.h>

#include "launcher.h"
#include "tests/support/text_pattern.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;
using testing::Job;

constexpr int kRanks = 4;
constexpr int kTimeoutSeconds = 2;

std::vector<std::string> ddp_args(const fs::path& dir, int victim, int call) {
  // 4 MiB of gradients over 4 layers, 256 KiB to 1 MiB buckets: 16 to 4 bucket all-reduces a step.
  return {"--workload", "ddp", "--grad-bytes", "4M", "--layers", "4", "--bucket-bytes", "256K:1M", "--compute-ms", "1",
          "-i", "6", "--no-link-test", "--timeout", std::to_string(kTimeoutSeconds), "--inject",
          fmt::format("kill:{}@{}", victim, call), "-o", (dir / "out.h5").string()};
}

// Collective calls 60 to 140 fall in the buckets' all-reduces (the barriers between the steps are
// calls too); each survivor's message says which call it was in, and at least one must be a bucket.
TEST(DdpFault, ARankKilledDuringTheBucketsIsNamedByEverySurvivor) {
  const int victim = 2;
  int struck_a_bucket = 0;
  for (int call : {60, 100, 140}) {
    fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-ddp-fault-{}-{}", ::getpid(), call);
    Job job(kRanks, ddp_args(dir, victim, call), dir);
    const std::vector<int> survivors = {0, 1, 3};
    ASSERT_TRUE(job.wait({victim}, std::chrono::seconds(60))) << "the victim never struck at call " << call;
    const bool ended = job.wait(survivors, std::chrono::seconds(kTimeoutSeconds + 10));
    const std::string names_victim = fmt::format("ringbench: error: rank [0-9]+: rank {} failed", victim);
    bool in_a_bucket = false;
    for (int r : survivors) {
      const std::string what = fmt::format("kill:{}@{}, survivor {}:\n{}", victim, call, r, job.err(r));
      ASSERT_TRUE(ended && job.ended(r)) << "hang: " << what;
      EXPECT_EQ(job.exit_code(r), 3) << what;
      EXPECT_TRUE(testing::contains_match(job.err(r), names_victim)) << what;
      in_a_bucket |= job.err(r).find("ring allreduce step") != std::string::npos;
    }
    struck_a_bucket += in_a_bucket;
    if (!::testing::Test::HasFailure()) fs::remove_all(dir);
  }
  std::printf("ddp kills: %d of 3 struck during a bucket's all-reduce\n", struck_a_bucket);
  EXPECT_GE(struck_a_bucket, 1) << "no kill struck during a bucket's all-reduce: move the calls";
}

}  // namespace
}  // namespace ringbench
