// External readers must understand the file: h5dump (HDF5's own tool) here; h5py in
// read_with_h5py.py, run as its own CTest test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "results_sample.h"
#include "results_test_support.h"

namespace ringbench::results {
namespace {

using ::testing::HasSubstr;

// Runs a shell command, returns its stdout and stderr and exit status.
std::pair<std::string, int> run(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {"popen failed", -1};
  char buffer[4096];
  for (size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, got);
  const int status = pclose(pipe);
  return {output, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST(ResultsExternalTools, H5dumpReadsTablesAndAttributes) {
  const std::string h5dump = RINGBENCH_H5DUMP;
  if (h5dump.empty() || h5dump.ends_with("NOTFOUND")) GTEST_SKIP() << "h5dump not installed (hdf5-tools)";
  testing::TempDir dir;
  const auto file = dir / "sample.h5";
  testing::write_sample_results(file);

  const auto [output, status] = run("'" + h5dump + "' '" + file.string() + "'");
  ASSERT_EQ(status, 0) << output;
  EXPECT_THAT(output, HasSubstr("ATTRIBUTE \"ringbench_schema_version\""));
  EXPECT_THAT(output, HasSubstr("DATASET \"results\""));
  EXPECT_THAT(output, HasSubstr("GROUP \"model\""));
  EXPECT_THAT(output, HasSubstr("DATASET \"placements\""));
  EXPECT_THAT(output, HasSubstr("H5T_STRING"));
  EXPECT_THAT(output, HasSubstr("CSET H5T_CSET_UTF8"));
  EXPECT_THAT(output, HasSubstr("\"busbw_GBps\""));
  EXPECT_THAT(output, HasSubstr("\"GB/s (1e9 bytes/s)\""));
  EXPECT_THAT(output, HasSubstr("\"run-b\""));
  EXPECT_THAT(output, HasSubstr("18446744073709551615"));

  // Only the schema version, to be sure h5dump reads the value and not just the name.
  const auto [version, version_status] =
      run("'" + h5dump + "' -a /ringbench_schema_version '" + file.string() + "'");
  ASSERT_EQ(version_status, 0) << version;
  EXPECT_THAT(version, HasSubstr("(0): " + std::to_string(kSchemaVersion)));
}

}  // namespace
}  // namespace ringbench::results
