// README.md's algorithm table must be exactly what the formulas generate. The test is skipped
// while the README has no table markers; once it has them, any drift between the document and
// the code fails here, with the table to paste (print_algorithm_table prints it too).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "transport/algorithm.h"
#include "transport/algorithm_table.h"

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

TEST(AlgorithmTable, ReadmeCarriesTheGeneratedTable) {
  std::ifstream file(std::string(RINGBENCH_SOURCE_DIR) + "/README.md");
  if (!file) GTEST_SKIP() << "no README.md";
  std::stringstream text;
  text << file.rdbuf();
  const std::string readme = text.str();
  const size_t begin = readme.find(kTableBeginMarker), end = readme.find(kTableEndMarker);
  if (begin == std::string::npos || end == std::string::npos) GTEST_SKIP() << "README.md has no table markers";
  ASSERT_LT(begin, end);
  const size_t first = readme.find('\n', begin) + 1;
  const std::string carried = readme.substr(first, end - first);
  EXPECT_EQ(carried, readme_algorithm_table())
      << "README.md's table is out of date; replace the lines between the markers with the output of "
         "print_algorithm_table";
}

}  // namespace
}  // namespace ringbench
