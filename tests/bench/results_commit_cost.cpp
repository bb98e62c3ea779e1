// results_commit_cost FILE COMMITS: appends COMMITS rows to FILE's /results, one commit each (as
// ringbench commits one size's row), and prints the median, min and max time of one commit in ms.
// scripts/commit-cost.sh runs it on an empty, a 50 MB and a 1 GB file to show that a commit's
// cost does not grow with the file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "results/results_file.h"

namespace {

using namespace ringbench::results;

// About as wide as ringbench's /results row: a few strings and many numbers.
Table cost_table() {
  Table table{.path = "/results", .columns = {}, .description = "commit-cost rows"};
  table.columns.push_back({"run_id", ColumnType::String, "", "run"});
  table.columns.push_back({"algorithm", ColumnType::String, "", "algorithm"});
  for (int i = 0; i < 30; ++i)
    table.columns.push_back({"value_" + std::to_string(i), ColumnType::Float64, "", "a measured figure"});
  return table;
}

Row cost_row(const std::string& run_id, int index) {
  Row row{run_id, std::string("ring")};
  for (int i = 0; i < 30; ++i) row.emplace_back(double(index) * 1.5 + i);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FILE COMMITS\n", argv[0]);
    return 2;
  }
  const int commits = std::atoi(argv[2]);
  try {
    const Table table = cost_table();
    const std::string run_id = new_run_id();
    std::vector<double> ms;
    for (int i = 0; i < commits; ++i) {
      const Row row = cost_row(run_id, i);
      const auto start = std::chrono::steady_clock::now();
      commit(argv[1], [&](Transaction& t) { t.append(table, {&row, 1}); });
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("commits %d median_ms %.3f min_ms %.3f max_ms %.3f\n", commits, ms[ms.size() / 2], ms.front(),
                ms.back());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "results_commit_cost: %s\n", error.what());
    return 2;
  }
  return 0;
}
