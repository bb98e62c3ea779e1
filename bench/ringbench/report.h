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

namespace ringbench {

struct RunHeader {
  std::string version;
  int world_size = 1;
  std::vector<std::string> hosts;
  std::string interface;        // "lo (127.0.0.1)"
  std::string mpi_library;
  double plain_pair_GBps = 0;   // plain blocking TCP pair, 1 MiB writes
  std::string plain_pair_path;  // "loopback on vm", "h1 -> h2 (10.200.0.2)"
};

class Report {
 public:
  Report(std::FILE* out, const BenchOptions& options, int world_size) : out_(out), options_(options), n_(world_size) {}
  void header(const RunHeader& header);
  void collective_header(Collective collective, const std::string& algorithm);
  void row(const SizeResult& result);
  // Failures explained in full, after the rows they concern.
  void failure_details(const SizeResult& result);
  void summary(int rows, int failed_rows, double seconds);

  // nccl-tests definitions: algbw = bytes / time (GB = 1e9 B); busbw = algbw x factor.
  static double algbw_GBps(uint64_t bytes, double seconds_us);

 private:
  std::FILE* out_;
  const BenchOptions& options_;
  int n_;
};

}  // namespace ringbench
