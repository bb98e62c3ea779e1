// ringbench --workload ddp end to end: real mpirun, real sockets, the /workloads rows read back
// from HDF5; and a ddp run appended to a file the release of schema 4 wrote.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "results/results_file.h"
#include "run_command.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;
using testing::mpirun;
using testing::run_command;

class DdpRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ringbench-ddp-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

template <typename T>
T get(const results::TableContents& table, size_t row, std::string_view column) {
  return std::get<T>(table.rows.at(row).at(table.column(column)));
}

// Small enough for CI: 4 MiB of gradients over 4 layers, buckets of 256 KiB and 1 MiB (16 and 4
// all-reduces a step), 1 ms of compute per layer, exactly 6 steps.
const char* const kDdpArgs = " --workload ddp --grad-bytes 4M --layers 4 --bucket-bytes 256K:1M --compute-ms 1 -i 6 "
                             "--no-link-test ";

// Rows equal value for value, NaN (a value never measured) equal to itself: the same bits kept.
bool same_rows(const std::vector<results::Row>& a, const std::vector<results::Row>& b) {
  if (a.size() != b.size()) return false;
  for (size_t r = 0; r < a.size(); ++r) {
    if (a[r].size() != b[r].size()) return false;
    for (size_t c = 0; c < a[r].size(); ++c) {
      const auto* x = std::get_if<double>(&a[r][c]);
      const auto* y = std::get_if<double>(&b[r][c]);
      if (x && y && std::isnan(*x) && std::isnan(*y)) continue;
      if (a[r][c] != b[r][c]) return false;
    }
  }
  return true;
}

// The columns the measured-against-predicted script reads, and their invariants.
void expect_ddp_row(const results::TableContents& t, size_t r, int n, uint64_t bucket) {
  SCOPED_TRACE("row " + std::to_string(r));
  EXPECT_EQ(get<std::string>(t, r, "workload"), "ddp");
  EXPECT_EQ(get<std::string>(t, r, "algorithm"), "ring");
  EXPECT_EQ(get<int64_t>(t, r, "world_size"), n);
  EXPECT_FALSE(get<std::string>(t, r, "hosts").empty());
  EXPECT_EQ(get<uint64_t>(t, r, "grad_bytes"), 4u << 20);
  EXPECT_EQ(get<int64_t>(t, r, "layers"), 4);
  EXPECT_EQ(get<uint64_t>(t, r, "bucket_bytes"), bucket);
  EXPECT_EQ(get<int64_t>(t, r, "buckets"), static_cast<int64_t>((4u << 20) / bucket));
  EXPECT_EQ(get<double>(t, r, "compute_us_per_layer"), 1000.0);
  EXPECT_EQ(get<int64_t>(t, r, "steps"), 6);
  const double step = get<double>(t, r, "step_us"), compute = get<double>(t, r, "compute_us");
  EXPECT_EQ(compute, 4000.0);
  EXPECT_GE(step, compute) << "a step waits out its compute";
  EXPECT_LE(get<double>(t, r, "step_p05_us"), step);
  EXPECT_GE(get<double>(t, r, "step_p95_us"), step);
  EXPECT_FALSE(std::isnan(get<double>(t, r, "step_ci_pct"))) << "6 steps give a 95% interval";
  EXPECT_GT(get<double>(t, r, "comm_alone_us"), 0.0);
  EXPECT_DOUBLE_EQ(get<double>(t, r, "exposed_comm_us"), step - compute);
  const double overlap = get<double>(t, r, "overlap_fraction");
  EXPECT_GE(overlap, 0.0);
  EXPECT_LE(overlap, 1.0);
  EXPECT_DOUBLE_EQ(overlap, std::clamp(1 - (step - compute) / get<double>(t, r, "comm_alone_us"), 0.0, 1.0));
}

TEST_F(DdpRun, EveryBucketSizeVerifiedByteCheckedAndInWorkloads) {
  const int n = 3;
  const fs::path file = dir_ / "ddp.h5";
  auto run = run_command(mpirun(n) + RINGBENCH_EXE + kDdpArgs + "-o " + file.string(), (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("# result: all rows verified"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("6 of 6 connection ends agree with TCP_INFO"), std::string::npos) << run.out;
  // The table: one row per bucket size, each checked ok.
  int rows = 0;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') {
      ++rows;
      EXPECT_NE(line.find(" ok"), std::string::npos) << line;
    }
  EXPECT_EQ(rows, 3) << run.out;

  const auto t = results::read_table(file, "/workloads");
  ASSERT_EQ(t.rows.size(), 3u);
  const auto runs = results::read_table(file, "/runs");
  for (size_t r = 0; r < 3; ++r) {
    expect_ddp_row(t, r, n, (256u << 10) << r);
    EXPECT_EQ(get<std::string>(t, r, "run_id"), get<std::string>(runs, 0, "run_id"));
  }
  EXPECT_EQ(get<std::string>(runs, 0, "exit_status"), "ok");
}

// A file written by the release of schema 4 (tests/data/results-schema4.h5, ringbench ae3aeb0)
// takes a ddp run: its tables stay as they were, /runs gains the run, /workloads lands beside.
TEST_F(DdpRun, AppendsToAFileOfSchemaFour) {
  const fs::path file = dir_ / "schema4.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema4.h5", file);
  const auto before_runs = results::read_table(file, "/runs");
  const auto before_results = results::read_table(file, "/results");
  ASSERT_EQ(before_runs.rows.size(), 1u) << "the fixture holds one run";
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + kDdpArgs + "-o " + file.string(), (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 2u);
  EXPECT_EQ(runs.columns.size(), before_runs.columns.size()) << "schema 5 adds no /runs column";
  EXPECT_TRUE(same_rows({runs.rows[0]}, before_runs.rows)) << "the old run's /runs row changed";
  EXPECT_TRUE(same_rows(results::read_table(file, "/results").rows, before_results.rows)) << "/results changed";
  const auto t = results::read_table(file, "/workloads");
  ASSERT_EQ(t.rows.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    expect_ddp_row(t, r, 2, (256u << 10) << r);
    EXPECT_EQ(get<std::string>(t, r, "run_id"), get<std::string>(runs, 1, "run_id"));
  }
}

}  // namespace
}  // namespace ringbench
