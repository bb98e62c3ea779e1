#pragma once
// Rows for machines and dashboards, beside the human table:
// - RowStream: --format csv|jsonl writes every row to stdout as soon as it is measured, with the
//   /results table's column names and values (one name for one figure, in the file and on stdout).
// - BusBandwidthAverage: nccl-tests' closing "# Avg bus bandwidth" line, which CI dashboards grep
//   for, and its "# Out of bounds values" count of wrong elements.

#include <cstdio>
#include <string>

#include "bench_options.h"
#include "measurement.h"

namespace ringbench {

class RowStream {
 public:
  RowStream(std::FILE* out, const BenchOptions& options, std::string run_id, int world_size)
      : out_(out), options_(options), run_id_(std::move(run_id)), n_(world_size) {}
  void write(const SizeResult& result);  // nothing for --format table

 private:
  std::FILE* out_;
  const BenchOptions& options_;
  std::string run_id_;
  int n_;
  bool header_written_ = false;
};

// The mean busbw over ringbench's own rows (every algorithm, auto included, every size and
// placement); the mpi rows, a baseline on another library, are left out. nccl-tests averages
// every row of its run, in place and out of place alike.
class BusBandwidthAverage {
 public:
  void add(const SizeResult& result, int world_size);
  void print(std::FILE* out) const;

 private:
  double sum_GBps_ = 0;
  int rows_ = 0;
  uint64_t wrong_ = 0;
};

}  // namespace ringbench
