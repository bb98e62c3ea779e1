#pragma once
// `-o results.h5`: one atomic commit per run of a /model/runs row plus the command's tables
// (tables.h), through the shared results library. Without -o nothing touches HDF5.
//
// Built against bench/results when that library is part of the build (ringbench_results);
// otherwise -o fails with a one-line error and everything else works.

#include <filesystem>
#include <string>
#include <vector>

#include "tables.h"

namespace ringbench::topomodel {

struct TableRows {
  const results::Table* table;
  std::vector<results::Row> rows;
};

class ResultsOutput {
 public:
  // Empty `file`: disabled. Otherwise checks now, before any long work, that the file can be
  // written (ResultsError / InputError with one line naming the file), and makes the run id.
  ResultsOutput(std::filesystem::path file, RunRecord run);

  bool enabled() const { return !file_.empty(); }
  const std::string& run_id() const { return run_.run_id; }
  // Appends the run row and the tables in one transaction. No-op when disabled.
  void write(const std::vector<TableRows>& tables, int exit_status);

 private:
  std::filesystem::path file_;
  RunRecord run_;
};

}  // namespace ringbench::topomodel
