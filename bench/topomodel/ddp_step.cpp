#include "ddp_step.h"

#include <fmt/format.h>

#include <numeric>
#include <optional>

#include "model/bucketed_step.h"
#include "model/error.h"
#include "model/input_limits.h"
#include "report.h"
#include "results_output.h"
#include "sizes.h"

namespace ringbench::topomodel {
namespace {

using results::ColumnType;

// --compute-ms's upper limit: 1e9 ms (11.6 days) per layer is beyond any backward pass, and keeps
// L x c finite for every --layers.
constexpr double kMaxComputeMs = 1e9;

// One row per bucket size. The columns ringbench's /workloads table also has carry its names and
// meanings, so the two join on (grad_bytes, layers, bucket_bytes) for measured against predicted.
const results::Table& ddp_steps_table() {
  static const results::Table t{
      "/model/ddp_steps",
      {{"run_id", ColumnType::String, "", "joins /model/runs"},
       {"cluster", ColumnType::String, "", "cluster name"},
       {"world_size", ColumnType::Int64, "GPUs", "GPUs in the one data-parallel group"},
       {"algorithm", ColumnType::String, "", "all-reduce algorithm of every bucket (auto: the fastest per size)"},
       {"grad_bytes", ColumnType::UInt64, "bytes", "gradient bytes per step"},
       {"layers", ColumnType::Int64, "", "equal layers the gradients come from"},
       {"bucket_bytes", ColumnType::UInt64, "bytes", "bucket size (the last bucket holds the rest)"},
       {"buckets", ColumnType::Int64, "", "all-reduces per step"},
       {"bucket_us", ColumnType::Float64, "us", "one full bucket's all-reduce"},
       {"compute_us_per_layer", ColumnType::Float64, "us", "backward compute of one layer"},
       {"compute_us", ColumnType::Float64, "us", "the whole backward pass: layers x compute_us_per_layer"},
       {"comm_alone_us", ColumnType::Float64, "us", "sum of the buckets' all-reduce times"},
       {"step_us", ColumnType::Float64, "us", "max(backward end, last bucket's end)"},
       {"exposed_comm_us", ColumnType::Float64, "us", "step - compute: communication not hidden"},
       {"overlap_fraction", ColumnType::Float64, "fraction", "1 - exposed / comm_alone"},
       {"best", ColumnType::Int64, "", "1 for the bucket size with the shortest step"}},
      "topomodel step --workload ddp: one row per bucket size"};
  return t;
}

std::vector<results::Row> ddp_rows(const std::string& run_id, const model::Cluster& cluster, const std::string& algo,
                                   const model::BucketSweep& sweep) {
  std::vector<results::Row> rows;
  for (size_t i = 0; i < sweep.steps.size(); ++i) {
    const model::BucketedStep& s = sweep.steps[i];
    rows.push_back({run_id, cluster.name, int64_t{cluster.gpus()}, algo, s.grad_bytes, int64_t{s.layers},
                    s.bucket_bytes, static_cast<int64_t>(s.buckets), s.timeline.front().comm_us,
                    s.compute_us_per_layer, s.compute_us, s.comm_alone_us, s.step_us, s.exposed_comm_us,
                    s.overlap_fraction, int64_t{i == sweep.best ? 1 : 0}});
  }
  return rows;
}

void print_ddp_header(const model::DdpWorkload& w, const model::BucketedStep& first, int gpus, const std::string& algo) {
  const uint64_t layer_bytes = w.grad_bytes / static_cast<uint64_t>(w.layers);
  fmt::print("# workload  ddp: {} B ({}) of gradients over {} layers of {} B; backward {:.1f} us per layer ({})\n",
             w.grad_bytes, human_bytes(static_cast<double>(w.grad_bytes)), w.layers, layer_bytes,
             first.compute_us_per_layer,
             w.compute_us_per_layer ? "--compute-ms" : "balanced: one layer's gradients all-reduced");
  fmt::print("# group     one data-parallel group of all {} GPUs; {} all-reduce per bucket\n", gpus,
             algo == "auto" ? "the fastest" : algo);
  fmt::print("# timeline  gradients fill buckets in reverse layer order; a bucket's all-reduce starts when it is "
             "full and the one before it has ended (one progress engine); step = max(backward, last bucket's end)\n");
  fmt::print("# columns   exposed = step - compute; overlap = 1 - exposed / comm_alone; x_best = step / best step\n");
}

void print_ddp_table(const model::BucketSweep& sweep) {
  fmt::print("#\n# {:>10} {:>8} {:>11} {:>12} {:>12} {:>12} {:>12} {:>8} {:>7}\n", "bucket", "buckets", "per_bucket",
             "step", "compute", "comm_alone", "exposed", "overlap", "x_best");
  fmt::print("# {:>10} {:>8} {:>11} {:>12} {:>12} {:>12} {:>12} {:>8} {:>7}\n", "(B)", "", "(us)", "(us)", "(us)",
             "(us)", "(us)", "(%)", "");
  const double best = sweep.steps[sweep.best].step_us;
  for (size_t i = 0; i < sweep.steps.size(); ++i) {
    const model::BucketedStep& s = sweep.steps[i];
    fmt::print("  {:>10} {:>8} {:>11.1f} {:>12.1f} {:>12.1f} {:>12.1f} {:>12.1f} {:>8.1f} {:>7.3f}{}\n", s.bucket_bytes,
               s.buckets, s.timeline.front().comm_us, s.step_us, s.compute_us, s.comm_alone_us, s.exposed_comm_us,
               100 * s.overlap_fraction, best > 0 ? s.step_us / best : 1.0, i == sweep.best ? "  <- best" : "");
  }
}

model::DdpWorkload workload_of(const DdpOptions& o) {
  model::DdpWorkload w;
  w.grad_bytes = parse_bytes(o.grad_bytes, "--grad-bytes");
  w.layers = o.layers;
  if (o.compute_ms_flag && o.compute_ms_flag->count() > 0) w.compute_us_per_layer = o.compute_ms * 1e3;
  return w;
}

}  // namespace

void DdpOptions::add_to(CLI::App& command) {
  flags.push_back(command.add_option("--grad-bytes", grad_bytes, "--workload ddp: gradient bytes per step")
                      ->capture_default_str());
  flags.push_back(command.add_option("--layers", layers, "--workload ddp: equal layers the gradients come from")
                      ->capture_default_str()
                      ->check(integer_in(1, model::limits::kMaxLayers)));
  flags.push_back(command.add_option("--bucket-bytes", bucket_bytes,
                                     "--workload ddp: bucket size, A:B (A, 2A, ... up to B) or A,B,C")
                      ->capture_default_str());
  compute_ms_flag = command.add_option("--compute-ms", compute_ms,
                                       "--workload ddp: backward compute per layer (default: balanced, one layer's "
                                       "gradients all-reduced)")
                        ->check(number_in(0, kMaxComputeMs));
  flags.push_back(compute_ms_flag);
  flags.push_back(command.add_option("--algo", algo,
                                     "--workload ddp: all-reduce algorithm of the buckets (ring, tree, "
                                     "halving-doubling, hierarchical, nvls) or auto (the fastest per size)")
                      ->capture_default_str());
}

std::string DdpOptions::first_given() const {
  for (const CLI::Option* flag : flags) {
    if (flag->count() > 0) return flag->get_name();
  }
  return "";
}

std::vector<uint64_t> parse_bucket_sizes(const std::string& text) {
  const char* flag = "--bucket-bytes";
  std::vector<uint64_t> sizes;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const uint64_t first = parse_bytes(text.substr(0, colon), flag);
    const uint64_t last = parse_bytes(text.substr(colon + 1), flag);
    if (first > last) throw model::InputError(fmt::format("{} {}: the range runs backwards", flag, text));
    for (uint64_t b = first; b <= last; b *= 2) {
      sizes.push_back(b);
      if (b > last / 2) break;  // the next doubling would pass `last` (or overflow)
    }
    return sizes;
  }
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    sizes.push_back(parse_bytes(text.substr(begin, comma - begin), flag));
    begin = comma + 1;
  }
  return sizes;
}

