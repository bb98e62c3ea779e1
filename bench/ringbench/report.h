#pragma once
// The stdout report, osu-micro-benchmarks style with nccl-tests' bandwidth columns: '#' header
// lines (version, ranks, hosts, interface, dtype, op, timing method, units), a two-line column
// header (names, then units), one row per size, and '#' summary lines. `grep -v '^#'` leaves the
// rows alone, whitespace-separated.

#include <cstdio>
#include <string>
#include <vector>

#include "bench_options.h"
#include "measurement.h"
#include "run_conditions.h"
#include "statistics/stopping_rule.h"

namespace ringbench {

struct RunHeader {
  std::string version;
  int world_size = 1;
  std::vector<std::string> hosts;
  std::string interface;        // "lo (127.0.0.1)"
  std::string mpi_library;
  double plain_pair_GBps = 0;   // plain blocking TCP pair, 1 MiB writes
  std::string plain_pair_path;  // "loopback on vm", "h1 -> h2 (10.200.0.2)"
  RunConditions conditions;
  std::string write_slice;      // the slice and where it came from (--slice, the probe, the default)
  std::string segment;          // how pipelined plans are cut (SegmentChoice::describe); empty: N = 1
};

// The timing mode in words, for the header and the /runs row.
std::string timing_method(TimingMode mode);

class Report {
 public:
  // `out` gets the table; with --format csv or jsonl, stdout carries only the rows (row_stream.h),
  // so the '#' lines go to stderr and the table is left out.
  Report(std::FILE* out, const BenchOptions& options, int world_size)
      : out_(options.format == OutputFormat::Table ? out : stderr), options_(options), n_(world_size) {}
  // Where '#' lines go.
  std::FILE* human() const { return out_; }
  void header(const RunHeader& header);
  // A section: one algorithm's rows; or, with `algorithm_column`, several algorithms' rows size by
  // size, each row led by its algorithm's name (`title` then lists them).
  void collective_header(Collective collective, const std::string& title, bool algorithm_column = false);
  // One size: one result, or with --place both the out-of-place and the in-place one, on one row
  // as nccl-tests prints them; `algorithm` leads the row in a section with an algorithm column.
  void row(const std::vector<SizeResult>& placements, const std::string& algorithm = {});
  // Failures explained in full, after the rows they concern.
  void failure_details(const SizeResult& result);
  void summary(int rows, int failed_rows, double seconds);
  // One line when more than a quarter of the rows ran out of time with an interval wider than
  // the target, or had theirs withheld because other processes used the CPU: the figures are
  // honest, but this machine was too noisy to pin them down.
  void noise_warning(int rows, int noisy_rows);
  // A row whose interval is wider than this, as a fraction of its median, is marked `~`.
  bool interval_is_wide(const SizeResult& result) const;

  // nccl-tests definitions: algbw = bytes / time (GB = 1e9 B); busbw = algbw x factor.
  static double algbw_GBps(uint64_t bytes, double seconds_us);

 private:
  void timing_lines();
  bool table() const { return options_.format == OutputFormat::Table; }
  std::string time_fields(const SizeResult& result) const;
  std::string main_fields(const SizeResult& result) const;
  std::string in_place_fields(const SizeResult& result) const;  // --place both: the second group
  std::string wrong_field(const SizeResult& result) const;

  std::FILE* out_;
  const BenchOptions& options_;
  int n_;
  const double wide_interval_ = stats::StoppingRule{}.target_half_width;
};

}  // namespace ringbench
