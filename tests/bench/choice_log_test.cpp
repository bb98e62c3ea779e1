// The harness's INFO COLL lines (choice_log.h): what a size runs and why auto picked it, from two
// ranks as threads over loopback, written to a RINGBENCH_DEBUG_FILE-style file and read back.

#include "choice_log.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../transport/thread_ranks.h"
#include "transport/debug_log.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class ChoiceLog : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ringbench-choice-log-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    debug::configure({});
    fs::remove_all(dir_);
  }
  // Both ranks log what rank_body writes; returns the file's text.
  std::string run(const char* subsys, const std::function<void(Communicator&)>& rank_body) {
    debug::configure(debug::parse_config("INFO", subsys, (dir_ / "log").c_str()));
    testing::run_ranks(2, [](int) { return testing::quiet_options(); }, rank_body);
    return read_all(dir_ / "log");
  }
  fs::path dir_;
};

const Algorithm& algorithm(std::string_view name) { return *find_algorithm(Collective::AllReduce, name); }

TEST_F(ChoiceLog, SizePlanNamesTheAlgorithmStepsBytesAndPipelinePiece) {
  const std::string text = run("COLL", [](Communicator& comm) {
    log_size_plan(comm, algorithm("ring"), 1 << 20, 4, 0);
  });
  for (const char* rank : {":0 ", ":1 "}) {
    const std::string line = std::string(rank) +
                             "ringbench INFO COLL allreduce 1M (262144 x 4 B) runs ring: 2 step(s), this rank sends "
                             "1048576 B, receives in pipeline pieces of 256K (--pipeline)";
    EXPECT_NE(text.find(line), std::string::npos) << text;
  }
}

TEST_F(ChoiceLog, AutoPickShowsThePricesTheTrialAndThePick) {
  const std::string text = run("COLL", [](Communicator& comm) {
    const std::vector<const Algorithm*> shortlisted{&algorithm("ring"), &algorithm("rhd")};
    std::vector<std::vector<double>> calls;
    if (comm.rank() == 0) calls = {{10, 12, 11}, {20, 21}};
    const std::vector<int> one_host{0, 0};
    log_auto_pick(comm, 1 << 20, LinkModel{10e-6, 1e-9}, one_host, 4, shortlisted, calls, 0);
  });
  EXPECT_NE(text.find(":0 ringbench INFO COLL auto at allreduce 1M (262144 x 4 B): the link model (alpha 10.0 us "
                      "per step, beta 1.000 GB/s) shortlisted ring "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; trial medians ring 11.0 us over 3 calls, rhd 20.5 us over 2 calls; picked ring"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(":1 ringbench INFO COLL auto at allreduce 1M"), std::string::npos) << text;
  EXPECT_NE(text.find("; trial medians on rank 0 only; picked ring"), std::string::npos) << text;
}

TEST_F(ChoiceLog, NothingWhenCollIsExcluded) {
  const std::string text = run("^COLL", [](Communicator& comm) {
    log_size_plan(comm, algorithm("ring"), 1 << 20, 4, 0);
    log_auto_pick(comm, 1 << 20, LinkModel{10e-6, 1e-9}, std::vector<int>{0, 0}, 4, {&algorithm("ring")}, {}, 0);
  });
  EXPECT_EQ(text.find(" COLL "), std::string::npos) << text;
}

}  // namespace
}  // namespace ringbench
