#pragma once
// Text output, nccl-tests style: '#'-prefixed header lines, a two-line column header with units,
// then one row per line, so `grep -v '^#'` leaves only the table.

#include <string>
#include <vector>

#include "model/attention_core.h"
#include "model/cluster.h"
#include "model/collective_cost.h"
#include "model/failures.h"
#include "model/gemm.h"
#include "model/published_figures.h"
#include "model/published_runs.h"
#include "model/step.h"
#include "model/sweep.h"

namespace ringbench::topomodel {

// "0-7", or "0,8,16,...,56" for strided groups.
std::string describe_members(const std::vector<int>& members);
std::string cluster_line(const model::Cluster& c);

void print_collective_table(const std::vector<model::CollectiveCost>& costs, int best);
void print_sweep_table(const std::vector<model::PlacementResult>& results, size_t top);
void print_validation_table(const std::vector<model::ValidationRow>& rows);

// Training-step output (issue 7).
void print_workload_lines(const model::Transformer& m, const model::TrainingConfig& c, const model::Cluster& cluster);
void print_step_breakdown(const model::StepResult& r);
void print_step_table(const std::vector<model::StepResult>& results, size_t top);
void print_rejections(const std::vector<model::TransformerWorkload::Rejection>& rejected, size_t top);
void print_blast_table(const std::vector<model::BlastRadius>& rows);
// (interval seconds, goodput) rows; the one equal to `best` is marked.
void print_goodput_table(const std::vector<std::pair<double, double>>& rows, double best);
// The GEMM model against published A100 GEMMs and the measured H200 data (model/gemm.h).
void print_gemm_validation(const std::vector<model::GemmCheck>& checks,
                           const std::vector<model::ShapeClassError>& h200);
// Megatron's unfused attention core against its published A100 timings (model/attention_core.h).
void print_attention_core_validation(const std::vector<model::AttentionCoreCheck>& checks);
void print_run_validation(const std::vector<model::RunRow>& runs, const std::vector<model::RankingRow>& rankings,
                          const model::TrendRow& trend);

}  // namespace ringbench::topomodel
