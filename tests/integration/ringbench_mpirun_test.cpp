// ringbench end to end: real mpirun, real sockets, the HDF5 file read back.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <set>
#include <sstream>
#include <vector>

#include "results/results_file.h"
#include "run_command.h"
#include "tests/support/text_pattern.h"
#include "transport/algorithm.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/options.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;
using testing::mpirun;
using testing::run_command;
using testing::run_commands;

class RingbenchRun : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    // A parameterised test's name ends in "/N": flattened, so TearDown removes the whole directory.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    dir_ = fs::temp_directory_path() / ("ringbench-it-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// NaN (no link test: no efficiency) equals itself here: the same bits were written and kept.
bool same(const results::Value& a, const results::Value& b) {
  if (std::holds_alternative<double>(a) && std::holds_alternative<double>(b) && std::isnan(std::get<double>(a)))
    return std::isnan(std::get<double>(b));
  return a == b;
}

template <typename T>
T get(const results::TableContents& table, size_t row, std::string_view column) {
  return std::get<T>(table.rows.at(row).at(table.column(column)));
}

TEST_P(RingbenchRun, EveryRowVerifiedAndByteExactInTheTableAndTheFile) {
  const int n = GetParam();
  const fs::path file = dir_ / "out.h5";
  auto run = run_command(mpirun(n) + RINGBENCH_EXE + " -m 8:256K -i 5 -x 1 --dtype int32 --op sum -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("# result: all rows verified"), std::string::npos) << run.out;
  const std::string ends = std::to_string(n * (n - 1));
  EXPECT_NE(run.out.find(ends + " of " + ends + " connection ends agree with TCP_INFO"), std::string::npos)
      << "kernel cross-check: " << run.out;

  // Rows on stdout: everything that is not a '#' line, one per size 8 B .. 256 KiB.
  int table_rows = 0;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') ++table_rows;
  EXPECT_EQ(table_rows, 16);

  auto results = results::read_table(file, "/results");
  ASSERT_EQ(results.rows.size(), 16u);
  for (size_t i = 0; i < results.rows.size(); ++i) {
    const uint64_t bytes = get<uint64_t>(results, i, "bytes");
    EXPECT_EQ(bytes, 8ull << i);
    EXPECT_EQ(get<int64_t>(results, i, "world_size"), n);
    EXPECT_EQ(get<int64_t>(results, i, "verified"), 1) << bytes;
    EXPECT_EQ(get<int64_t>(results, i, "formula_ok"), 1) << bytes;
    EXPECT_EQ(get<uint64_t>(results, i, "wrong_count"), 0u);
    // The counted bytes are the formula's, which for the largest rank share is the ring's.
    uint64_t most = 0;
    for (int r = 0; r < n; ++r) most = std::max(most, ring_allreduce().payload_bytes_sent(r, n, bytes / 4, 4, 0));
    EXPECT_EQ(get<uint64_t>(results, i, "sent_max_bytes"), most) << bytes;
    EXPECT_GT(get<double>(results, i, "t_avg_us"), 0.0);
    EXPECT_LE(get<double>(results, i, "t_min_us"), get<double>(results, i, "t_max_us"));
  }
  auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 1u);
  EXPECT_EQ(get<std::string>(runs, 0, "exit_status"), "ok");
  EXPECT_EQ(get<int64_t>(runs, 0, "world_size"), n);
  EXPECT_EQ(get<std::string>(runs, 0, "run_id"), get<std::string>(results, 0, "run_id"));
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, RingbenchRun, ::testing::Values(2, 3, 4));

TEST_F(RingbenchRun, RunsAppendAndNeverTouchEarlierRuns) {
  const fs::path file = dir_ / "out.h5";
  const std::string command = mpirun(2) + RINGBENCH_EXE + " -m 8:64 -i 2 -x 0 --no-link-test -o " + file.string();
  ASSERT_EQ(run_command(command, (dir_ / "a").string()).exit_code, 0);
  auto first = results::read_table(file, "/results");
  ASSERT_EQ(run_command(command + " --dtype float64 --op max", (dir_ / "b").string()).exit_code, 0);
  auto both = results::read_table(file, "/results");
  ASSERT_EQ(both.rows.size(), first.rows.size() * 2);
  for (size_t i = 0; i < first.rows.size(); ++i)
    for (size_t c = 0; c < first.rows[i].size(); ++c)
      EXPECT_TRUE(same(both.rows[i][c], first.rows[i][c])) << "row " << i << " column " << first.columns[c].name;
  std::set<std::string> ids;
  for (const auto& row : results::read_table(file, "/runs").rows) ids.insert(std::get<std::string>(row.at(0)));
  EXPECT_EQ(ids.size(), 2u);
}

