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

TEST_F(ChoiceLog, AutoPickShowsThePricesTheRaceAndThePick) {
  const std::string text = run("COLL", [](Communicator& comm) {
    const std::vector<const Algorithm*> candidates{&algorithm("ring"), &algorithm("rhd"), &algorithm("tree")};
    std::vector<double> prices;
    std::vector<std::vector<double>> calls(3);
    if (comm.rank() == 0) prices = {912, 1004, 2210}, calls = {{10, 12, 11}, {20, 21}, {}};
    log_auto_pick(comm, 1 << 20, 4, candidates, prices, "rank 0 prices", {0, 1}, calls, 0);
  });
  EXPECT_NE(text.find(":0 ringbench INFO COLL auto at allreduce 1M (262144 x 4 B): the model priced ring 912.0 us, "
                      "rhd 1004.0 us, tree 2210.0 us; raced ring, rhd (priced within 50% or cheap to rule out): "
                      "medians ring 11.0 us over 3 calls, rhd 20.5 us over 2 calls; picked ring"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(":1 ringbench INFO COLL auto at allreduce 1M (262144 x 4 B): no model prices (rank 0 prices); "
                      "raced ring, rhd (rank 0 prices): medians on rank 0 only; picked ring"),
            std::string::npos)
      << text;
}

TEST_F(ChoiceLog, AutoPickWithoutARaceSaysWhy) {
  const std::string text = run("COLL", [](Communicator& comm) {
    const std::vector<const Algorithm*> candidates{&algorithm("ring"), &algorithm("rhd")};
    log_auto_pick(comm, 1 << 20, 4, candidates, std::vector<double>{100, 200}, "", {1}, {}, 1);
  });
  EXPECT_NE(text.find("no race (the next is priced beyond the close ratio and the cheap-race budget); picked rhd"),
            std::string::npos)
      << text;
}

TEST_F(ChoiceLog, NothingWhenCollIsExcluded) {
  const std::string text = run("^COLL", [](Communicator& comm) {
    log_size_plan(comm, algorithm("ring"), 1 << 20, 4, 0);
    log_auto_pick(comm, 1 << 20, 4, {&algorithm("ring")}, {}, "one rank", {0}, {}, 0);
  });
  EXPECT_EQ(text.find(" COLL "), std::string::npos) << text;
}

}  // namespace
}  // namespace ringbench
