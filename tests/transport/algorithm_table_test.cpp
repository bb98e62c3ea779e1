// docs/algorithms.md's algorithm table must be exactly what the formulas generate: any drift
// between the page and the code fails here, naming the fix. scripts/docs_generate.py (the
// docs.generated test) checks the same block along with the docs' other generated blocks; this
// test keeps the check where the formulas are, so a transport change fails in the unit tests.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "transport/algorithm.h"
#include "transport/algorithm_table.h"
#include "spec/algorithm_spec.h"

namespace ringbench {
namespace {

TEST(AlgorithmTable, HasOneRowPerAlgorithmWithItsFormula) {
  const std::string table = algorithm_table_markdown(4, 1 << 20);
  for (const Algorithm* a : all_algorithms())
    EXPECT_NE(table.find("| " + std::string(to_string(a->collective())) + " | " + std::string(a->name()) + " |"),
              std::string::npos)
        << a->name();
  // Ring all-reduce at N = 4 on 1 MiB: 2(N-1)/N x data = 1572864 bytes, exactly the bound.
  EXPECT_NE(table.find("| allreduce | ring | 6 | 1572864 | 1572864 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| allreduce | naive | 1 | 3145728 | 1572864 |"), std::string::npos) << table;
}

// The transport runs exactly the specified algorithms, in the specification's order.
TEST(AlgorithmTable, RunsEverySpecifiedAlgorithmInItsOrder) {
  const auto& specs = spec::all_algorithm_specs();
  const auto& runners = all_algorithms();
  ASSERT_EQ(runners.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(to_string(runners[i]->collective()), specs[i]->collective) << i;
    EXPECT_EQ(runners[i]->name(), specs[i]->name) << i;
  }
}

TEST(AlgorithmTable, DocsCarryTheGeneratedTable) {
  const std::string path = std::string(RINGBENCH_SOURCE_DIR) + "/docs/algorithms.md";
  std::ifstream file(path);
  ASSERT_TRUE(file) << "cannot read " << path;
  std::stringstream text;
  text << file.rdbuf();
  const std::string page = text.str();
  const size_t begin = page.find(kTableBeginMarker), end = page.find(kTableEndMarker);
  ASSERT_NE(begin, std::string::npos) << path << " lost its line " << kTableBeginMarker;
  ASSERT_NE(end, std::string::npos) << path << " lost its line " << kTableEndMarker;
  ASSERT_LT(begin, end);
  const size_t first = page.find('\n', begin) + 1;
  const std::string carried = page.substr(first, end - first);
  EXPECT_EQ(carried, documented_algorithm_table())
      << "docs/algorithms.md's table is out of date; run scripts/docs_generate.py --write --bin-dir BUILD/bin";
}

}  // namespace
}  // namespace ringbench
