#pragma once
// Published training runs the step model is fitted on and checked against (published_runs.cpp),
// the counterpart of published_figures.h for whole training steps.
//
// Nothing here is fitted any more: compute comes from shapes (compute.h), whose only fitted
// constants are solved on GEMM and attention kernel benchmarks (gemm.h), and the collectives'
// efficiencies on nccl-tests figures (published_figures.h). So every run is a check, and must
// land within kCheckTolerance (20%) in the source's own FLOP convention (HFU for Megatron-LM,
// which counts recomputation; MFU for Llama 3). Ranking checks ask whether the model's fastest
// placement among a published sweep's is the published best, counted only where the model's
// margin exceeds the GEMM model's stated error (else a tie); the trend check compares the ratio of
// the largest to the smallest model's per-GPU throughput in Megatron-LM's Table 1.

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
  bool pass() const;  // within kCheckTolerance and fits in memory
};

struct RankingRow {
  std::string name;
  std::string source;
  std::string published_best;  // e.g. "tp8 pp8"
  std::string model_best;
  std::vector<std::pair<std::string, double>> model_tflops;  // per candidate, in the source's convention
  double margin = 0;     // model: (best - runner-up) / runner-up
  double tolerance = 0;  // the GEMM model's stated error: a smaller margin is a tie
  bool tie() const { return margin <= tolerance; }
  bool picked() const { return published_best == model_best; }
  bool pass() const { return picked() || tie(); }  // a miss inside the error is a tie, not a failure
};

inline constexpr double kTrendTolerance = 0.05;
struct TrendRow {
  std::string name;
  double published_ratio = 0, model_ratio = 0, error = 0;
  bool pass() const;
};

// Every throughput case with the model's figure.
std::vector<RunRow> run_validation_table();
std::vector<RankingRow> ranking_checks();
// Megatron-LM Table 1: largest / smallest model's per-GPU throughput (from run_validation_table's rows).
TrendRow trend_check(const std::vector<RunRow>& runs);

// A configuration that must NOT fit in memory, so the memory model cannot be made lenient to pass.
struct NegativeMemoryCheck {
  std::string name, why;
  MemoryUse memory;
  bool pass() const { return !memory.fits(); }
};
NegativeMemoryCheck negative_memory_check();

// The GEMM model's stated error on A100 (median |error| of the published GEMM checks).
double gemm_stated_error();

}  // namespace ringbench::model
