// RINGBENCH_DEBUG, _SUBSYS and _FILE: parsing (NCCL's syntax, '^' exclusion, bad values named),
// the file name's %h and %p, and what reaches the file: the prefix, the level and subsystem
// filters, whole lines from several threads.

#include "transport/debug_log.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/text_pattern.h"
#include "transport/error.h"

namespace ringbench {
namespace {

using debug::Level;
using debug::Subsys;

uint32_t bits(std::initializer_list<Subsys> list) {
  uint32_t mask = 0;
  for (Subsys s : list) mask |= static_cast<uint32_t>(s);
  return mask;
}

// The one-line message a bad value throws, or "" when it parses.
std::string error_of(const char* level, const char* subsys) {
  try {
    debug::parse_config(level, subsys, nullptr);
  } catch (const TransportError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A fresh directory for log files, and diagnostics switched off again afterwards.
class DebugLogFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ringbench_debug_log_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    debug::configure({});
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST(DebugLog, UnsetOrEmptyIsOffWithEverySubsystem) {
  for (const char* level : {static_cast<const char*>(nullptr), ""}) {
    const debug::Config config = debug::parse_config(level, nullptr, nullptr);
    EXPECT_EQ(config.level, Level::Off);
    EXPECT_EQ(config.subsystems, debug::kAllSubsystems);
    EXPECT_TRUE(config.file_pattern.empty());
  }
  debug::configure({});
  for (Level level : {Level::Warn, Level::Info, Level::Trace}) EXPECT_FALSE(debug::enabled(level, Subsys::Init));
}

TEST(DebugLog, LevelsInAnyCase) {
  EXPECT_EQ(debug::parse_config("WARN", nullptr, nullptr).level, Level::Warn);
  EXPECT_EQ(debug::parse_config("info", nullptr, nullptr).level, Level::Info);
  EXPECT_EQ(debug::parse_config("Trace", nullptr, nullptr).level, Level::Trace);
}

TEST(DebugLog, SubsystemListsAndCaretExclusion) {
  EXPECT_EQ(debug::parse_config("INFO", "INIT,NET", nullptr).subsystems, bits({Subsys::Init, Subsys::Net}));
  EXPECT_EQ(debug::parse_config("INFO", "coll", nullptr).subsystems, bits({Subsys::Coll}));
  EXPECT_EQ(debug::parse_config("INFO", "ALL", nullptr).subsystems, debug::kAllSubsystems);
  // '^' applies to the whole list, as in NCCL_DEBUG_SUBSYS.
  EXPECT_EQ(debug::parse_config("INFO", "^COLL", nullptr).subsystems,
            bits({Subsys::Init, Subsys::Net, Subsys::Live, Subsys::Res}));
  EXPECT_EQ(debug::parse_config("INFO", "^INIT,NET", nullptr).subsystems,
            bits({Subsys::Coll, Subsys::Live, Subsys::Res}));
  EXPECT_EQ(debug::parse_config("INFO", "^ALL", nullptr).subsystems, 0u);
}

TEST(DebugLog, BadValuesNameTheVariableAndTheValue) {
  const std::string level = error_of("LOUD", nullptr);
  EXPECT_NE(level.find("RINGBENCH_DEBUG=LOUD: expected WARN, INFO or TRACE"), std::string::npos) << level;
  const std::string subsys = error_of("INFO", "NET,DISK");
  EXPECT_NE(subsys.find("RINGBENCH_DEBUG_SUBSYS=NET,DISK"), std::string::npos) << subsys;
  EXPECT_NE(subsys.find("'DISK' is none of these"), std::string::npos) << subsys;
  for (const char* bad : {"NET,", ",NET", "^", "NET^COLL", "NET COLL"})
    EXPECT_NE(error_of("INFO", bad).find(std::string("RINGBENCH_DEBUG_SUBSYS=") + bad), std::string::npos) << bad;
  for (const char* bad : {"INFO", "WARN", "TRACE"}) EXPECT_EQ(error_of(bad, "INIT"), "");
  EXPECT_EQ(error_of(" INFO", nullptr).find("RINGBENCH_DEBUG= INFO"), 0u) << error_of(" INFO", nullptr);
}

TEST(DebugLog, FileNamePatternExpandsHostAndPid) {
  EXPECT_EQ(debug::expand_file_pattern("%h.%p.log", "node7", 4242), "node7.4242.log");
  EXPECT_EQ(debug::expand_file_pattern("/tmp/rb-%p-%h", "h", 1), "/tmp/rb-1-h");
  EXPECT_EQ(debug::expand_file_pattern("100%%", "h", 1), "100%");
  EXPECT_EQ(debug::expand_file_pattern("a%xb%", "h", 1), "a%xb%");
}

TEST_F(DebugLogFile, LinesCarryThePrefixAndOnlyTheEnabledLevelsAndSubsystems) {
  debug::configure(debug::parse_config("INFO", "^COLL", (dir_ / "%h.%p.log").c_str()));
  EXPECT_TRUE(debug::enabled(Level::Warn, Subsys::Net));
  EXPECT_TRUE(debug::enabled(Level::Info, Subsys::Net));
  EXPECT_FALSE(debug::enabled(Level::Trace, Subsys::Net));
  EXPECT_FALSE(debug::enabled(Level::Info, Subsys::Coll));
  debug::info(Subsys::Net, 3, "interface {} chosen", "lo");
  debug::warn(Subsys::Live, -1, "before the rank is known");
  debug::info(Subsys::Coll, 3, "filtered out");
  debug::trace(Subsys::Net, 3, "above the level");

  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const auto path = dir_ / debug::expand_file_pattern("%h.%p.log", host, ::getpid());
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const auto lines = lines_of(path);
  const std::string prefix = std::string(host) + ":" + std::to_string(::getpid()) + ":";
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], prefix + "3 ringbench INFO NET interface lo chosen");
  EXPECT_EQ(lines[1], prefix + "? ringbench WARN LIVE before the rank is known");
}

TEST_F(DebugLogFile, OffWritesNothingAndCreatesNoFile) {
  debug::configure(debug::parse_config(nullptr, nullptr, (dir_ / "off.log").c_str()));
  debug::warn(Subsys::Init, 0, "never");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "off.log"));
}

TEST_F(DebugLogFile, AFileThatCannotBeOpenedIsNamed) {
  const std::string pattern = (dir_ / "missing" / "%p.log").string();
  try {
    debug::configure(debug::parse_config("INFO", nullptr, pattern.c_str()));
    FAIL() << "opened " << pattern;
  } catch (const TransportError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("RINGBENCH_DEBUG_FILE=" + pattern + ": cannot open "), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
}

TEST_F(DebugLogFile, ThreadsWriteWholeLines) {
  debug::configure(debug::parse_config("TRACE", nullptr, (dir_ / "threads.log").c_str()));
  constexpr int kThreads = 4, kLines = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < kLines; ++i)
        debug::trace(Subsys::Coll, t, "line {} of thread {} {}", i, t, std::string(200, 'x'));
    });
  for (auto& thread : threads) thread.join();
  const auto lines = lines_of(dir_ / "threads.log");
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kLines));
  const std::string whole(R"(.+:\d+:(\d) ringbench TRACE COLL line \d+ of thread (\d) x{200})");
  for (const auto& line : lines) {
    const auto m = testing::match_whole(line, whole);
    ASSERT_TRUE(m) << line;
    EXPECT_EQ((*m)[1], (*m)[2]) << line;
  }
}

}  // namespace
}  // namespace ringbench
