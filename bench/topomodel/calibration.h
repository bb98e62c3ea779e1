#pragma once
// A measured machine from one ringbench run (topomodel calibrate; predict calibrates the same way
// when no --machine is given): each link class fitted on the run's /links figures
// (model/link_fit.h), the cores and one core's rates from its /runs row, written as a cluster
// (model/measured_machine.h). Fitted on the link test and the probes only, never on /results.
// Also the two /model tables these commands write.

#include <string>
#include <vector>

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
  std::vector<ClassFit> fits;
  model::Cluster machine;
};

// InputError when the run has no same-host link test (one rank per host) or no probes.
Calibration calibrate(const MeasuredRun& run);

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