// The mpi rows name the wire Open MPI's parameters put them on; on another wire than ours their eff
// is n/a, with one warning line, in the table and in the file.
TEST_F(RingbenchRun, MpiRowsNameTheirWireAndEffIsNaOnAnotherWire) {
  struct Case {
    std::string mca, wire;
    bool same_wire;
  };
  for (const Case& c : {Case{"--mca pml ob1 --mca btl self,vader", "ob1/vader", false},
                        Case{"--mca pml ob1 --mca btl tcp,self", "ob1/tcp", true}}) {
    const fs::path file = dir_ / ("wire-" + c.wire.substr(4) + ".h5");
    auto run = run_command("mpirun -np 2 --bind-to none " + c.mca + " " + RINGBENCH_EXE +
                               " --algo mpi -m 64K:64K -i 3 -x 1 -o " + file.string(),
                           (dir_ / c.wire.substr(4)).string());
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("# mpi (" + c.wire + ") allreduce, N=2"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("# warning      : the mpi rows ran over " + c.wire) != std::string::npos, !c.same_wire)
        << run.out;
    std::string row;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && line[0] != '#') row = line;
    std::istringstream fields(row);
    std::vector<std::string> columns{std::istream_iterator<std::string>(fields), {}};
    ASSERT_EQ(columns.size(), 17u) << row;
    EXPECT_EQ(columns[15] == "n/a", !c.same_wire) << "eff column: " << row;

    auto results = results::read_table(file, "/results");
    ASSERT_EQ(results.rows.size(), 1u);
    EXPECT_EQ(get<std::string>(results, 0, "transport").rfind("mpi: " + c.wire + " (", 0), 0u);
    EXPECT_EQ(std::isnan(get<double>(results, 0, "efficiency")), !c.same_wire);
  }
}

// Both timing modes run every collective verified and byte-exact; the header and /runs say which,
// and -i is exact in both (back to back, in batches of up to 10: 25 calls are 3 samples).
TEST_F(RingbenchRun, BothTimingModesVerifyAndSayWhichTheyUsed) {
  for (const std::string mode : {"barrier", "back-to-back"}) {
    const fs::path file = dir_ / (mode + ".h5");
    auto run = run_command(mpirun(3) + RINGBENCH_EXE + " --timing " + mode +
                               " --collective all -m 1K:64K -i 25 -x 2 -f -o " + file.string(),
                           (dir_ / mode).string());
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("# timing       : " + mode + " ("), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("# result: all rows verified"), std::string::npos) << run.out;
    std::istringstream lines(run.out);
    int rows = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      ++rows;
      std::istringstream fields(line);
      std::vector<std::string> columns{std::istream_iterator<std::string>(fields), {}};
      ASSERT_GE(columns.size(), 15u) << line;
      EXPECT_EQ(columns[13], "25") << "calls: " << line;
      EXPECT_EQ(columns[14], "iterations") << "stop: " << line;
      // Fewer than 6 blocks have no interval (or "busy": other tests share the CPU under ctest -j).
      EXPECT_TRUE(columns[6] == "n/a" || columns[6] == "busy") << "+-ci: " << line;
    }
    EXPECT_EQ(rows, 6 * 7) << run.out;
    auto runs = results::read_table(file, "/runs");
    ASSERT_EQ(runs.rows.size(), 1u);
    EXPECT_EQ(get<std::string>(runs, 0, "timing_method").rfind(mode + " (", 0), 0u);
  }
  auto bad = run_command(mpirun(2) + RINGBENCH_EXE + " --timing sometimes -o " + (dir_ / "bad.h5").string(),
                         (dir_ / "bad").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--timing sometimes: expected barrier or back-to-back"), std::string::npos) << bad.err;
}

