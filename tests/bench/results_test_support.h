#pragma once
// Helpers shared by the results-library tests: a private temporary directory, whole-file reads,
// and small tables to write.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/results_file.h"

namespace ringbench::results::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it. CTest runs tests in
// parallel, so each test writes only inside its own.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ringbench-results-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

// Names of files in `dir` other than `keep` and lock files: commit() must leave no copies.
inline std::vector<std::string> leftover_copies(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos)
      names.push_back(entry.path().filename().string());
  return names;
}

// A table with one column of each type; the key column is "run_id".
inline Table sample_table(std::string path = "/results") {
  return Table{
      .path = std::move(path),
      .columns = {{"run_id", ColumnType::String, "", "run this row belongs to"},
                  {"rank", ColumnType::Int64, "", "MPI rank"},
                  {"bytes", ColumnType::UInt64, "bytes", "message size"},
                  {"t_avg_us", ColumnType::Float64, "us", "mean time per iteration"}},
      .description = "one row per measurement",
  };
}

inline Row sample_row(const std::string& run_id, int64_t rank, uint64_t bytes = 1024, double t = 1.5) {
  return Row{run_id, rank, bytes, t};
}

// Appends `rows` to `table` in one commit.
inline void append(const std::filesystem::path& file, const Table& table, std::vector<Row> rows) {
  commit(file, [&](Transaction& txn) { txn.append(table, rows); });
}

}  // namespace ringbench::results::testing
