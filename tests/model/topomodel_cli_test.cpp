// The topomodel executable: bad input is one line on stderr naming the flag or field, exit 2;
// validate exits 0 while every checked case holds; -o writes tables that read back.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "results/results_file.h"

namespace {

struct Outcome {
  int status = -1;
  std::string out, err;
};

Outcome run(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto err_path = dir / ("topomodel_cli_test_" + std::to_string(::getpid()) + ".err");
  const std::string command = std::string(TOPOMODEL_PATH) + " " + args + " 2>" + err_path.string();
  Outcome r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer{};
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream err(err_path);
  r.err.assign(std::istreambuf_iterator<char>(err), {});
  std::filesystem::remove(err_path);
  return r;
}

struct BadInput {
  const char* args;
  const char* names;  // the flag or field the message must name
};

void PrintTo(const BadInput& b, std::ostream* os) { *os << b.args; }

class TopomodelBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(TopomodelBadInput, OneLineNamingTheFlagAndExit2) {
  const Outcome r = run(GetParam().args);
  EXPECT_EQ(r.status, 2) << GetParam().args << "\n" << r.err;
  EXPECT_NE(r.err.find(GetParam().names), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TopomodelBadInput,
    ::testing::Values(BadInput{"collective --cluster dgx-z100", "--cluster"},
                      BadInput{"collective --cluster /nonexistent/c.json", "/nonexistent/c.json"},
                      BadInput{"collective --nodes 2 --group tp=32", "--group"},
                      BadInput{"collective --nodes 2 --group tp=3", "--group"},
                      BadInput{"collective --nodes 2 --bytes 0", "--bytes"},
                      BadInput{"collective --nodes 2 --bytes -1G", "--bytes"},
                      BadInput{"collective --nodes 2 --bytes lots", "--bytes"},
                      BadInput{"collective --nodes 0", "--nodes"},
                      BadInput{"collective --nodes 2 --op allsum", "--op"},
                      BadInput{"collective --nodes 4 --placement tp=8,pp=3,dp=2 --group tp", "placement"},
                      BadInput{"collective --nodes 2 --order tp-xx", "--order"},
                      BadInput{"sweep --gpus 12", "--gpus"},
                      BadInput{"sweep --gpus 64 --layers 0", "--layers"},
                      BadInput{"sweep --gpus 64 --params -5", "--params"},
                      BadInput{"sweep --gpus 64 --cp 3", "--cp"},
                      BadInput{"collective --frobnicate", "--frobnicate"},
                      BadInput{"step --gpus 64 --model gpt-5 --tp 8", "--model"},
                      BadInput{"step --gpus 64 --tp 8", "--model"},
                      BadInput{"step --cluster dgx-a100 --gpus 64 --model gpt3-175b --tp 3", "--tp"},
                      BadInput{"step --cluster dgx-a100 --gpus 64 --model gpt3-175b --tp 0", "--tp"},
                      BadInput{"step --cluster dgx-a100 --gpus 64 --model gpt3-175b --recompute half", "--recompute"},
                      BadInput{"step --cluster dgx-a100 --gpus 64 --model gpt3-175b --micro-batch 0", "--micro-batch"},
                      BadInput{"step --cluster dgx-a100 --gpus 64 --model gpt3-175b --global-batch -2", "--global-batch"},
                      BadInput{"step --cluster dgx-a100 --gpus 64 --model /nonexistent/m.json", "--model"},
                      BadInput{"sweep --cluster dgx-a100 --gpus 64 --model gpt3-175b --micro-batches 0", "--micro-batches"},
                      BadInput{"failures --gpus 64 --tp 3", "--tp"},
                      BadInput{"failures --gpus 64 --restart-s -1", "--restart-s"},
                      BadInput{"failures --gpus 64 --interval-min 0", "--interval-min"}));

TEST(Topomodel, StepFailuresAndModelSweepRun) {
  const Outcome step = run("step --cluster dgx-a100 --gpus 1024 --model gpt3-175b --tp 8 --pp 8");
  EXPECT_EQ(step.status, 0) << step.err;
  EXPECT_NE(step.out.find("bubble"), std::string::npos);
  EXPECT_NE(step.out.find("HFU"), std::string::npos);
  const Outcome failures = run("failures --cluster dgx-h100 --gpus 16384 --tp 8 --pp 16");
  EXPECT_EQ(failures.status, 0) << failures.err;
  EXPECT_NE(failures.out.find("Young/Daly optimum"), std::string::npos);
  const Outcome sweep = run("sweep --cluster dgx-a100 --gpus 64 --model gpt3-175b --top 3");
  EXPECT_EQ(sweep.status, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("do not fit in memory"), std::string::npos);
}

TEST(Topomodel, ValidateExitsZeroAndPrintsTheTable) {
  const Outcome r = run("validate");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("fitted"), std::string::npos);
  EXPECT_NE(r.out.find("checked"), std::string::npos);
  EXPECT_NE(r.out.find("NVIDIA/nccl"), std::string::npos);
}

TEST(Topomodel, CollectiveMarksTheFastestAlgorithm) {
  const Outcome r = run("collective --cluster dgx-h100 --nodes 16 --op allreduce --bytes 1G --group tp=8");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# auto: nvls"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" *  nvls"), std::string::npos) << r.out;
}

TEST(Topomodel, OutputAppendsTablesThatReadBack) {
  namespace results = ringbench::results;
  const auto file = std::filesystem::temp_directory_path() / ("topomodel_cli_test_" + std::to_string(::getpid()) + ".h5");
  std::filesystem::remove(file);
  ASSERT_EQ(run("collective --cluster dgx-a100 --nodes 4 --bytes 256M --group tp=8 -o " + file.string()).status, 0);
  ASSERT_EQ(run("sweep --cluster dgx-a100 --gpus 64 -o " + file.string()).status, 0);
  ASSERT_EQ(run("validate -o " + file.string()).status, 0);
  ASSERT_EQ(run("step --cluster dgx-a100 --gpus 64 --model gpt3-175b --tp 8 --pp 8 -o " + file.string()).status, 0);
  ASSERT_EQ(run("failures --cluster dgx-h100 --gpus 128 --tp 8 -o " + file.string()).status, 0);

  const auto runs = results::read_table(file, "/model/runs");
  ASSERT_EQ(runs.rows.size(), 5u);
  EXPECT_EQ(results::read_table(file, "/model/steps").rows.size(), 1u);
  EXPECT_EQ(results::read_table(file, "/model/failures").rows.size(), 6u);
  EXPECT_GE(results::read_table(file, "/model/goodput").rows.size(), 7u);
  EXPECT_EQ(results::read_table(file, "/model/run_validation").rows.size(), 8u);
  const auto run_id = std::get<std::string>(runs.rows[0][runs.column("run_id")]);
  EXPECT_EQ(std::get<std::string>(runs.rows[0][runs.column("command")]), "collective");
  EXPECT_NE(std::get<std::string>(runs.rows[0][runs.column("cluster_json")]).find("\"bw_GBps\""), std::string::npos);

  const auto collectives = results::read_table(file, "/model/collectives");
  ASSERT_EQ(collectives.rows.size(), 5u);  // one per all-reduce algorithm
  int best = 0;
  for (const auto& row : collectives.rows) {
    EXPECT_EQ(std::get<std::string>(row[collectives.column("run_id")]), run_id);
    EXPECT_EQ(std::get<uint64_t>(row[collectives.column("bytes")]), 256'000'000u);
    best += static_cast<int>(std::get<int64_t>(row[collectives.column("best")]));
  }
  EXPECT_EQ(best, 1);

  const auto placements = results::read_table(file, "/model/placements");
  EXPECT_GT(placements.rows.size(), 10u);
  EXPECT_EQ(std::get<int64_t>(placements.rows[0][placements.column("rank")]), 1);
  const auto validation = results::read_table(file, "/model/validation");
  EXPECT_GE(validation.rows.size(), 7u);
  std::filesystem::remove(file);
}

}  // namespace