// A results file written by the previous schema (tests/data/results-schema1.h5: ringbench before
// the median columns) takes this ringbench's runs: its rows keep their values, the new columns hold
// missing values for them, and --samples' table lands beside.
TEST_F(RingbenchRun, AppendsToAFileOfThePreviousSchema) {
  const fs::path file = dir_ / "old.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema1.h5", file);
  const auto before = results::read_table(file, "/results");
  const auto before_runs = results::read_table(file, "/runs");
  ASSERT_EQ(before.columns.size(), 28u) << "the fixture is schema 1";
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " -m 8:64 -i 12 -x 1 --samples -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto after = results::read_table(file, "/results");
  ASSERT_EQ(after.rows.size(), before.rows.size() + 4);
  ASSERT_GT(after.columns.size(), before.columns.size());
  for (size_t r = 0; r < before.rows.size(); ++r) {
    for (size_t c = 0; c < before.columns.size(); ++c)
      EXPECT_TRUE(same(before.rows[r][c], after.rows[r][c])) << "row " << r << " column " << before.columns[c].name;
    EXPECT_TRUE(std::isnan(get<double>(after, r, "t_median_us")));
    EXPECT_EQ(get<int64_t>(after, r, "calls"), -1);
    EXPECT_EQ(get<int64_t>(after, r, "streams"), -1) << "schema 6's parameters are missing for the old rows";
    EXPECT_EQ(get<uint64_t>(after, r, "pipeline_bytes"), 0u);
  }
  for (size_t r = before.rows.size(); r < after.rows.size(); ++r) {
    EXPECT_GT(get<double>(after, r, "t_median_us"), 0.0);
    EXPECT_EQ(get<int64_t>(after, r, "calls"), 12);
    EXPECT_EQ(get<std::string>(after, r, "stop_reason"), "iterations");
    EXPECT_EQ(get<int64_t>(after, r, "streams"), 1);
    EXPECT_TRUE(std::isnan(get<double>(after, r, "t_ci95_low_us"))) << "2 blocks of calls give no interval";
  }
  EXPECT_EQ(results::read_table(file, "/runs").rows.size(), before_runs.rows.size() + 1);
  // --samples: each of the 4 rows' 12 calls, as the collective's time and each rank's own.
  const auto samples = results::read_table(file, "/samples");
  EXPECT_EQ(samples.rows.size(), 4u * 12 * (1 + 2));
  for (size_t i = 0; i < samples.rows.size(); ++i) EXPECT_GT(get<double>(samples, i, "time_us"), 0.0);
}

// A file written by the release of schema 3 (tests/data/results-schema3.h5, ringbench 6a6cf7d)
// takes this ringbench's run: /runs is widened by the machine probes' rates (missing for the old
// run, measured for the new), and /links lands beside, one row per size of the one link class a
// single host has.
TEST_F(RingbenchRun, AppendsToAFileOfSchemaThreeWithTheMachineProbes) {
  const fs::path file = dir_ / "schema3.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema3.h5", file);
  const auto before_runs = results::read_table(file, "/runs");
  ASSERT_EQ(before_runs.columns.size(), 57u) << "the fixture is schema 3";
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " -m 8:64 -i 12 -o " + file.string(), (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), before_runs.rows.size() + 1);
  for (size_t c = 0; c < before_runs.columns.size(); ++c)
    EXPECT_TRUE(same(before_runs.rows[0][c], runs.rows[0][c])) << "column " << before_runs.columns[c].name;
  EXPECT_TRUE(std::isnan(get<double>(runs, 0, "reduce_GBps")));
  EXPECT_GT(get<double>(runs, 1, "reduce_GBps"), 0.0);
  EXPECT_GT(get<double>(runs, 1, "copy_GBps"), 0.0);
  EXPECT_EQ(results::read_table(file, "/results").rows.size(), 8u);

  const auto links = results::read_table(file, "/links");
  ASSERT_EQ(links.rows.size(), 6u) << "one class (same host) at 64 B to 4 MiB";
  for (size_t i = 0; i < links.rows.size(); ++i) {
    EXPECT_EQ(get<std::string>(links, i, "run_id"), get<std::string>(runs, 1, "run_id"));
    EXPECT_EQ(get<std::string>(links, i, "link_class"), "same host");
    EXPECT_EQ(get<int64_t>(links, i, "rank_b"), 1);
    const double one_way_us = get<double>(links, i, "one_way_us");
    EXPECT_TRUE(std::isfinite(one_way_us) && one_way_us > 0.0) << "row " << i << ": " << one_way_us;
    if (i > 0) {
      EXPECT_GT(get<uint64_t>(links, i, "bytes"), get<uint64_t>(links, i - 1, "bytes")) << "sizes ascend";
    }
  }
  EXPECT_EQ(get<uint64_t>(links, 0, "bytes"), 64u);
  EXPECT_EQ(get<uint64_t>(links, 5, "bytes"), 4u << 20);
}

