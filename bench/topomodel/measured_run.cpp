#include "measured_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "model/error.h"
#include "results/results_file.h"

namespace ringbench::topomodel {
namespace {

using results::TableContents;
using results::Value;

TableContents read(const std::filesystem::path& file, const char* table) {
  if (!std::filesystem::exists(file)) throw model::InputError(fmt::format("results file {}: no such file", file.string()));
  try {
    return results::read_table(file, table);
  } catch (const results::ResultsError& e) {
    throw model::InputError(fmt::format("results file {}: cannot read {}: {}", file.string(), table, e.what()));
  }
}

// A cell as text, or as a number whatever its stored type (missing numbers are NaN).
std::string text(const TableContents& t, const results::Row& row, const char* column) {
  const Value& v = row[t.column(column)];
  return std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : std::string();
}
double number(const TableContents& t, const results::Row& row, const char* column) {
  return std::visit(
      [](const auto& x) -> double {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) return std::nan("");
        else return static_cast<double>(x);
      },
      row[t.column(column)]);
}

bool has_column(const TableContents& t, const char* column) {
  return std::any_of(t.columns.begin(), t.columns.end(), [&](const auto& c) { return c.name == column; });
}

const results::Row& run_row(const TableContents& runs, const std::string& run_id, const std::filesystem::path& file) {
  for (const auto& row : runs.rows)
    if (text(runs, row, "run_id") == run_id) return row;
  throw model::InputError(fmt::format("results file {}: no run {} in /runs", file.string(), run_id));
}

void read_probes(const TableContents& runs, const results::Row& row, MeasuredRun& run) {
  run.start_utc = text(runs, row, "start_utc");
  run.cpu_model = text(runs, row, "cpu_model");
  run.world_size = static_cast<int>(number(runs, row, "world_size"));
  const std::string hosts = text(runs, row, "hosts");
  run.hosts = hosts.empty() ? 1 : static_cast<int>(std::count(hosts.begin(), hosts.end(), ',')) + 1;
  const int ranks_per_host = std::max(1, run.world_size / run.hosts);
  const double per_core = has_column(runs, "ranks_per_core") ? number(runs, row, "ranks_per_core") : std::nan("");
  run.cores_per_host = per_core > 0 ? std::max(1, static_cast<int>(std::lround(ranks_per_host / per_core))) : ranks_per_host;
  if (has_column(runs, "reduce_GBps")) run.reduce_GBps = number(runs, row, "reduce_GBps");
  if (has_column(runs, "copy_GBps")) run.copy_GBps = number(runs, row, "copy_GBps");
  if (has_column(runs, "barrier_skew_us")) run.barrier_skew_us = std::max(0.0, number(runs, row, "barrier_skew_us"));
  if (has_column(runs, "opt_pipeline_bytes")) run.pipeline_bytes = static_cast<uint64_t>(number(runs, row, "opt_pipeline_bytes"));
  if (has_column(runs, "opt_root")) run.root = std::max(0, static_cast<int>(number(runs, row, "opt_root")));
  if (has_column(runs, "opt_dtype")) run.dtype = text(runs, row, "opt_dtype");
}

// A row's ring send/receive (measurement.cpp's link_us): the chunk is ceil(count / N) elements,
// and link_bound_us = bound_bytes / (chunk / chunk_us). None without a link figure.
std::optional<model::ExchangeSample> row_exchange(const TableContents& t, const results::Row& row, size_t element_bytes) {
  if (!has_column(t, "link_bound_us") || !has_column(t, "bound_bytes")) return std::nullopt;
  const double bound_us = number(t, row, "link_bound_us"), bound_bytes = number(t, row, "bound_bytes");
  const auto count = static_cast<uint64_t>(number(t, row, "count"));
  const auto world = static_cast<uint64_t>(number(t, row, "world_size"));
  if (!(bound_us > 0) || !(bound_bytes > 0) || count == 0 || world < 2) return std::nullopt;
  const auto bytes = static_cast<uint64_t>(number(t, row, "bytes"));
  const uint64_t element = element_bytes ? element_bytes : std::max<uint64_t>(1, bytes / count);
  const uint64_t chunk = (count + world - 1) / world * element;
  return model::ExchangeSample{chunk, bound_us * static_cast<double>(chunk) / bound_bytes};
}

std::vector<model::ExchangeSample> read_exchanges(const TableContents& t, const std::string& run_id, size_t element_bytes) {
  std::vector<model::ExchangeSample> exchanges;
  for (const auto& row : t.rows)
    if (text(t, row, "run_id") == run_id)
      if (const auto e = row_exchange(t, row, element_bytes)) exchanges.push_back(*e);
  return exchanges;
}

// The run's exchange ladder (schema 9: ringbench's exchange_ladder.h), the chunks beyond its rows'
// own, and (schema 10) the plain and reducing exchanges side by side, in the order measured. None
// in a file written before it, or for a run on several hosts.
std::vector<model::ExchangeSample> read_ladder(const std::filesystem::path& file, const std::string& run_id) {
  std::vector<model::ExchangeSample> exchanges;
  TableContents t;
  try {
    t = results::read_table(file, "/exchanges");
  } catch (const results::ResultsError&) {
    return exchanges;
  }
  const bool has_reduces = has_column(t, "reduces");
  for (const auto& row : t.rows)
    if (text(t, row, "run_id") == run_id)
      exchanges.push_back({static_cast<uint64_t>(number(t, row, "chunk_bytes")), number(t, row, "chunk_us"),
                           has_reduces && number(t, row, "reduces") == 1});
  return exchanges;
}

}  // namespace

