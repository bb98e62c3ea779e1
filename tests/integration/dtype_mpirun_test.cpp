// float16, bfloat16, int8, uint8 and --op avg end to end: every algorithm of every collective and
// the `mpi` rows (Open MPI's own collectives with our user ops) under the real mpirun at N = 3,
// every row verified in the table and in the HDF5 file.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "results/results_file.h"
#include "run_command.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;
using testing::mpirun;
using testing::run_command;

class DtypeRun : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ringbench-dtype-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(DtypeRun, EveryAlgorithmAndTheMpiRowsVerify) {
  const std::string args = GetParam();
  const fs::path file = dir_ / "dtype.h5";
  auto run = run_command(mpirun(3) + "--mca pml ob1 --mca btl tcp,self " + RINGBENCH_EXE +
                             " --collective all --algo all -m 8:1K -i 2 -x 1 --max-time 0.05 " + args + " -o " +
                             file.string(),
                         (dir_ / "run").string(), 240);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("# result: all rows verified"), std::string::npos) << run.out;
  const auto results = results::read_table(file, "/results");
  size_t mpi_rows = 0;
  for (size_t i = 0; i < results.rows.size(); ++i) {
    const auto& row = results.rows[i];
    const auto algorithm = std::get<std::string>(row.at(results.column("algorithm")));
    EXPECT_EQ(std::get<int64_t>(row.at(results.column("verified"))), 1) << args << " " << algorithm;
    EXPECT_NE(args.find(std::get<std::string>(row.at(results.column("dtype")))), std::string::npos) << args;
    mpi_rows += algorithm == "mpi";
  }
  EXPECT_GE(mpi_rows, 6u * 7) << "every collective's mpi rows, 8 B to 1 KiB";
}

INSTANTIATE_TEST_SUITE_P(NewTypes, DtypeRun,
                         ::testing::Values("-d bfloat16 --op avg", "-d float16 --op avg", "-d int8", "-d uint8"),
                         [](const auto& info) { return std::to_string(info.index); });

TEST(DtypeRunBadInput, AvgOnAnIntegerTypeIsOneLineAndExit2) {
  const std::string out = (fs::temp_directory_path() / ("ringbench-dtype-bad-" + std::to_string(::getpid()))).string();
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " -d int8 --op avg", out);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("--op avg: not defined on the integer type int8"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("# result"), std::string::npos) << "nothing measured";
  fs::remove(out + ".out");
  fs::remove(out + ".err");
}

}  // namespace
}  // namespace ringbench