// A file written by the release of schema 5 (tests/data/results-schema5.h5, ringbench 97413f9: a
// default run at N = 3 that shrank to 2 when rank 2 was killed, then a ddp run at N = 2) takes this
// ringbench's run. /results is widened by schema 6's transport parameters: the old rows keep every
// value and read the missing ones (0 bytes, NaN us, -1 streams); the new rows hold what they ran
// with. /events and /workloads, schema 5's own tables, are left exactly as they were.
TEST_F(RingbenchRun, AppendsToAFileOfSchemaFiveWithTheTransportParameters) {
  const fs::path file = dir_ / "schema5.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema5.h5", file);
  const auto before = results::read_table(file, "/results");
  const auto before_events = results::read_table(file, "/events");
  const auto before_workloads = results::read_table(file, "/workloads");
  ASSERT_EQ(before_events.rows.size(), 1u) << "the fixture's one shrink";
  ASSERT_FALSE(before_workloads.rows.empty()) << "the fixture's ddp run";
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " -m 8:64 -i 12 --streams 2 -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto after = results::read_table(file, "/results");
  ASSERT_EQ(after.rows.size(), before.rows.size() + 4);
  ASSERT_EQ(after.columns.size(), before.columns.size() + 6) << "schemas 6 to 8 add six /results columns";
  for (size_t r = 0; r < before.rows.size(); ++r) {
    for (size_t c = 0; c < before.columns.size(); ++c)
      EXPECT_TRUE(same(before.rows[r][c], after.rows[r][c])) << "row " << r << " column " << before.columns[c].name;
    EXPECT_EQ(get<uint64_t>(after, r, "pipeline_bytes"), 0u) << r;
    EXPECT_EQ(get<uint64_t>(after, r, "write_slice_bytes"), 0u) << r;
    EXPECT_TRUE(std::isnan(get<double>(after, r, "spin_us"))) << r;
    EXPECT_EQ(get<int64_t>(after, r, "streams"), -1) << r;
    EXPECT_EQ(get<int64_t>(after, r, "threads"), -1) << r;
  }
  for (size_t r = before.rows.size(); r < after.rows.size(); ++r) {
    EXPECT_GT(get<uint64_t>(after, r, "pipeline_bytes"), 0u) << r;
    EXPECT_GT(get<uint64_t>(after, r, "write_slice_bytes"), 0u) << r;
    EXPECT_GE(get<double>(after, r, "spin_us"), 0.0) << r;
    EXPECT_EQ(get<int64_t>(after, r, "streams"), 2) << r;
    EXPECT_EQ(get<int64_t>(after, r, "threads"), 1) << r;
    EXPECT_EQ(get<int64_t>(after, r, "epoch"), 0) << r;
  }
  for (const auto& [name, old] : {std::pair{"/events", &before_events}, std::pair{"/workloads", &before_workloads}}) {
    const auto now = results::read_table(file, name);
    ASSERT_EQ(now.rows.size(), old->rows.size()) << name;
    ASSERT_EQ(now.columns.size(), old->columns.size()) << name;
    for (size_t r = 0; r < now.rows.size(); ++r)
      for (size_t c = 0; c < now.columns.size(); ++c)
        EXPECT_TRUE(same(old->rows[r][c], now.rows[r][c])) << name << " row " << r << " column " << now.columns[c].name;
  }
}

// A file written by the release of schema 6 (tests/data/results-schema6.h5, ringbench 0f1b288: ring
// and mpi rows at N = 2 with --streams 2) takes this ringbench's run with helper threads. /results
// is widened by schema 7's threads: the old rows keep every value and read -1, the new ones 2.
TEST_F(RingbenchRun, AppendsToAFileOfSchemaSixWithTheThreads) {
  const fs::path file = dir_ / "schema6.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema6.h5", file);
  const auto before = results::read_table(file, "/results");
  const auto before_runs = results::read_table(file, "/runs");
  ASSERT_FALSE(before.rows.empty());
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " --algo ring --sizes 64,1M -i 12 --streams 2 --threads 2 -o " +
                             file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto after = results::read_table(file, "/results");
  ASSERT_EQ(after.rows.size(), before.rows.size() + 2);
  ASSERT_EQ(after.columns.size(), before.columns.size() + 2) << "schemas 7 and 8 add two /results columns";
  for (size_t r = 0; r < before.rows.size(); ++r) {
    for (size_t c = 0; c < before.columns.size(); ++c)
      EXPECT_TRUE(same(before.rows[r][c], after.rows[r][c])) << "row " << r << " column " << before.columns[c].name;
    EXPECT_EQ(get<int64_t>(after, r, "threads"), -1) << r;
  }
  for (size_t r = before.rows.size(); r < after.rows.size(); ++r) {
    EXPECT_EQ(get<int64_t>(after, r, "streams"), 2) << r;
    EXPECT_EQ(get<int64_t>(after, r, "threads"), 2) << r;
    EXPECT_EQ(get<int64_t>(after, r, "verified"), 1) << r;
  }
  EXPECT_EQ(results::read_table(file, "/runs").rows.size(), before_runs.rows.size() + 1);
}

