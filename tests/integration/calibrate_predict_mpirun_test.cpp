// ringbench -> topomodel calibrate -> topomodel predict on a small real run (issue 15): the machine
// file loads as a cluster, /model/calibration holds the link fit's residuals and /model/predictions
// one finite, positive prediction per row our transport measured. No error threshold is asserted:
// the error is quoted by scripts/predict-check.sh on a quiet machine, not checked here.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "results/results_file.h"
#include "run_command.h"

namespace ringbench {
namespace {

namespace fs = std::filesystem;
using testing::mpirun;
using testing::run_command;

class CalibratePredict : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ringbench-calibrate-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string topomodel(const std::string& args) { return std::string(TOPOMODEL_EXE) + " " + args; }
  fs::path dir_;
};

std::string text(const results::TableContents& t, const results::Row& row, const char* column) {
  return std::get<std::string>(row.at(t.column(column)));
}
double number(const results::TableContents& t, const results::Row& row, const char* column) {
  return std::get<double>(row.at(t.column(column)));
}
// Equal values, NaN included (a missing value stays missing).
bool same(const results::Value& a, const results::Value& b) {
  if (std::holds_alternative<double>(a) && std::holds_alternative<double>(b) && std::isnan(std::get<double>(a)))
    return std::isnan(std::get<double>(b));
  return a == b;
}

TEST_F(CalibratePredict, RingbenchThenCalibrateThenPredict) {
  const fs::path file = dir_ / "run.h5", machine = dir_ / "machine.json";
  auto run = run_command(mpirun(3) + RINGBENCH_EXE +
                             " --collective allreduce,allgather --algo default,mpi -m 4K:256K --factor 8 -x 2"
                             " --max-time 0.1 -o " + file.string(),
                         (dir_ / "run").string(), 240);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  auto calibrate = run_command(topomodel("calibrate " + file.string() + " -o " + machine.string()), (dir_ / "cal").string());
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.out << calibrate.err;
  EXPECT_NE(calibrate.out.find("# same host"), std::string::npos) << calibrate.out;
  // The default fit is auto's two segments: no per-piece overhead.
  EXPECT_NE(calibrate.out.find("two-segment link fit"), std::string::npos) << calibrate.out;
  EXPECT_NE(calibrate.out.find("overhead 0.00 us per piece"), std::string::npos) << calibrate.out;
  const auto calibration = results::read_table(file, "/model/calibration");
  EXPECT_EQ(calibration.rows.size(), 6u) << "one class, six link-test sizes";
  for (const auto& row : calibration.rows) EXPECT_TRUE(std::isfinite(number(calibration, row, "residual")));
  // Every row's ring send/receive gave the copy rate while all ranks exchange, one per chunk size,
  // and the exchange ladder the sizes beyond the rows' chunks (256 KiB / 3): up to the whole 256 KiB.
  EXPECT_NE(calibrate.out.find("# exchange      : one core's copy rate"), std::string::npos) << calibrate.out;
  // The all-reduce also had the reducing link test beside the plain one, from the smallest size's
  // chunk (4 KiB / 3, below the 16 KiB floor) to the largest size, in steps of 4x.
  const auto ladder = results::read_table(file, "/exchanges");
  const std::vector<std::pair<uint64_t, int64_t>> expected = {
      {174764, 0}, {256 << 10, 0}, {16 << 10, 0}, {16 << 10, 1}, {64 << 10, 0}, {64 << 10, 1}, {256 << 10, 0}, {256 << 10, 1}};
  ASSERT_EQ(ladder.rows.size(), expected.size()) << "2 x 87382 B and 256 KiB, then 16, 64 and 256 KiB plain and reducing";
  for (size_t r = 0; r < expected.size(); ++r) {
    EXPECT_EQ(std::get<uint64_t>(ladder.rows[r].at(ladder.column("chunk_bytes"))), expected[r].first) << "row " << r;
    EXPECT_EQ(std::get<int64_t>(ladder.rows[r].at(ladder.column("reduces"))), expected[r].second) << "row " << r;
  }
  EXPECT_NE(calibrate.out.find(" at 262144"), std::string::npos) << "the curve reaches the ladder's top\n" << calibrate.out;
  EXPECT_NE(calibrate.out.find("# reduction     : one core's reduction rate"), std::string::npos) << calibrate.out;
  std::ifstream machine_file(machine);
  const std::string machine_text((std::istreambuf_iterator<char>(machine_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(machine_text.find("\"exchange_copy_rates\""), std::string::npos) << machine_text;
  EXPECT_NE(machine_text.find("\"exchange_reduce_rates\""), std::string::npos) << machine_text;

  // The machine is a cluster file like any other.
  auto load = run_command(topomodel("clusters --cluster " + machine.string()), (dir_ / "load").string());
  EXPECT_EQ(load.exit_code, 0) << load.out << load.err;

  auto predict = run_command(topomodel("predict " + file.string() + " --machine " + machine.string()), (dir_ / "pr").string());
  ASSERT_EQ(predict.exit_code, 0) << predict.out << predict.err;
  EXPECT_NE(predict.out.find("by algorithm and size range"), std::string::npos) << predict.out;

  const auto measured = results::read_table(file, "/results");
  size_t ours = 0;
  for (const auto& row : measured.rows) ours += text(measured, row, "algorithm") != "mpi";
  const auto predictions = results::read_table(file, "/model/predictions");
  ASSERT_EQ(predictions.rows.size(), ours) << "one prediction per row of our transport, none for mpi";
  for (const auto& row : predictions.rows) {
    EXPECT_NE(text(predictions, row, "algorithm"), "mpi");
    EXPECT_EQ(std::get<int64_t>(row.at(predictions.column("world_size"))), 3);
    for (const char* column : {"measured_us", "predicted_us"}) {
      const double v = number(predictions, row, column);
      EXPECT_TRUE(std::isfinite(v) && v > 0) << column << " = " << v;
    }
    EXPECT_TRUE(std::isfinite(number(predictions, row, "error")));
  }

  // Without --machine it calibrates on the run's own link test, and predicts the same rows again.
  auto on_the_fly = run_command(topomodel("predict " + file.string()), (dir_ / "pr2").string());
  ASSERT_EQ(on_the_fly.exit_code, 0) << on_the_fly.out << on_the_fly.err;
  EXPECT_EQ(results::read_table(file, "/model/predictions").rows.size(), 2 * ours);

  // --row-link predicts the same rows at each row's own link speed.
  auto row_link = run_command(topomodel("predict --row-link " + file.string()), (dir_ / "pr3").string());
  ASSERT_EQ(row_link.exit_code, 0) << row_link.out << row_link.err;
  EXPECT_EQ(results::read_table(file, "/model/predictions").rows.size(), 3 * ours);

  // --link-fit least-squares fits the three terms instead, and predicts the same rows once more.
  auto least_squares = run_command(topomodel("predict --link-fit least-squares " + file.string()), (dir_ / "pr4").string());
  ASSERT_EQ(least_squares.exit_code, 0) << least_squares.out << least_squares.err;
  EXPECT_NE(least_squares.out.find("least-squares link fit"), std::string::npos) << least_squares.out;
  EXPECT_EQ(results::read_table(file, "/model/predictions").rows.size(), 4 * ours);

  // --ignore-skew prices every rank entering together (the default enters them the run's barrier
  // skew apart: model/plan_cost.h), and predicts the same rows once more.
  auto together = run_command(topomodel("predict --ignore-skew " + file.string()), (dir_ / "pr5").string());
  ASSERT_EQ(together.exit_code, 0) << together.out << together.err;
  EXPECT_EQ(results::read_table(file, "/model/predictions").rows.size(), 5 * ours);
}

// A one-host run's ranks enter each call its barrier skew apart (model/plan_cost.h): a chain
// broadcast at N = 3 is priced faster than with its ranks together (the root's first segments wait
// for a late middle rank, which pays no latency for them), never slower, while the run measured a
// skew at all. Three ranks on this machine's cores: the skew is tens of microseconds.
TEST_F(CalibratePredict, AOneHostRunsRanksEnterItsBarrierSkewApart) {
  const fs::path file = dir_ / "broadcast.h5";
  auto run = run_command(mpirun(3) + RINGBENCH_EXE + " --collective broadcast -m 64K:256K --factor 4 --max-time 0.1 -o " +
                             file.string(),
                         (dir_ / "run").string(), 240);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 1u);
  const double skew = number(runs, runs.rows[0], "barrier_skew_us");
  if (!(skew > 0)) GTEST_SKIP() << "the run measured no barrier skew (" << skew << " us): nothing to price";
  auto skewed = run_command(topomodel("predict " + file.string()), (dir_ / "p1").string());
  ASSERT_EQ(skewed.exit_code, 0) << skewed.out << skewed.err;
  auto together = run_command(topomodel("predict --ignore-skew " + file.string()), (dir_ / "p2").string());
  ASSERT_EQ(together.exit_code, 0) << together.out << together.err;
  const auto predictions = results::read_table(file, "/model/predictions");
  ASSERT_EQ(predictions.rows.size(), 4u) << "64 KiB and 256 KiB, priced both ways";
  for (size_t r = 0; r < 2; ++r) {
    const double with_skew = number(predictions, predictions.rows[r], "predicted_us");
    const double without = number(predictions, predictions.rows[r + 2], "predicted_us");
    EXPECT_LT(with_skew, without) << "row " << r << ", skew " << skew << " us";
  }
}

// A file written by the release of schema 8 (tests/data/results-schema8.h5, ringbench 0fa0c54: ring
// and naive at N = 2, 64 KiB and 1 MiB) takes this ringbench's run, which adds /exchanges with the
// new run's ladder only. Both runs calibrate: the old one on its rows' exchanges alone, the new one
// with the ladder's 1 MiB chunk beyond its rows' 512 KiB.
TEST_F(CalibratePredict, AppendsToAFileOfSchemaEightWithTheExchangeLadder) {
  const fs::path file = dir_ / "schema8.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema8.h5", file);
  const auto before = results::read_table(file, "/results");
  const auto runs_before = results::read_table(file, "/runs");
  ASSERT_EQ(runs_before.rows.size(), 1u);
  const std::string old_run = text(runs_before, runs_before.rows[0], "run_id");
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " --algo ring,naive --sizes 64K,1M -i 12 -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto after = results::read_table(file, "/results");
  ASSERT_EQ(after.rows.size(), before.rows.size() + 4);
  ASSERT_EQ(after.columns.size(), before.columns.size()) << "schema 9 adds a table, no /results column";
  for (size_t r = 0; r < before.rows.size(); ++r)
    for (size_t c = 0; c < before.columns.size(); ++c)
      EXPECT_TRUE(same(before.rows[r][c], after.rows[r][c])) << "row " << r << " column " << before.columns[c].name;
  const auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 2u);
  const std::string new_run = text(runs, runs.rows[1], "run_id");
  const auto ladder = results::read_table(file, "/exchanges");
  ASSERT_EQ(ladder.rows.size(), 1u + 2 * 4) << "the new run's one chunk beyond its rows', then its reduction ladder "
                                               "(32 KiB, 128 KiB, 512 KiB, 1 MiB, plain and reducing)";
  for (const auto& row : ladder.rows) {
    EXPECT_EQ(text(ladder, row, "run_id"), new_run);
    EXPECT_GT(number(ladder, row, "chunk_us"), 0);
  }
  EXPECT_EQ(std::get<uint64_t>(ladder.rows[0].at(ladder.column("chunk_bytes"))), 1u << 20);

  auto old_calibration = run_command(topomodel("calibrate " + file.string() + " --run " + old_run + " -o " + (dir_ / "old.json").string()), (dir_ / "c1").string());
  ASSERT_EQ(old_calibration.exit_code, 0) << old_calibration.out << old_calibration.err;
  EXPECT_NE(old_calibration.out.find(" at 524288"), std::string::npos) << old_calibration.out;
  EXPECT_EQ(old_calibration.out.find(" at 1048576"), std::string::npos) << "no ladder before schema 9\n" << old_calibration.out;
  EXPECT_NE(old_calibration.out.find("no reducing link test"), std::string::npos) << old_calibration.out;
  auto new_calibration = run_command(topomodel("calibrate " + file.string() + " --run " + new_run + " -o " + (dir_ / "new.json").string()), (dir_ / "c2").string());
  ASSERT_EQ(new_calibration.exit_code, 0) << new_calibration.out << new_calibration.err;
  EXPECT_NE(new_calibration.out.find(" at 1048576"), std::string::npos) << new_calibration.out;
}

// A file written by the release of schema 9 (tests/data/results-schema9.h5, ringbench ed3c39e: ring
// and naive all-reduce at N = 2, 64 KiB and 1 MiB, and its exchange ladder's one 1 MiB chunk) takes
// this ringbench's run: /exchanges widens with `reduces` (the old row reads -1, missing, and is
// read as plain) and gains the new run's ladder and its reduction ladder. The old run calibrates
// without a reduction curve, the new one with.
TEST_F(CalibratePredict, AppendsToAFileOfSchemaNineWithTheReductionLadder) {
  const fs::path file = dir_ / "schema9.h5";
  fs::copy_file(fs::path(RINGBENCH_SOURCE_DIR) / "tests/data/results-schema9.h5", file);
  const auto before = results::read_table(file, "/exchanges");
  ASSERT_EQ(before.rows.size(), 1u);
  ASSERT_EQ(before.columns.size(), 4u) << "run_id, chunk_bytes, chunk_us, calls";
  const std::string old_run = text(before, before.rows[0], "run_id");
  auto run = run_command(mpirun(2) + RINGBENCH_EXE + " --algo ring,naive --sizes 64K,1M -i 12 -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto after = results::read_table(file, "/exchanges");
  ASSERT_EQ(after.columns.size(), 5u);
  EXPECT_EQ(after.columns[4].name, "reduces");
  ASSERT_EQ(after.rows.size(), 1u + 1 + 2 * 4) << "the old row, the new run's 1 MiB chunk, then 32 KiB to 1 MiB "
                                                  "plain and reducing";
  for (size_t c = 0; c < before.columns.size(); ++c)
    EXPECT_TRUE(same(before.rows[0][c], after.rows[0][c])) << "column " << before.columns[c].name;
  EXPECT_EQ(std::get<int64_t>(after.rows[0].at(4)), -1) << "missing in the old row";
  int64_t reducing = 0;
  for (size_t r = 1; r < after.rows.size(); ++r) reducing += std::get<int64_t>(after.rows[r].at(4));
  EXPECT_EQ(reducing, 4);

  auto old_calibration = run_command(topomodel("calibrate " + file.string() + " --run " + old_run + " -o " +
                                               (dir_ / "old.json").string()), (dir_ / "c1").string());
  ASSERT_EQ(old_calibration.exit_code, 0) << old_calibration.out << old_calibration.err;
  EXPECT_NE(old_calibration.out.find(" at 1048576"), std::string::npos) << "its ladder still counts\n" << old_calibration.out;
  EXPECT_NE(old_calibration.out.find("no reducing link test"), std::string::npos) << old_calibration.out;
  auto new_calibration = run_command(topomodel("calibrate " + file.string() + " -o " + (dir_ / "new.json").string()),
                                     (dir_ / "c2").string());
  ASSERT_EQ(new_calibration.exit_code, 0) << new_calibration.out << new_calibration.err;
  EXPECT_NE(new_calibration.out.find("# reduction     : one core's reduction rate"), std::string::npos)
      << new_calibration.out;
}

// A ddp run (issue 17) times the ring send/receive at each bucket size's chunk in every turn beside
// its steps: /exchanges holds one row per bucket size at a bucket's ring chunk (ceil(elements / 3)
// float32s: 256 KiB -> 87384 B, 512 KiB -> 174764 B), calibrate fits the run's copy rate on them,
// and step prices the run's buckets on that machine file.
TEST_F(CalibratePredict, ADdpRunCalibratesOnItsOwnBucketsExchanges) {
  const fs::path file = dir_ / "ddp.h5", machine = dir_ / "ddp.json";
  auto run = run_command(mpirun(3) + RINGBENCH_EXE +
                             " --workload ddp --grad-bytes 3M --layers 3 --bucket-bytes 256K:512K --compute-ms 1 -i 6"
                             " -o " + file.string(),
                         (dir_ / "run").string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("# exchange: the ring send/receive"), std::string::npos) << run.out;
  const auto runs = results::read_table(file, "/runs");
  ASSERT_EQ(runs.rows.size(), 1u);
  const std::string run_id = text(runs, runs.rows[0], "run_id");
  const auto exchanges = results::read_table(file, "/exchanges");
  ASSERT_EQ(exchanges.rows.size(), 2u) << "one per bucket size";
  for (size_t r = 0; r < 2; ++r) {
    SCOPED_TRACE("row " + std::to_string(r));
    EXPECT_EQ(text(exchanges, exchanges.rows[r], "run_id"), run_id);
    const uint64_t bucket_elements = (64u << 10) << r;
    EXPECT_EQ(std::get<uint64_t>(exchanges.rows[r].at(exchanges.column("chunk_bytes"))), (bucket_elements + 2) / 3 * 4);
    EXPECT_GT(number(exchanges, exchanges.rows[r], "chunk_us"), 0);
    EXPECT_EQ(std::get<int64_t>(exchanges.rows[r].at(exchanges.column("calls"))), 6 * 3) << "3 calls in each of 6 turns";
  }

  auto calibrate = run_command(topomodel("calibrate " + file.string() + " --run " + run_id + " -o " + machine.string()),
                               (dir_ / "cal").string());
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.out << calibrate.err;
  EXPECT_NE(calibrate.out.find(" at 87384"), std::string::npos) << calibrate.out;
  EXPECT_NE(calibrate.out.find(" at 174764"), std::string::npos) << calibrate.out;
  auto step = run_command(topomodel("step --workload ddp --cluster " + machine.string() +
                                    " --gpus 3 --algo ring --grad-bytes 3145728 --layers 3 --bucket-bytes 262144"
                                    " --compute-ms 1"),
                          (dir_ / "step").string());
  EXPECT_EQ(step.exit_code, 0) << step.out << step.err;
  EXPECT_NE(step.out.find("262144"), std::string::npos) << step.out;
}

TEST_F(CalibratePredict, BadInputIsOneLineAndExit2) {
  auto missing = run_command(topomodel("calibrate " + (dir_ / "none.h5").string() + " -o " + (dir_ / "m.json").string()),
                             (dir_ / "bad").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("none.h5"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "m.json"));
  auto bad_fit = run_command(topomodel("calibrate " + (dir_ / "none.h5").string() + " --link-fit cubic -o " +
                                       (dir_ / "m.json").string()),
                             (dir_ / "bad-fit").string());
  EXPECT_EQ(bad_fit.exit_code, 2) << bad_fit.out << bad_fit.err;
  EXPECT_EQ(bad_fit.err, "topomodel: error: --link-fit: expected least-squares or two-segment, got cubic\n");
  EXPECT_FALSE(fs::exists(dir_ / "m.json"));
}

}  // namespace
}  // namespace ringbench
