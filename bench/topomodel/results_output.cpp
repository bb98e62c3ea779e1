#include "results_output.h"

namespace ringbench::topomodel {

ResultsOutput::ResultsOutput(std::filesystem::path file, RunRecord run) : file_(std::move(file)), run_(std::move(run)) {
  if (!enabled()) return;
  results::check_writable(file_);
  run_.run_id = results::new_run_id();
}

void ResultsOutput::write(const std::vector<TableRows>& tables, int exit_status) {
  if (!enabled()) return;
  run_.end_utc = utc_now();
  run_.exit_status = exit_status;
  results::commit(file_, [&](results::Transaction& t) {
    const std::vector<results::Row> run_rows = {run_row(run_)};
    t.append(runs_table(), run_rows);
    for (const auto& table : tables) {
      if (!table.rows.empty()) t.append(*table.table, table.rows);
    }
  });
}

}  // namespace ringbench::topomodel