// A file written by the release of schema 7 (tests/data/results-schema7.h5, ringbench 8c3f832: tree
// and pipelined-chain rows at N = 3, 64 KiB and 1 MiB, cut in the 64 KiB segments of then) takes
// this ringbench's run of the same algorithms with a pinned segment. /results is widened by schema
// 8's segment_bytes: the old rows keep every value and read 0 (the specification's default, which
// is what they ran with); the new pipelined rows hold the segment they ran with, never more than
// their message, and the ring's rows the round it was cut in where one is smaller than the message
// (1 MiB: three rounds of 128 KiB chunks, verified; 64 KiB: one round, 0).
TEST_F(RingbenchRun, AppendsToAFileOfSchemaSevenWithTheSegment) {
  const fs::path file = dir_ / "schema7.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema7.h5", file);
  const auto before = results::read_table(file, "/results");
  ASSERT_EQ(before.rows.size(), 4u) << "the fixture's tree and chain rows";
  auto run = run_command(mpirun(3) + RINGBENCH_EXE + " --collective allreduce,broadcast --algo ring,tree,pipelined-chain " +
                             "--sizes 64K,1M -i 12 --segment 128K -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("# segment      : 128K for tree and pipelined-chain, and the ring all-reduce's rounds, at every "
                         "size (--segment)"),
            std::string::npos)
      << run.out;

  const auto after = results::read_table(file, "/results");
  ASSERT_EQ(after.rows.size(), before.rows.size() + 6);
  ASSERT_EQ(after.columns.size(), before.columns.size() + 1) << "schema 8 adds one /results column";
  for (size_t r = 0; r < before.rows.size(); ++r) {
    for (size_t c = 0; c < before.columns.size(); ++c)
      EXPECT_TRUE(same(before.rows[r][c], after.rows[r][c])) << "row " << r << " column " << before.columns[c].name;
    EXPECT_EQ(get<uint64_t>(after, r, "segment_bytes"), 0u) << r;
  }
  for (size_t r = before.rows.size(); r < after.rows.size(); ++r) {
    const std::string algorithm = get<std::string>(after, r, "algorithm");
    const uint64_t bytes = get<uint64_t>(after, r, "bytes");
    const uint64_t round = bytes > (128 << 10) ? 128 << 10 : 0;
    EXPECT_EQ(get<uint64_t>(after, r, "segment_bytes"), algorithm == "ring" ? round : std::min<uint64_t>(bytes, 128 << 10))
        << algorithm << " " << bytes;
    EXPECT_EQ(get<int64_t>(after, r, "verified"), 1) << r;
    EXPECT_EQ(get<int64_t>(after, r, "formula_ok"), 1) << r;
  }
}

// Every collective with every algorithm, the MPI library's own included, over Open MPI's TCP.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(RingbenchRun, EveryAlgorithmOfEveryCollectiveWithMpiRowsAndCrossovers) {
  const fs::path file = dir_ / "all.h5";
  auto run = run_command("mpirun -np 5 --oversubscribe --bind-to none --mca pml ob1 --mca btl tcp,self " +
                             std::string(RINGBENCH_EXE) + " --collective all --algo all -m 8:64K -i 2 -x 1 " +
                             "--max-time 0.05 -o " + file.string(),
                         (dir_ / "all").string(), 240);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  for (const char* collective : {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall"}) {
    // One section per collective, its algorithms taking turns, the mpi rows' wire in its title.
    EXPECT_NE(run.out.find(std::string("mpi (ob1/tcp), auto ") + collective + ", N=5"), std::string::npos) << collective;
    EXPECT_NE(run.out.find(std::string("# crossovers: ") + collective + " at N=5"), std::string::npos) << collective;
  }
  EXPECT_NE(run.out.find("# auto picked : 8 "), std::string::npos);
  int mpi_rows = 0, auto_rows = 0;  // rows led by their algorithm
  for (const auto& line : lines_of(run.out)) {
    mpi_rows += line.find("                 mpi ") == 0;
    auto_rows += line.find(" auto(") != std::string::npos && line[0] != '#';
  }
  EXPECT_EQ(mpi_rows, 6 * 14 - 2) << "every collective at 8 B..64 KiB, but all-to-all at 8 and 16 B (under 5 elements)";
  EXPECT_EQ(auto_rows, mpi_rows);

  auto results = results::read_table(file, "/results");
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < results.rows.size(); ++i) {
    const auto algorithm = get<std::string>(results, i, "algorithm");
    seen.insert({get<std::string>(results, i, "collective"), algorithm});
    EXPECT_EQ(get<int64_t>(results, i, "verified"), 1) << algorithm;
    if (algorithm == "mpi") {
      EXPECT_EQ(get<int64_t>(results, i, "formula_ok"), -1) << "mpi bytes are not ours to count";
      EXPECT_EQ(get<std::string>(results, i, "transport"), "mpi: ob1/tcp (pml=ob1 btl=tcp,self)");
      EXPECT_FALSE(std::isnan(get<double>(results, i, "efficiency"))) << "same wire: eff is meaningful";
    } else {
      EXPECT_EQ(get<int64_t>(results, i, "formula_ok"), 1) << algorithm;
      EXPECT_EQ(get<std::string>(results, i, "transport"), "ringbench tcp");
    }
    if (algorithm == "auto") {
      EXPECT_NE(get<std::string>(results, i, "chosen_algorithm"), "auto");
    }
  }
  for (const Algorithm* a : all_algorithms())
    EXPECT_TRUE(seen.count({std::string(to_string(a->collective())), std::string(a->name())}))
        << to_string(a->collective()) << " " << a->name();
  for (const char* collective : {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall"}) {
    EXPECT_TRUE(seen.count({collective, "mpi"})) << collective;
    EXPECT_TRUE(seen.count({collective, "auto"})) << collective;
  }
}


