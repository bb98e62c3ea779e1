#pragma once
// Published training runs the step model is fitted on and checked against (published_runs.cpp),
// the counterpart of published_figures.h for whole training steps.
//
// The achieved fraction of a GPU's peak (the one compute parameter) is fitted once per GPU type
// on exactly one published run; every other run is a check the fit never saw, and must land
// within kCheckTolerance (20%) in the source's own FLOP convention (HFU for Megatron-LM, which
// counts recomputation; MFU for Llama 3). Ranking checks ask whether the model's fastest
// placement among a published sweep's is the published best.

#include <string>
#include <vector>

#include "published_figures.h"
#include "step.h"

namespace ringbench::model {

struct RunRow {
  std::string name;        // "GPT-3 174.6B, 768 A100, tp8 pp12 dp8"
  CaseRole role;
  std::string gpu;
  std::string convention;  // "HFU" or "MFU"
  std::string source;
  double published_tflops;  // per GPU
  double model_tflops;
  double error;  // (model - published) / published
  StepResult step;
  bool pass() const;
};

struct RankingRow {
  std::string name;
  std::string source;
  std::string published_best;  // e.g. "tp8 pp8"
  std::string model_best;
  std::vector<std::pair<std::string, double>> model_tflops;  // per candidate, in the source's convention
  // A miss the model is known to make, with why; reported, not counted as a failure.
  std::string known_miss;
  bool pass() const { return published_best == model_best; }
};

// Every throughput case (fitted first) with the model's figure.
std::vector<RunRow> run_validation_table();
std::vector<RankingRow> ranking_checks();

// The achieved fraction of peak for `gpu`, fitted on its one fitted run (thread-safe, computed
// once). GPUs without a published run: B200 and L40S use the H100 fraction (unchecked); "test"
// (the hand-sized test GPU) is 0.5.
double compute_efficiency(const std::string& gpu);

}  // namespace ringbench::model