size_t dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {{"float32", 4}, {"float64", 8}, {"int32", 4}, {"int64", 8},
                                                      {"float16", 2}, {"bfloat16", 2}, {"int8", 1}, {"uint8", 1}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::optional<std::string> run_option(const std::string& run) {
  return run.empty() ? std::nullopt : std::optional<std::string>(run);
}

std::string pick_run(const std::filesystem::path& file, const std::optional<std::string>& run) {
  const TableContents links = read(file, "/links");
  std::map<std::string, bool> linked;
  for (const auto& row : links.rows) linked[text(links, row, "run_id")] = true;
  if (run) {
    if (!linked.count(*run))
      throw model::InputError(fmt::format("--run {}: results file {} has no link test for it (/links)", *run, file.string()));
    return *run;
  }
  const TableContents runs = read(file, "/runs");
  std::string best, best_start;
  for (const auto& row : runs.rows) {
    const std::string id = text(runs, row, "run_id"), start = text(runs, row, "start_utc");
    if (linked.count(id) && start >= best_start) best = id, best_start = start;
  }
  if (best.empty()) throw model::InputError(fmt::format("results file {}: no run with a link test (/links)", file.string()));
  return best;
}

MeasuredRun load_run(const std::filesystem::path& file, const std::string& run_id) {
  MeasuredRun run;
  run.run_id = run_id;
  const TableContents runs = read(file, "/runs");
  read_probes(runs, run_row(runs, run_id, file), run);
  const TableContents links = read(file, "/links");
  for (const auto& row : links.rows) {
    if (text(links, row, "run_id") != run_id) continue;
    const std::string link_class = text(links, row, "link_class");
    auto it = std::find_if(run.links.begin(), run.links.end(), [&](const auto& l) { return l.first == link_class; });
    if (it == run.links.end()) it = run.links.insert(run.links.end(), {link_class, {}});
    it->second.push_back({static_cast<uint64_t>(number(links, row, "bytes")), number(links, row, "one_way_us")});
  }
  try {
    run.exchanges = read_exchanges(results::read_table(file, "/results"), run_id, dtype_bytes(run.dtype));
  } catch (const results::ResultsError&) {
    // A run stopped after its link test, before its first row: calibrate still fits the pair.
  }
  for (const model::ExchangeSample& e : read_ladder(file, run_id)) run.exchanges.push_back(e);
  return run;
}

std::vector<MeasuredRow> load_rows(const std::filesystem::path& file, const std::string& run_id, size_t element_bytes) {
  const TableContents t = read(file, "/results");
  std::vector<MeasuredRow> rows;
  const bool has_share = has_column(t, "foreign_cpu_share");
  const bool has_segment = has_column(t, "segment_bytes");
  for (const auto& row : t.rows) {
    if (text(t, row, "run_id") != run_id) continue;
    // At most 95%: a row where other processes took all the CPU would otherwise price as endless.
    const double share = has_share ? number(t, row, "foreign_cpu_share") : 0;
    rows.push_back({text(t, row, "collective"), text(t, row, "algorithm"), static_cast<int>(number(t, row, "world_size")),
                    static_cast<uint64_t>(number(t, row, "bytes")), static_cast<uint64_t>(number(t, row, "count")),
                    number(t, row, "t_median_us"), std::isfinite(share) ? std::clamp(share, 0.0, 0.95) : 0.0,
                    row_exchange(t, row, element_bytes),
                    has_segment ? static_cast<uint64_t>(number(t, row, "segment_bytes")) : 0});
  }
  return rows;
}

}  // namespace ringbench::topomodel
