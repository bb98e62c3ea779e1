// topomodel predict RESULTS.h5 [--run ID] [--machine machine.json]: every row our transport
// measured in a run, predicted from the specification's plans on the calibrated machine
// (model/plan_cost.h), written to /model/predictions with a summary by algorithm and size range.
// The machine comes from --machine, or is calibrated on the run's own link test and probes: never
// from the rows it predicts.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "calibration.h"
#include "commands.h"
#include "model/cluster_json.h"
#include "model/plan_cost.h"
#include "results_output.h"
#include "spec/algorithm_spec.h"

namespace ringbench::topomodel {
namespace {

struct PredictOptions {
  std::string results;
  std::string run;
  std::string machine;
  bool ignore_load = false;
  bool ignore_skew = false;
  bool row_link = false;
  LinkFitKind link_fit = kDefaultLinkFit;
};

struct Predicted {
  std::vector<Prediction> rows;
  size_t skipped = 0;  // rows with no plan of ours (mpi, auto) or no median
};

// --row-link: the machine's exchange copy rates scaled, for this row, by the ratio of the row's own
// ring send/receive rate to the curve's rate at the row's chunk. The curve keeps its shape across
// sizes; its level is the speed the host ran at during the row. Unchanged where the machine has no
// curve or the row no link figure.
model::Cluster at_row_speed(const model::Cluster& machine, const MeasuredRun& run, const MeasuredRow& row) {
  auto& curve = machine.host_cpu.exchange_copy_rates;
  if (curve.empty() || !row.exchange) return machine;
  const std::vector<model::ExchangeSample> own = {*row.exchange};
  const auto rate = model::exchange_copy_rates(own, std::max(1, row.world_size / std::max(1, run.hosts)),
                                               std::max(1, run.cores_per_host), machine.host_cpu.copy_GBps,
                                               machine.scale_up.latency_us);
  const double at_chunk = model::rate_at(curve, row.exchange->chunk_bytes);
  if (rate.empty() || !(at_chunk > 0)) return machine;
  model::Cluster scaled = machine;
  for (auto& p : scaled.host_cpu.exchange_copy_rates)
    p.GBps = std::min(p.GBps * rate[0].GBps / at_chunk, machine.host_cpu.copy_GBps);
  return scaled;
}

// The skew the ranks enter each call with (model/plan_cost.h): the run's barrier skew where its ranks
// shared one clock. Across hosts ringbench records an upper bound instead (the slowest rank's empty
// call, barrier latency and all: run_conditions.h), which would hand the first ranks a head start
// they never had, so there they enter together.
double entry_skew_us(const MeasuredRun& run, const PredictOptions& options) {
  return options.ignore_skew || run.hosts > 1 ? 0 : run.barrier_skew_us;
}

Predicted predict(const model::Cluster& machine, const MeasuredRun& run, const std::vector<MeasuredRow>& rows,
                  const PredictOptions& options) {
  Predicted out;
  for (const auto& row : rows) {
    const spec::AlgorithmSpec* algorithm = spec::find_algorithm_spec(row.collective, row.algorithm);
    if (algorithm == nullptr || !(row.median_us > 0) || row.count == 0) {
      ++out.skipped;
      continue;
    }
    size_t element_bytes = dtype_bytes(run.dtype);
    if (element_bytes == 0) element_bytes = std::max<uint64_t>(1, row.bytes / row.count);
    const double share = options.ignore_load ? 0 : row.foreign_cpu_share;
    model::PlanCall call{algorithm, row.count, element_bytes, run.root,
                         model::block_placement(row.world_size, run.hosts), run.pipeline_bytes, share};
    call.segment_bytes = row.segment_bytes;
    call.entry_skew_us = entry_skew_us(run, options);
    out.rows.push_back({run.run_id, row.collective, row.algorithm, row.world_size, run.hosts, row.bytes, row.median_us,
                        model::plan_cost(options.row_link ? at_row_speed(machine, run, row) : machine, call).time_us,
                        share});
  }
  return out;
}

const char* size_range(uint64_t bytes) {
  if (bytes < (64u << 10)) return "< 64 KiB";
  return bytes < (1u << 20) ? "64 KiB - 1 MiB" : ">= 1 MiB";
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_rows(const std::vector<Prediction>& rows) {
  fmt::print("# {:<13} {:<22} {:>3} {:>10} {:>12} {:>12} {:>8}\n", "collective", "algorithm", "N", "bytes", "measured_us",
             "predicted_us", "error");
  for (const auto& p : rows)
    fmt::print("  {:<13} {:<22} {:>3} {:>10} {:>12.2f} {:>12.2f} {:>+7.1f}%\n", p.collective, p.algorithm, p.world_size,
               p.bytes, p.measured_us, p.predicted_us, 100 * p.error());
}

void print_summary(const std::vector<Prediction>& rows) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;
  for (const auto& p : rows) {
    const std::string algorithm = p.collective + " " + p.algorithm;
    groups[{algorithm, size_range(p.bytes)}].push_back(std::abs(p.error()));
    if (p.bytes >= (64u << 10)) groups[{algorithm, "all >= 64 KiB"}].push_back(std::abs(p.error()));
  }
  fmt::print("#\n# absolute error |predicted / measured - 1| by algorithm and size range\n");
  fmt::print("# {:<36} {:<15} {:>5} {:>8} {:>8}\n", "algorithm", "sizes", "rows", "median", "worst");
  for (const auto& [key, errors] : groups)
    fmt::print("  {:<36} {:<15} {:>5} {:>7.1f}% {:>7.1f}%\n", key.first, key.second, errors.size(),
               100 * median_of(errors), 100 * *std::max_element(errors.begin(), errors.end()));
}

model::Cluster machine_for(const PredictOptions& options, const MeasuredRun& run) {
  if (!options.machine.empty()) return model::load_cluster_file(options.machine);
  const Calibration calibration = calibrate(run, options.link_fit);
  fmt::print("{}", calibration_report(calibration));
  return calibration.machine;
}

}  // namespace

void add_predict_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand(
      "predict", "predict every row a ringbench run measured from the plans and a calibrated machine; report the error");
  auto options = std::make_shared<PredictOptions>();
  command->add_option("results", options->results, "ringbench's HDF5 results file (its /model/predictions gets the rows)")
      ->required();
  command->add_option("--run", options->run, "run id whose rows to predict (default: the newest run with a link test)");
  command->add_option("--machine", options->machine,
                      "machine file from `topomodel calibrate` (default: calibrate on the run's own link test and probes)");
  add_link_fit_option(*command, &options->link_fit);
  command->add_flag("--ignore-load", options->ignore_load,
                    "price every row on all of the host's cores (default: less the share other processes took during "
                    "the row, which ringbench records)");
  command->add_flag("--ignore-skew", options->ignore_skew,
                    "price every row with its ranks entering together (default, on one host: entering as far apart "
                    "as the run's barrier skew, the call timed from the last rank's entry, as ringbench times it)");
  command->add_flag("--row-link", options->row_link,
                    "scale the exchange copy rates, row by row, to the speed of the row's own link test: separates "
                    "the host changing speed between rows from the model's own error (a ring row is then nearly "
                    "its link test, so it checks little)");
  command->callback([options, &context] {
    const std::string run_id = pick_run(options->results, run_option(options->run));
    const MeasuredRun run = load_run(options->results, run_id);
    const model::Cluster machine = machine_for(*options, run);
    ResultsOutput output(options->results, run_record("predict", context, &machine, machine.gpus()));
    const Predicted predicted =
        predict(machine, run, load_rows(options->results, run_id, dtype_bytes(run.dtype)), *options);
    fmt::print("# predicted {} row(s) of run {} on machine {} ({} row(s) without a plan of ours: mpi, auto)\n",
               predicted.rows.size(), run_id, machine.name, predicted.skipped);
    print_rows(predicted.rows);
    if (!predicted.rows.empty()) print_summary(predicted.rows);
    output.write({{&predictions_table(), prediction_rows(output.run_id(), predicted.rows)}}, 0);
    fmt::print("# results       : /model/predictions appended to {}\n", options->results);
  });
}

}  // namespace ringbench::topomodel
