#pragma once
// One ringbench run read back from its results file, for `topomodel calibrate` and `predict`: the
// probes and link test a machine is fitted on (/runs, /links), and the rows it predicts
// (/results). Reading only; errors are InputError naming the file and what is missing.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/exchange_rate.h"
#include "model/link_fit.h"

namespace ringbench::topomodel {

struct MeasuredRun {
  std::string run_id;
  std::string start_utc;
  std::string cpu_model;
  int world_size = 0;
  int hosts = 1;
  int cores_per_host = 1;  // rank 0's host: its ranks / ranks_per_core
  int root = 0;
  std::string dtype;
  uint64_t pipeline_bytes = 0;
  double reduce_GBps = 0, copy_GBps = 0;
  double barrier_skew_us = 0;  // how far apart its ranks left a barrier (0 where not recorded)
  // Per link class ("same host", "across hosts"), the run's ping-pong figures.
  std::vector<std::pair<std::string, std::vector<model::LinkSample>>> links;
  // Per /results row with a link figure, its ring send/receive: the chunk and the per-chunk time
  // (link_bound_us x chunk / bound_bytes, the inverse of how ringbench derived link_bound_us).
  std::vector<model::ExchangeSample> exchanges;
};

struct MeasuredRow {
  std::string collective, algorithm;
  int world_size = 0;
  uint64_t bytes = 0, count = 0;
  double median_us = 0;
  double foreign_cpu_share = 0;  // other processes' share of the host's CPU meanwhile (0 if not recorded)
  std::optional<model::ExchangeSample> exchange;  // its own ring send/receive, if it had a link test
  // The pipelined plans' segment it ran with (schema 8); 0 where not pipelined or not recorded,
  // which for a row written before schema 8 is what it ran with: the specification's default.
  uint64_t segment_bytes = 0;
};

// --run's value as pick_run takes it: empty means not given.
std::optional<std::string> run_option(const std::string& run);

// `run` when given (InputError if the file has no such run, or no link test for it); else the
// newest run (latest start_utc) that has /links rows.
std::string pick_run(const std::filesystem::path& file, const std::optional<std::string>& run);
MeasuredRun load_run(const std::filesystem::path& file, const std::string& run_id);
// The run's /results rows, in file order. `element_bytes` 0: each row's bytes / count.
std::vector<MeasuredRow> load_rows(const std::filesystem::path& file, const std::string& run_id, size_t element_bytes);

// Bytes per element of a ringbench --dtype name (0 if unknown).
size_t dtype_bytes(const std::string& dtype);

}  // namespace ringbench::topomodel
