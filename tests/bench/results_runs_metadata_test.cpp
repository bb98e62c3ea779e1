// /runs carries the build, the libraries, the Slurm job and every option as its own column, and
// they read back as written (schema 3).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>

#include <filesystem>

#include "bench_options.h"
#include "results/results_file.h"
#include "results_test_support.h"
#include "run_record.h"

namespace ringbench {
namespace {

using results::testing::TempDir;

TEST(RunsMetadata, BuildLibrariesSlurmAndEveryOptionRoundTrip) {
  setenv("SLURM_JOB_ID", "4242", 1);
  setenv("SLURM_ARRAY_JOB_ID", "4200", 1);
  unsetenv("SLURM_ARRAY_TASK_ID");
  BenchOptions options;
  options.dtype = DataType::Int64;
  options.max_seconds_per_size = 0.25;
  options.iterations = 7;
  options.inputs = InputKind::Random;
  options.injects = {"kill:1@3", "slow:0:2"};
  options.transport.pipeline_bytes = 65536;
  RunRecord run = describe_run(options, "Open MPI test");
  TempDir dir;
  const auto file = dir / "r.h5";
  const results::Row row = to_row(run);
  results::commit(file, [&](results::Transaction& t) { t.append(runs_table(), {&row, 1}); });

  const results::TableContents runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 1u);
  const results::Row& back = runs.rows[0];
  auto text = [&](const char* column) { return std::get<std::string>(back[runs.column(column)]); };
  EXPECT_EQ(text("slurm_job_id"), "4242");
  EXPECT_EQ(text("slurm_array_job_id"), "4200");
  EXPECT_EQ(text("slurm_array_task_id"), "");
  EXPECT_FALSE(text("compiler").empty());
  EXPECT_FALSE(text("build_type").empty());
  EXPECT_EQ(text("hdf5_library"), results::hdf5_library_version());
  EXPECT_EQ(text("opt_dtype"), "int64");
  EXPECT_EQ(text("opt_data"), "random");
  EXPECT_EQ(text("opt_inject"), "kill:1@3,slow:0:2");
  EXPECT_EQ(std::get<double>(back[runs.column("opt_max_time_s")]), 0.25);
  EXPECT_EQ(std::get<int64_t>(back[runs.column("opt_iterations")]), 7);
  EXPECT_EQ(std::get<uint64_t>(back[runs.column("opt_pipeline_bytes")]), 65536u);
  // Every option column holds what the record held, in order, from the first one on.
  const auto first_option = back.begin() + static_cast<ptrdiff_t>(runs.column("opt_collective"));
  EXPECT_EQ(results::Row(first_option, first_option + static_cast<ptrdiff_t>(run.options.size())), run.options);
  // Schema 4's probe rates follow the options; a record without probes holds NaN.
  EXPECT_TRUE(std::isnan(std::get<double>(back[runs.column("reduce_GBps")])));
}

}  // namespace
}  // namespace ringbench