// nccl-tests' habits: a root, a size list, out-of-place and in-place on one row, rows as CSV or
// JSON lines with the file's column names on stdout (the '#' lines on stderr), and the footer.
TEST_F(RingbenchRun, NcclTestsStyleRootPlacementsFormatsAndFooter) {
  const fs::path file = dir_ / "out.h5";
  const std::string common = mpirun(3) + RINGBENCH_EXE +
                             " --collective reduce,allreduce --root 2 --place both --sizes 1K,3000 -i 12 -x 1 -o " +
                             file.string();
  auto csv = run_command(common + " --format csv", (dir_ / "csv").string());
  ASSERT_EQ(csv.exit_code, 0) << csv.out << csv.err;
  const auto results = results::read_table(file, "/results");
  ASSERT_EQ(results.rows.size(), 8u) << "2 collectives x 2 sizes x 2 placements";
  const auto lines = lines_of(csv.out);
  ASSERT_EQ(lines.size(), 9u) << csv.out;
  std::string names;
  for (const auto& column : results.columns) names += (names.empty() ? "" : ",") + column.name;
  EXPECT_EQ(lines[0], names);
  for (const auto& line : lines) EXPECT_NE(line.front(), '#') << line;
  EXPECT_NE(csv.err.find("# Out of bounds values : 0 OK"), std::string::npos) << csv.err;
  EXPECT_NE(csv.err.find("# Avg bus bandwidth    : "), std::string::npos) << csv.err;
  std::multiset<int64_t> placements;
  for (size_t i = 0; i < results.rows.size(); ++i) {
    placements.insert(get<int64_t>(results, i, "in_place"));
    EXPECT_EQ(get<int64_t>(results, i, "verified"), 1);
    EXPECT_EQ(get<int64_t>(results, i, "iterations"), 12);
  }
  EXPECT_EQ(placements.count(0), 4u);
  EXPECT_EQ(placements.count(1), 4u);
  const auto runs = results::read_table(file, "/runs");
  EXPECT_EQ(get<int64_t>(runs, 0, "opt_root"), 2);
  EXPECT_EQ(get<std::string>(runs, 0, "opt_place"), "both");

  auto jsonl = run_command(common + " --format jsonl", (dir_ / "jsonl").string());
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  const auto objects = lines_of(jsonl.out);
  ASSERT_EQ(objects.size(), 8u) << jsonl.out;
  for (const auto& object : objects) {
    EXPECT_EQ(object.rfind("{\"run_id\":\"", 0), 0u) << object;
    EXPECT_EQ(object.back(), '}') << object;
  }

  auto table = run_command(common, (dir_ / "table").string());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("in:time"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("# Avg bus bandwidth"), std::string::npos) << table.out;
  int rows = 0;
  for (const auto& line : lines_of(table.out))
    if (!line.empty() && line[0] != '#') {
      ++rows;
      std::istringstream fields(line);
      std::vector<std::string> field{std::istream_iterator<std::string>(fields), {}};
      ASSERT_GT(field.size(), 5u) << line;
      EXPECT_TRUE(field[4] == "2" || field[4] == "-1") << "root column: " << line;
    }
  EXPECT_EQ(rows, 4) << "one row per size and collective, both placements on it";
}

