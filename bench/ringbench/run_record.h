#pragma once
// ringbench's two tables in the results file, and the metadata of a run.
//
//   /runs     one row per run: who, where, what was asked, and how it ended
//   /results  one row per (run, collective, algorithm, size), keyed by run_id
//   /links    one row per (run, link class, size): the point-to-point probe (machine_probes.h)
//
// A run's /runs row is written when it starts (exit_status "running") and replaced when it ends;
// its /results rows are committed size by size, so a run that fails or is killed keeps every
// size it completed, and its /runs row says "running" forever (read: killed).

#include <cmath>
#include <string>
#include <vector>

#include "bench_options.h"
#include "exchange_ladder.h"
#include "machine_probes.h"
#include "measurement.h"
#include "run_conditions.h"
#include "results/results_file.h"

namespace ringbench {

struct RunRecord {
  std::string run_id;
  std::string start_utc, end_utc;
  std::string version, git_revision;
  std::string mpi_library, mca_parameters;
  int world_size = 1;
  std::string hosts;
  std::string cpu_model, kernel;
  std::string socket_buffers;  // the run's request and the kernel's limits
  std::string timing_method;
  std::string command_line;
  std::string interface;
  std::string interface_reason;  // why that one: "IPoIB preferred", "--iface =eth0" (transport/interfaces.h)
  double plain_pair_GBps = 0;
  std::string plain_pair_path;
  std::string exit_status = "running";
  RunConditions conditions;
  double median_ci_width = std::nan("");  // known when the run ends
  // Schema 3: the build (from CMake), the HDF5 library, the Slurm job (empty outside one), and
  // every option, one value per column (run_record.cpp's option_columns).
  std::string compiler, compiler_flags, build_type, hdf5_library;
  std::string slurm_job_id, slurm_array_job_id, slurm_array_task_id;
  results::Row options;
  // Schema 4: one core's reduction and copy rates (machine_probes.h); NaN without the link test.
  double reduce_GBps = std::nan(""), copy_GBps = std::nan("");
};

const results::Table& runs_table();
const results::Table& results_table();
const results::Table& samples_table();  // --samples
const results::Table& links_table();
const results::Table& exchanges_table();  // schema 9: exchange_ladder.h

std::vector<results::Row> link_rows(const std::string& run_id, const std::vector<LinkPoint>& points);
std::vector<results::Row> exchange_rows(const std::string& run_id, const std::vector<ExchangePoint>& points);

// The /samples rows of one /results row (`row`: its index within the run).
std::vector<results::Row> sample_rows(const std::string& run_id, int row, const SizeResult& result);

results::Row to_row(const RunRecord& run);
results::Row to_row(const std::string& run_id, const SizeResult& result, const BenchOptions& options, int world_size);

// Fills what this machine and the environment say about the run (CPU, kernel, MCA parameters,
// socket buffer limits, UTC start time, a new run id).
RunRecord describe_run(const BenchOptions& options, const std::string& mpi_library);
std::string utc_now();

}  // namespace ringbench
