#pragma once
// The HDF5 tables topomodel writes, under /model in the shared results file
// (bench/results/results_file.h). Every row carries run_id, which joins it to its /model/runs
// row (start/end time, version, git revision, command line, full cluster description).
// Column names carry units: time_us, busbw_GBps (GB = 1e9 bytes), bytes.

#include <string>
#include <vector>

#include "model/cluster.h"
#include "model/collective_cost.h"
#include "model/failures.h"
#include "model/published_runs.h"
#include "model/step.h"
#include "model/published_figures.h"
#include "model/sweep.h"
#include "results/results_file.h"

namespace ringbench::topomodel {

struct RunRecord {
  std::string run_id;
  std::string command;       // "collective", "sweep", "validate"
  std::string command_line;  // argv joined with spaces
  std::string start_utc, end_utc;  // ISO 8601, e.g. 2024-05-01T12:00:00Z
  std::string cluster_name;
  std::string cluster_json;  // model/cluster_json.h: every field, so the run can be redone
  int64_t gpus = 0;
  int64_t exit_status = 0;
};

const results::Table& runs_table();
results::Row run_row(const RunRecord& run);

const results::Table& collectives_table();
// One row per algorithm; `placement` and `order` describe the groups (e.g. "tp8 dp16").
std::vector<results::Row> collective_rows(const std::string& run_id, const model::Cluster& cluster,
                                          const std::string& placement, const std::string& order,
                                          const std::vector<model::CollectiveCost>& costs, int best);

const results::Table& placements_table();
std::vector<results::Row> placement_rows(const std::string& run_id, const model::Cluster& cluster,
                                         const std::vector<model::PlacementResult>& results);

const results::Table& validation_table_def();
std::vector<results::Row> validation_rows(const std::string& run_id, const std::vector<model::ValidationRow>& rows);

// Training steps (topomodel step, topomodel sweep --model): one row per placement.
const results::Table& steps_table();
std::vector<results::Row> step_rows(const std::string& run_id, const model::Cluster& cluster, const model::Transformer& m,
                                    const std::vector<model::StepResult>& results, bool ranked);
const results::Table& rejected_table();
std::vector<results::Row> rejected_rows(const std::string& run_id,
                                        const std::vector<model::TransformerWorkload::Rejection>& rejected);
const results::Table& failures_table();
std::vector<results::Row> failure_rows(const std::string& run_id, const model::Cluster& cluster,
                                       const model::Placement& p, const std::vector<model::BlastRadius>& rows);
const results::Table& goodput_table();
std::vector<results::Row> goodput_rows(const std::string& run_id, const model::CheckpointModel& ck, double mtbf_s,
                                       double best_s, const std::vector<std::pair<double, double>>& rows);
const results::Table& run_validation_table_def();
std::vector<results::Row> run_validation_rows(const std::string& run_id, const std::vector<model::RunRow>& runs,
                                              const std::vector<model::RankingRow>& rankings);

// UTC now, ISO 8601 with seconds.
std::string utc_now();

}  // namespace ringbench::topomodel