// Each row records the transport parameters it ran with, so rows run with different tuning can be
// told apart; the mpi rows, which do not run over our transport, hold the missing values.
TEST_F(RingbenchRun, RowsRecordTheTransportParametersTheyRanWith) {
  const fs::path file = dir_ / "tuning.h5";
  auto run = run_command("mpirun -np 2 --bind-to none --mca pml ob1 --mca btl tcp,self " + std::string(RINGBENCH_EXE) +
                             " --algo ring,mpi --sizes 256K -i 4 -x 1 --pipeline 64K -o " + file.string(),
                         (dir_ / "tuning").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto results = results::read_table(file, "/results");
  ASSERT_EQ(results.rows.size(), 2u);
  for (size_t i = 0; i < results.rows.size(); ++i) {
    const std::string algorithm = get<std::string>(results, i, "algorithm");
    SCOPED_TRACE(algorithm);
    if (algorithm == "mpi") {
      EXPECT_EQ(get<uint64_t>(results, i, "pipeline_bytes"), 0u);
      EXPECT_EQ(get<uint64_t>(results, i, "write_slice_bytes"), 0u);
      EXPECT_TRUE(std::isnan(get<double>(results, i, "spin_us")));
      EXPECT_EQ(get<int64_t>(results, i, "streams"), -1);
      EXPECT_EQ(get<int64_t>(results, i, "threads"), -1);
      continue;
    }
    EXPECT_EQ(get<uint64_t>(results, i, "pipeline_bytes"), 64u << 10);
    const uint64_t slice = get<uint64_t>(results, i, "write_slice_bytes");
    EXPECT_TRUE(slice == TransportOptions::kOwnCoreSlice || slice == TransportOptions::kSharedCoreSlice) << slice;
    // --spin auto and no probe (256K): slice and spin both follow whether each rank has a core.
    const bool own_core = slice == TransportOptions::kOwnCoreSlice;
    const auto spin = own_core ? TransportOptions::kOwnCoreSpin : TransportOptions::kSharedCoreSpin;
    EXPECT_EQ(get<double>(results, i, "spin_us"), static_cast<double>(spin.count())) << "--spin auto";
    EXPECT_EQ(get<int64_t>(results, i, "streams"), 1);
    EXPECT_EQ(get<int64_t>(results, i, "threads"), 1);
  }
}

// --slice auto measures the slice at start-up (slice_probe.h): the header names each candidate's
// time and the winner, and every row of ours, the link test's included, ran with that winner.
TEST_F(RingbenchRun, AutoSliceIsMeasuredAndEveryRowRunsWithTheWinner) {
  const fs::path file = dir_ / "probed.h5";
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " --algo ring,tree --sizes 64K,1M -i 4 -x 1 -o " + file.string(),
                         (dir_ / "probed").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string line(R"(# write slice  : 1M ring all-reduce with each slice, median of [345] rounds taking turns: )"
                         R"(128K [0-9.]+ ms, 512K [0-9.]+ ms, 2M [0-9.]+ ms -> ([0-9]+[KM])\n)");
  const auto match = testing::search(run.out, line);
  ASSERT_TRUE(match) << run.out;
  const std::string& slice = (*match)[1];
  const uint64_t winner = slice.back() == 'M' ? std::stoull(slice) << 20 : std::stoull(slice) << 10;
  const auto results = results::read_table(file, "/results");
  ASSERT_EQ(results.rows.size(), 4u);
  for (size_t i = 0; i < results.rows.size(); ++i)
    EXPECT_EQ(get<uint64_t>(results, i, "write_slice_bytes"), winner) << get<std::string>(results, i, "algorithm");
}

// Each parameter can be pinned from the command line, and the row says so; with --streams 2 each
// pair of ranks talks over two sockets, driven by two threads per rank (--threads 2), and the rows
// still verify and match the byte formula.
TEST_F(RingbenchRun, PinnedSliceSpinStreamsAndThreadsReachTheRows) {
  const fs::path file = dir_ / "pinned.h5";
  auto run = run_command(mpirun(3) + RINGBENCH_EXE + " --algo ring --sizes 4K,1M -i 4 -x 1 --slice 32K --spin 7 " +
                             "--streams 2 --threads 2 -o " + file.string(),
                         (dir_ / "pinned").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto results = results::read_table(file, "/results");
  ASSERT_EQ(results.rows.size(), 2u);
  for (size_t i = 0; i < results.rows.size(); ++i) {
    EXPECT_EQ(get<uint64_t>(results, i, "write_slice_bytes"), 32u << 10);
    EXPECT_EQ(get<double>(results, i, "spin_us"), 7.0);
    EXPECT_EQ(get<int64_t>(results, i, "streams"), 2);
    EXPECT_EQ(get<int64_t>(results, i, "threads"), 2);
    EXPECT_EQ(get<int64_t>(results, i, "verified"), 1);
    EXPECT_EQ(get<int64_t>(results, i, "formula_ok"), 1);
  }
}

// The CPU cost is measured for ringbench's rows and the mpi rows alike (the same bound-bytes
// denominator), so a user choosing a transport for a CPU-starved host can compare them.
TEST_F(RingbenchRun, CpuCostIsPresentForOurRowsAndTheMpiRows) {
  const fs::path file = dir_ / "out.h5";
  auto run = run_command("mpirun -np 2 --bind-to none --mca pml ob1 --mca btl tcp,self " + std::string(RINGBENCH_EXE) +
                             " -f --algo ring,mpi --sizes 1M -i 20 -x 1 -o " + file.string(),
                         (dir_ / "cpu").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("(s/GB)"), std::string::npos) << run.out;
  const auto results = results::read_table(file, "/results");
  ASSERT_EQ(results.rows.size(), 2u);
  for (size_t i = 0; i < results.rows.size(); ++i) {
    SCOPED_TRACE(get<std::string>(results, i, "algorithm"));
    EXPECT_GT(get<double>(results, i, "cpu_s_per_GB"), 0.0);
    EXPECT_GE(get<double>(results, i, "ctx_switches_per_call"), 0.0);
  }
}

// Each bad value gets one line on stderr naming the flag and the value, and exit code 2.
TEST_F(RingbenchRun, BadInputGetsOneLineNamingTheFlagAndExitCode2) {
  const fs::path file = dir_ / "out.h5";
  struct Case {
    std::string args, flag;
  } cases[] = {
      {"-m 0", "--message-size 0"},          {"-m 64:8", "--message-size 64:8"},
      {"-m 12Q", "--message-size 12Q"},      {"-m 100000G", "--message-size 100000G"},
      {"-i 0", "--iterations 0"},            {"--dtype float128", "--dtype float128"},
      {"--op xor", "--op xor"},              {"--collective allsum", "--collective allsum"},
      {"--algo warp", "--algo warp"},        {"--iface nosuchif", "--iface nosuchif"},
      {"--timeout -1", "--timeout -1"},      {"-o /nonexistent/dir/x.h5", "/nonexistent/dir"},
      {"--sizes 1K -m 8:64", "--sizes"},     {"--sizes 0", "--sizes 0"},
      {"--factor 1", "--factor 1"},          {"--root 2", "--root 2"},
      {"--place sideways", "--place sideways"}, {"--format xml", "--format xml"},
      {"--on-failure retry", "--on-failure retry"}, {"--workload ddp --on-failure shrink", "--on-failure shrink"},
      {"--workload ddp --algo mpi", "--algo mpi"}, {"--workload ddp --bucket-bytes 4M:1M", "--bucket-bytes"},
      {"--slice 100", "--slice 100"},        {"--slice 1G", "--slice 1G"},
      {"--slice sometimes", "--slice sometimes"}, {"--spin -1", "--spin -1"},
      {"--spin 200000", "--spin 200000"},    {"--spin soon", "--spin soon"},
      {"--streams 0", "--streams 0"},
      {"--streams 9", "--streams 9"},        {"--streams 2 --threads 3", "--threads 3"},
      {"--threads 0", "--threads 0"},        {"--segment 1K", "--segment 1K"},
      {"--segment 2G", "--segment 2G"},      {"--segment often", "--segment often"},
  };
  std::vector<std::string> commands;
  for (const auto& c : cases) {
    const bool sets_output = c.args.rfind("-o ", 0) == 0;
    commands.push_back(mpirun(2) + RINGBENCH_EXE + (sets_output ? "" : " -o " + file.string()) + " " + c.args);
  }
  const auto runs = run_commands(commands, (dir_ / "bad").string(), 6, 60);
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    const auto& run = runs[i];
    EXPECT_EQ(run.exit_code, 2) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find(c.flag), std::string::npos) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find("ringbench: error:"), std::string::npos) << c.args << "\n" << run.err;
  }
  EXPECT_FALSE(fs::exists(file)) << "no bad run may create the results file";
  // A file that is not HDF5 is refused and left as it was.
  { std::ofstream(file) << "not hdf5"; }
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " -o " + file.string(), (dir_ / "nothdf5").string(), 60);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("not an HDF5 file"), std::string::npos) << run.err;
  EXPECT_EQ(testing::read_file(file.string()), "not hdf5");
}

}  // namespace
}  // namespace ringbench
