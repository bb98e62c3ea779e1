// RINGBENCH_DEBUG, _SUBSYS and _FILE under the real mpirun at N = 2: one file per rank named by
// %h and %p, every line prefixed host:pid:rank, only the subsystems asked for, the interface and
// why; TRACE's per-step lines; silence by default; a bad value stops the run with exit 2.

#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run_command.h"
#include "tests/support/text_pattern.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;
using testing::mpirun;
using testing::read_file;
using testing::run_command;

// Small and quick: two sizes, two calls each, no link test.
constexpr const char* kSweep = " -m 8:1K -i 2 -x 1 --no-link-test";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

class DebugLogRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ringbench-debug-log-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "logs");
  }
  void TearDown() override { fs::remove_all(dir_); }
  // mpirun -np 2 ringbench, run in dir_/logs with `variables` ("A=1 B=2") set for every rank.
  testing::CommandResult run(const std::string& variables, const std::string& name) {
    return run_command("env -C " + (dir_ / "logs").string() + " " + variables + " " + mpirun(2) + RINGBENCH_EXE +
                           kSweep + " -o " + (dir_ / (name + ".h5")).string(),
                       (dir_ / name).string());
  }
  fs::path dir_;
};

TEST_F(DebugLogRun, InfoToPerRankFilesWithThePrefixAndOnlyTheSubsystemsAskedFor) {
  auto result = run("RINGBENCH_DEBUG=INFO RINGBENCH_DEBUG_SUBSYS=INIT,NET RINGBENCH_DEBUG_FILE=%h.%p.log", "info");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(result.err.find(" ringbench INFO "), std::string::npos) << "lines went to stderr: " << result.err;

  const std::string host = host_name();
  const std::string file_name = testing::escaped_for_pattern(host) + R"(\.(\d+)\.log)";
  const std::string line_form(R"(([^:]+):(\d+):(\d) ringbench (WARN|INFO) (INIT|NET) .+)");
  std::set<std::string> ranks;
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "logs")) {
    const std::string name = entry.path().filename().string();
    const auto named = testing::match_whole(name, file_name);
    ASSERT_TRUE(named) << name;
    ++files;
    const std::string text = read_file(entry.path().string());
    std::string rank;
    for (const std::string& line : lines_of(text)) {
      const auto found = testing::match_whole(line, line_form);
      ASSERT_TRUE(found) << name << ": " << line;
      const std::vector<std::string>& m = *found;
      EXPECT_EQ(m[1], host) << line;
      EXPECT_EQ(m[2], (*named)[1]) << "the pid in the name is the writer's: " << name << ": " << line;
      if (rank.empty()) rank = m[3];
      EXPECT_EQ(m[3], rank) << "one rank per file: " << name << ": " << line;
    }
    ranks.insert(rank);
    EXPECT_NE(text.find(" INFO INIT ringbench "), std::string::npos) << text;
    EXPECT_NE(text.find(" INFO NET interface lo (127.0.0.1): all ranks on one host, so loopback; listening on "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(" INFO NET connected to rank " + std::string(rank == "0" ? "1" : "0")), std::string::npos)
        << text;
    EXPECT_NE(text.find("TCP_NODELAY on, SO_SNDBUF "), std::string::npos) << text;
  }
  EXPECT_EQ(files, 2u);
  EXPECT_EQ(ranks, (std::set<std::string>{"0", "1"}));
}

TEST_F(DebugLogRun, TraceShowsEachStepAndTheCaretExcludesASubsystem) {
  auto result = run("RINGBENCH_DEBUG=TRACE RINGBENCH_DEBUG_SUBSYS=^NET", "trace");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(result.err.find(" NET "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(":0 ringbench INFO INIT "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(":1 ringbench INFO INIT "), std::string::npos) << result.err;
  const std::string step(
      R"(:[01] ringbench TRACE COLL \S+ \S+ call #\d+ step \d+/\d+: received \d+ B from rank [01], )");
  EXPECT_TRUE(testing::contains_match(result.err, step)) << result.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "logs")) << "no RINGBENCH_DEBUG_FILE, no file";
}

TEST_F(DebugLogRun, SilentByDefault) {
  auto result = run("", "default");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(result.err.find(" ringbench "), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("interface lo"), std::string::npos) << "the interface line is INFO now: " << result.err;
}

TEST_F(DebugLogRun, ABadValueIsOneLineAndExit2) {
  auto result = run("RINGBENCH_DEBUG=INFO RINGBENCH_DEBUG_SUBSYS=NET,DISK", "bad");
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  // mpirun adds its own banner about the exit status; ringbench's part is one line, from rank 0.
  std::vector<std::string> lines;
  for (const std::string& line : lines_of(result.err))
    if (line.starts_with("ringbench")) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_NE(lines[0].find("ringbench: error: RINGBENCH_DEBUG_SUBSYS=NET,DISK: expected a comma-separated list"),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(result.out.find("# ranks"), std::string::npos) << "nothing ran: " << result.out;
}

}  // namespace
}  // namespace ringbench
