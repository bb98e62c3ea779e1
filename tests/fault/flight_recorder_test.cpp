// The flight recorder (transport/flight_recorder.h) on real 4-rank jobs over the file bootstrap:
// a rank frozen or killed by --inject in collective call K, then the first survivor's diagnosis
// must name that rank, and a collective, sequence number and step that its own recorder file
// holds; every survivor writes its file beside the results. And SIGUSR1 dumps a running rank's
// recorder without disturbing the run. The seed of the random choices is printed;
// RINGBENCH_TEST_SEED=<seed> replays them; RINGBENCH_FLIGHT_TRIALS=K runs K random trials.

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include <fmt/format.h>

#include "launcher.h"
#include "tests/support/text_pattern.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testing::Job;
using testing::slurp;

constexpr int kRanks = 4;
constexpr int kTimeoutSeconds = 2;

std::vector<std::string> args(const fs::path& dir, const std::string& inject) {
  // Small sizes, many calls: call K (past the ~45 calls of the run conditions) comes in the sweep.
  std::vector<std::string> a = {"--collective", "allreduce", "--algo", "ring",          "-m",
                                "8:64K",        "--max-time", "0.5",  "--no-link-test", "--timeout",
                                std::to_string(kTimeoutSeconds), "-o", (dir / "out.h5").string()};
  if (!inject.empty()) a.insert(a.end(), {"--inject", inject});
  return a;
}

struct Trial {
  bool kill;
  int victim;
  uint64_t call;
};

// The diagnosis of one trial: checks on the first survivor's stderr and every survivor's file.
void check_diagnosis(const Job& job, const Trial& t) {
  const int first = t.victim == 0 ? 1 : 0;
  const std::string err = job.err(first);
  SCOPED_TRACE(fmt::format("{} rank {} at call {}; first survivor {}:\n{}", t.kill ? "kill" : "stall", t.victim, t.call,
                           first, err));
  EXPECT_NE(err.find(fmt::format("diagnosis by rank {}, the first survivor: rank {} failed", first, t.victim)),
            std::string::npos);
  // The survivor is stuck in a step, or (when the abort reached it after its last step but before
  // its call returned) has finished every step of its call; either way the call is named.
  const std::string last_call(fmt::format(R"(rank {}:   rank {}: (\w+) #(\d+) \((\w+)\): (stuck at step (\d+) of (\d+), )"
                                          R"((waiting for|sending) [0-9,]+ more of [0-9,]+ bytes (from|to) rank \d|)"
                                          R"(finished all (\d+) step\(s\)))",
                                          first, first));
  const auto found = testing::search(err, last_call);
  ASSERT_TRUE(found) << "no line naming the survivor's call and step";
  const std::vector<std::string>& m = *found;
  const uint64_t sequence = std::stoull(m[2]);
  const bool finished = !m[9].empty();
  // The victim strikes in call K, or in the first later call that waits (fault_injection.h); it
  // says which. A survivor may have finished that call (a barrier needs only some of the victim's
  // frames) and be waiting in the next one for the rest.
  const std::string victim_err = job.err(t.victim);
  const auto struck = testing::search(victim_err, R"(--inject \w+: .* in collective call (\d+))");
  ASSERT_TRUE(struck) << "the victim did not say where it struck:\n" << victim_err;
  const uint64_t call = std::stoull((*struck)[1]);
  EXPECT_GE(call, t.call);
  EXPECT_TRUE(sequence == call || sequence == call + 1) << "sequence " << sequence << ", victim struck in " << call;
  // The victim's last frame to this survivor came no later than the call it struck in.
  const auto frame = testing::search(err, fmt::format(R"(last frame from rank {}: \w+ #(\d+) )", t.victim));
  ASSERT_TRUE(frame) << "no 'last frame from rank " << t.victim << "' line";
  EXPECT_LE(std::stoull((*frame)[1]), call);
  // The step named is the one the survivor's own recorder file shows unfinished in that call; a
  // finished call's last step is in the file as done.
  const std::string file = slurp(job.dir() / fmt::format("out.h5.flight.{}.txt", first));
  const std::string step = finished ? fmt::format("{}/{}", m[9], m[9]) : m[5] + "/" + m[6];
  const std::string entry(fmt::format(R"(\n\s+{} {}\s+{}\s+{} .* ({})\s)", sequence, m[1], m[3], step,
                                      finished ? "done" : "failed|waiting"));
  EXPECT_TRUE(testing::contains_match(file, entry)) << "the file does not hold the diagnosed entry:\n" << file;
  for (int r = 0; r < kRanks; ++r) {
    if (r == t.victim) continue;
    EXPECT_TRUE(fs::exists(job.dir() / fmt::format("out.h5.flight.{}.txt", r))) << "rank " << r << " wrote no file";
  }
}

