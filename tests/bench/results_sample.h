#pragma once
// The sample results file that external readers (h5dump here, h5py in read_with_h5py.py) must
// understand. read_with_h5py.py checks these exact values: change both together.

#include <filesystem>

#include "results/results_file.h"

namespace ringbench::results::testing {

inline void write_sample_results(const std::filesystem::path& file) {
  const Table runs{
      .path = "/runs",
      .columns = {{"run_id", ColumnType::String, "", "globally unique run id"},
                  {"world_size", ColumnType::Int64, "", "number of ranks"},
                  {"note", ColumnType::String, "", "free text"}},
      .description = "one row per ringbench run",
  };
  const Table results{
      .path = "/results",
      .columns = {{"run_id", ColumnType::String, "", "run this row belongs to"},
                  {"bytes", ColumnType::UInt64, "bytes", "message size"},
                  {"t_avg_us", ColumnType::Float64, "us", "mean time per iteration"},
                  {"busbw_GBps", ColumnType::Float64, "GB/s (1e9 bytes/s)", "bus bandwidth"},
                  {"wrong", ColumnType::Int64, "", "elements that failed verification"}},
      .description = "one row per (run, size)",
  };
  const Table placements{
      .path = "/model/placements",
      .columns = {{"placement", ColumnType::String, "", "placement name"},
                  {"cost_us", ColumnType::Float64, "us", "modelled time"}},
      .description = "topomodel placements",
  };
  commit(file, [&](Transaction& txn) {
    const std::vector<Row> run_rows = {
        {std::string("run-a"), int64_t{4}, std::string("")},
        {std::string("run-b"), int64_t{8}, std::string("µs ✓")},
    };
    const std::vector<Row> result_rows = {
        {std::string("run-a"), uint64_t{1024}, 12.5, 0.08192, int64_t{0}},
        {std::string("run-a"), uint64_t{1} << 20, 250.0, 4.194304, int64_t{0}},
        {std::string("run-b"), uint64_t{18446744073709551615u}, 1e9, 1e-3, int64_t{-1}},
    };
    const std::vector<Row> placement_rows = {{std::string("packed"), 3.25}};
    txn.append(runs, run_rows);
    txn.append(results, result_rows);
    txn.append(placements, placement_rows);
  });
}

}  // namespace ringbench::results::testing
