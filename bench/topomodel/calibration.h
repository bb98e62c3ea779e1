#pragma once
// A measured machine from one ringbench run (topomodel calibrate; predict calibrates the same way
// when no --machine is given): each link class fitted on the run's /links figures
// (model/link_fit.h), the cores and one core's rates from its /runs row, written as a cluster
// (model/measured_machine.h). Fitted on the link test and the probes only, never on /results.
// Also the two /model tables these commands write.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "measured_run.h"
#include "model/cluster.h"
#include "model/link_fit.h"
#include "results/results_file.h"

namespace ringbench::topomodel {

struct ClassFit {
  std::string link_class;  // "same host", "across hosts"
  std::vector<model::LinkSample> samples;
  model::LinkFit fit;
};

struct Calibration {
  MeasuredRun run;
  const char* fit_name = "";
  std::vector<ClassFit> fits;
  model::Cluster machine;
};

// How each link class is fitted (model/link_fit.h): least squares over every size, with a
// per-piece overhead (fit_link), or the two segments `--algo auto` uses (fit_link_two_segment):
// the latency from the small sizes, the bandwidth from the slope of the large ones. A shaper that
// lets a burst through at wire speed (tbf) bends the middle sizes, which pull the least-squares
// line but not the slope of the largest.
// Two-segment by default: one fit for calibrate, predict and auto. On the two namespace hosts
// (1 Gbit/s tbf between them) least squares gave 0.33-2.5 GB/s for a 0.12 GB/s link.
enum class LinkFitKind { LeastSquares, TwoSegment };
inline constexpr LinkFitKind kDefaultLinkFit = LinkFitKind::TwoSegment;
// `least-squares` or `two-segment`; nullopt for anything else.
std::optional<LinkFitKind> parse_link_fit(std::string_view name);
const char* to_string(LinkFitKind kind);
// Adds `--link-fit` (calibrate's and predict's flag) to a command, writing into *kind.
void add_link_fit_option(CLI::App& command, LinkFitKind* kind);

// InputError when the run has no same-host link test (one rank per host) or no probes.
Calibration calibrate(const MeasuredRun& run, LinkFitKind fit_kind = kDefaultLinkFit);

// The fit per class and every point's residual, '#'-prefixed like ringbench's report.
std::string calibration_report(const Calibration& calibration);

// /model/calibration: one row per link-test point (fitted, residual, used), with its class's
// parameters; run_id joins /model/runs, measured_run_id the ringbench run in /runs.
const results::Table& calibration_table();
std::vector<results::Row> calibration_rows(const std::string& run_id, const Calibration& calibration);

// One predicted row of /model/predictions.
struct Prediction {
  std::string measured_run_id, collective, algorithm;
  int world_size = 0, hosts = 1;
  uint64_t bytes = 0;
  double measured_us = 0, predicted_us = 0;
  double foreign_cpu_share = 0;  // the share of the CPU the prediction left to other processes
  double error() const { return predicted_us / measured_us - 1; }
};
const results::Table& predictions_table();
std::vector<results::Row> prediction_rows(const std::string& run_id, const std::vector<Prediction>& predictions);

}  // namespace ringbench::topomodel