// Failed assertions so far in the running test, so each trial can be counted on its own.
int failures_so_far() {
  const ::testing::TestResult* result = ::testing::UnitTest::GetInstance()->current_test_info()->result();
  int failed = 0;
  for (int i = 0; i < result->total_part_count(); ++i) failed += result->GetTestPartResult(i).failed();
  return failed;
}

// The trials: four fixed shapes, stall and kill, one of each hitting rank 0 (then rank 1 speaks);
// RINGBENCH_FLIGHT_TRIALS=K draws K instead (kill or stall, any victim, every fourth rank 0).
std::vector<Trial> draw_trials(std::mt19937& random) {
  std::vector<Trial> trials;
  const char* count = std::getenv("RINGBENCH_FLIGHT_TRIALS");
  const int n = count ? std::max(1, std::atoi(count)) : 4;
  for (int i = 0; i < n; ++i) {
    const bool kill = count ? random() % 2 == 1 : i % 2 == 1;
    const bool rank_zero = count ? i % 4 == 3 : i >= 2;
    const int victim = rank_zero ? 0 : static_cast<int>(1 + random() % (kRanks - 1));
    trials.push_back({kill, victim, 60 + random() % 40});
  }
  return trials;
}

TEST(FlightRecorder, FrozenOrKilledRankIsNamedWithCollectiveSequenceAndStep) {
  const uint32_t seed = testing::test_seed("flight recorder trials");
  std::mt19937 random(seed);
  const std::vector<Trial> trials = draw_trials(random);  // about 3 s each
  int passed = 0;
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    const std::string inject =
        t.kill ? fmt::format("kill:{}@{}", t.victim, t.call) : fmt::format("stall:{}@{}:30", t.victim, t.call);
    const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-flight-{}-{}", ::getpid(), i);
    Job job(kRanks, args(dir, inject), dir);
    std::vector<int> survivors;
    for (int r = 0; r < kRanks; ++r)
      if (r != t.victim) survivors.push_back(r);
    ASSERT_TRUE(job.wait(survivors, std::chrono::seconds(60))) << inject << ": survivors still running";
    const int failures_before = failures_so_far();
    for (int r : survivors) {
      EXPECT_EQ(job.exit_code(r), t.kill ? 3 : 4) << inject << ", rank " << r << ":\n" << job.err(r);
      // Every survivor names the same rank (a scheduler acting on any of them drains one node).
      EXPECT_NE(job.err(r).find(fmt::format("rank {} failed", t.victim)), std::string::npos)
          << inject << ", rank " << r << " names another:\n" << job.err(r);
    }
    check_diagnosis(job, t);
    passed += failures_so_far() == failures_before;
    std::printf("trial %zu (%s): %s\n", i, inject.c_str(), job.err(t.victim == 0 ? 1 : 0).substr(0, 600).c_str());
    job.kill(t.victim, SIGKILL);
    job.wait({t.victim}, 5s);
    if (!::testing::Test::HasFailure()) fs::remove_all(dir);
  }
  std::printf("flight recorder trials: %d of %zu named the rank, collective, sequence and step, every survivor "
              "agreeing (seed %u)\n", passed, trials.size(), seed);
}

TEST(FlightRecorder, SigusrDumpsARunningRankAndTheRunGoesOn) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-flight-usr1-{}", ::getpid());
  Job job(kRanks, {"-m", "8:4M", "--max-time", "0.3", "--no-link-test", "--timeout", "10", "-o",
                   (dir / "out.h5").string()},
          dir);
  // Signalled once the table has begun, so the recorder holds collectives.
  const auto give_up = testing::Clock::now() + 60s;
  while (testing::table_rows(job.out(0)) < 1 && testing::Clock::now() < give_up && !job.poll({0}))
    std::this_thread::sleep_for(10ms);
  ASSERT_GE(testing::table_rows(job.out(0)), 1) << job.err(0);
  job.kill(1, SIGUSR1);
  ASSERT_TRUE(job.wait({0, 1, 2, 3}, 120s)) << "job did not finish";
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(job.exit_code(r), 0) << job.err(r);
  const std::string err = job.err(1);
  EXPECT_NE(err.find("ringbench rank 1: flight recorder (SIGUSR1), every entry in"), std::string::npos) << err;
  EXPECT_TRUE(testing::contains_match(err, R"(ringbench rank 1: rank 1: \w+ #\d+ \(\w+\))")) << err;
  const std::string file = slurp(dir / "out.h5.flight.1.txt");
  EXPECT_NE(file.find("# ringbench rank 1 flight recorder (SIGUSR1)"), std::string::npos) << file;
  EXPECT_TRUE(testing::contains_match(file, R"(\n\s+\d+ \w+\s+\w+\s+\d+/\d+ (to|from) \d)")) << file;
  EXPECT_NE(job.out(0).find("# result: all rows verified"), std::string::npos) << job.out(0);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace ringbench
