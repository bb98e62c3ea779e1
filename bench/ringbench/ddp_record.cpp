// --workload ddp's output: the osu-style table on stdout and the /workloads rows (ddp_workload.h).

#include <cmath>

#include <fmt/format.h>

#include "byte_size.h"
#include "ddp_workload.h"

namespace ringbench {

namespace {
using results::ColumnType;
}  // namespace

const results::Table& workloads_table() {
  static const results::Table table{
      "/workloads",
      {
          {"run_id", ColumnType::String, "", "the run (see /runs)"},
          {"workload", ColumnType::String, "", "ddp: a training step's backward pass with bucketed, overlapped all-reduces"},
          {"algorithm", ColumnType::String, "", "the all-reduce algorithm of every bucket"},
          {"world_size", ColumnType::Int64, "", "ranks"},
          {"hosts", ColumnType::String, "", "distinct hosts, comma-separated"},
          {"grad_bytes", ColumnType::UInt64, "bytes", "float32 gradients of every layer together"},
          {"layers", ColumnType::Int64, "", "equal layers, their backward passes in reverse order"},
          {"bucket_bytes", ColumnType::UInt64, "bytes", "bucket size (the last bucket may be smaller)"},
          {"buckets", ColumnType::Int64, "", "all-reduces per step"},
          {"compute_us_per_layer", ColumnType::Float64, "us",
           "each layer's backward time: --compute-ms, or the measured blocking all-reduce of one layer's gradients"},
          {"steps", ColumnType::Int64, "", "timed steps (and as many communication-alone passes)"},
          {"step_us", ColumnType::Float64, "us", "median step time, the slowest rank's, barrier to last bucket"},
          {"step_ci_pct", ColumnType::Float64, "%", "95% interval of the median, larger side, % of it; NaN below 6 steps"},
          {"step_p05_us", ColumnType::Float64, "us", "5th percentile of the step times"},
          {"step_p95_us", ColumnType::Float64, "us", "95th percentile of the step times"},
          {"comm_alone_us", ColumnType::Float64, "us", "median time of the same buckets' all-reduces back to back, no compute"},
          {"compute_us", ColumnType::Float64, "us", "layers x compute_us_per_layer"},
          {"exposed_comm_us", ColumnType::Float64, "us", "step_us - compute_us, at least 0: communication not hidden"},
          {"overlap_fraction", ColumnType::Float64, "", "1 - exposed_comm_us / comm_alone_us, within [0, 1]"},
      },
      "simulated training workloads, one row per bucket size (schema 5; --workload)"};
  return table;
}

std::vector<results::Row> workload_rows(const std::string& run_id, const BenchOptions& options, int world_size,
                                        const std::string& hosts, const std::vector<DdpRow>& rows) {
  std::vector<results::Row> out;
  for (const DdpRow& r : rows)
    out.push_back({run_id, std::string(to_string(options.workload)), r.algorithm, int64_t{world_size}, hosts,
                   uint64_t{options.ddp.grad_bytes}, int64_t{options.ddp.layers}, uint64_t{r.bucket_bytes},
                   static_cast<int64_t>(r.buckets), r.compute_us_per_layer, static_cast<int64_t>(r.steps), r.step_us,
                   r.step_ci_pct, r.step_p05_us, r.step_p95_us, r.comm_alone_us, r.compute_us, r.exposed_comm_us,
                   r.overlap_fraction});
  return out;
}

void print_ddp_table(std::FILE* out, const BenchOptions& options, int world_size, const std::vector<DdpRow>& rows) {
  const DdpOptions& ddp = options.ddp;
  fmt::print(out, "#\n# ddp workload: {} of float32 gradients over {} layers, N = {}; backward compute per layer: {}\n",
             format_byte_size(ddp.grad_bytes), ddp.layers, world_size,
             ddp.compute_ms ? "--compute-ms" : "the measured blocking all-reduce of one layer's gradients");
  fmt::print(out, "# step: the slowest rank's, median of the steps (+-: 95% interval); comm alone: the same buckets "
                  "back to back, no compute\n");
  if (options.link_test && world_size > 1)
    fmt::print(out, "# exchange: the ring send/receive at each size's chunk (bucket / N), timed in every turn beside "
                    "its steps, to /exchanges: what topomodel calibrate prices this run's buckets on\n");
  fmt::print(out, "#{:>13} {:>9} {:>8} {:>6} {:>13} {:>7} {:>12} {:>12} {:>14} {:>12} {:>12} {:>8}  {}\n", "algorithm",
             "bucket", "buckets", "steps", "step(us)", "+-%", "p05(us)", "p95(us)", "comm_alone(us)", "compute(us)",
             "exposed(us)", "overlap", "check");
  for (const DdpRow& r : rows) {
    const std::string ci = std::isnan(r.step_ci_pct) ? "n/a" : fmt::format("{:.1f}", r.step_ci_pct);
    const std::string check = r.ok() ? "ok"
                              : r.wrong ? fmt::format("WRONG ({} elements)", r.wrong)
                                        : fmt::format("BYTES ({} calls)", r.bytes_mismatches);
    fmt::print(out, "{:>14} {:>9} {:>8} {:>6} {:>13.1f} {:>7} {:>12.1f} {:>12.1f} {:>14.1f} {:>12.1f} {:>12.1f} {:>8.3f}  {}\n",
               r.algorithm, format_byte_size(r.bucket_bytes), r.buckets, r.steps, r.step_us, ci, r.step_p05_us,
               r.step_p95_us, r.comm_alone_us, r.compute_us, r.exposed_comm_us, r.overlap_fraction, check);
  }
}

}  // namespace ringbench