model::BucketSweep price_sweep(const model::Cluster& cluster, const DdpOptions& o, const model::DdpWorkload& w,
                               const std::vector<uint64_t>& sizes) {
  const int n = cluster.gpus();
  if (cluster.host_cpu.cores > 0)
    return model::bucket_sweep(model::measured_machine_allreduce(cluster, o.algo, n, w.grad_bytes), w, sizes);
  const std::optional<model::Algorithm> algorithm =
      o.algo == "auto" ? std::nullopt : std::optional(model::parse_algorithm(o.algo, "--algo"));
  model::CostModel cost(cluster);
  std::vector<int> everyone(static_cast<size_t>(n));
  std::iota(everyone.begin(), everyone.end(), 0);
  const std::vector<std::vector<int>> groups{everyone};
  return model::bucket_sweep(cost, cost.batch(groups), algorithm, w, sizes);
}

void run_ddp_step(const ClusterOptions& cluster_options, const DdpOptions& o, Context& context) {
  const model::Cluster cluster = cluster_options.resolve();
  const int n = cluster.gpus();
  if (n < 2) throw model::InputError(fmt::format("--workload ddp needs at least 2 GPUs to all-reduce over, got {}", n));
  const std::vector<uint64_t> sizes = parse_bucket_sizes(o.bucket_bytes);
  const model::DdpWorkload w = workload_of(o);

  ResultsOutput output(cluster_options.output, run_record("step", context, &cluster, n));
  const model::BucketSweep sweep = price_sweep(cluster, o, w, sizes);

  fmt::print("# topomodel step ({})\n", context.command_line);
  fmt::print("# cluster   {}\n", cluster_line(cluster));
  print_ddp_header(w, sweep.steps.front(), n, o.algo);
  print_ddp_table(sweep);
  context.exit_status = 0;
  output.write({{&ddp_steps_table(), ddp_rows(output.run_id(), cluster, o.algo, sweep)}}, context.exit_status);
}

}  // namespace ringbench::topomodel
