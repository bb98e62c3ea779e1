#include "calibration.h"

#include <fmt/format.h>

#include "model/error.h"
#include "model/measured_machine.h"

namespace ringbench::topomodel {

using results::Column;
using results::ColumnType;
using results::Row;
using results::Table;

namespace {

const ClassFit* find_class(const std::vector<ClassFit>& fits, const char* link_class) {
  for (const auto& f : fits)
    if (f.link_class == link_class) return &f;
  return nullptr;
}

model::LinkFit fit_class(LinkFitKind kind, const std::vector<model::LinkSample>& samples, uint64_t piece_bytes,
                         const std::string& link_class) {
  return kind == LinkFitKind::TwoSegment ? model::fit_link_two_segment(samples, link_class)
                                         : model::fit_link(samples, piece_bytes, link_class);
}

}  // namespace

std::optional<LinkFitKind> parse_link_fit(std::string_view name) {
  if (name == "least-squares") return LinkFitKind::LeastSquares;
  if (name == "two-segment") return LinkFitKind::TwoSegment;
  return std::nullopt;
}

const char* to_string(LinkFitKind kind) { return kind == LinkFitKind::TwoSegment ? "two-segment" : "least-squares"; }

void add_link_fit_option(CLI::App& command, LinkFitKind* kind) {
  command
      .add_option_function<std::string>(
          "--link-fit",
          [kind](const std::string& name) {
            const auto parsed = parse_link_fit(name);
            if (!parsed) throw CLI::ValidationError("--link-fit", "expected least-squares or two-segment, got " + name);
            *kind = *parsed;
          },
          "how each link class is fitted: least-squares (latency, bandwidth and a per-piece overhead over every size) "
          "or two-segment (--algo auto's: latency from the small sizes, bandwidth from the slope of the large ones)")
      ->type_name("least-squares|two-segment")
      ->default_str(to_string(*kind));
}

Calibration calibrate(const MeasuredRun& run, LinkFitKind fit_kind) {
  Calibration c;
  c.run = run;
  c.fit_name = to_string(fit_kind);
  for (const auto& [link_class, samples] : run.links)
    c.fits.push_back({link_class, samples, fit_class(fit_kind, samples, run.pipeline_bytes, link_class)});
  const ClassFit* same = find_class(c.fits, "same host");
  const ClassFit* across = find_class(c.fits, "across hosts");
  if (!same)
    throw model::InputError(fmt::format("run {}: no same-host link test (one rank per host?); calibrate needs one",
                                        run.run_id));
  model::MachineMeasurements m;
  m.name = "measured-" + run.run_id.substr(0, 8);
  m.description = fmt::format("calibrated by topomodel calibrate on ringbench run {} ({}, {}), {} rank(s) on {} host(s) of {} core(s)",
                              run.run_id, run.cpu_model, run.start_utc, run.world_size, run.hosts, run.cores_per_host);
  m.hosts = run.hosts;
  m.ranks_per_host = std::max(1, run.world_size / run.hosts);
  m.cores_per_host = run.cores_per_host;
  m.reduce_GBps = run.reduce_GBps;
  m.copy_GBps = run.copy_GBps;
  m.same_host = same->fit.link;
  if (across) m.across_hosts = across->fit.link;
  m.piece_bytes = run.pipeline_bytes;
  // A multi-host run's exchanges are paced by the across-hosts link, not by the copies: one host only.
  if (run.hosts == 1) {
    m.exchange_copy_rates = model::exchange_copy_rates(run.exchanges, m.ranks_per_host, run.cores_per_host, run.copy_GBps,
                                                         m.same_host.latency_us);
    m.exchange_reduce_rates = model::exchange_reduce_rates(run.exchanges, m.ranks_per_host, run.cores_per_host,
                                                             run.reduce_GBps);
  }
  c.machine = model::measured_machine(m);
  return c;
}

std::string calibration_report(const Calibration& c) {
  std::string out = fmt::format(
      "# calibrated on run {} ({} ranks, {} host(s), {} core(s) per host, pipeline piece {} B), {} link fit\n",
      c.run.run_id, c.run.world_size, c.run.hosts, c.run.cores_per_host, c.run.pipeline_bytes, c.fit_name);
  out += fmt::format("# one core      : reduce {:.3f} GB/s, copy {:.3f} GB/s ({} rank(s) per host share {} core(s))\n",
                     c.run.reduce_GBps, c.run.copy_GBps, c.machine.gpus_per_node, c.run.cores_per_host);
  for (const auto& f : c.fits) {
    out += fmt::format("# {:<13} : latency {:.2f} us, bandwidth {:.3f} GB/s, overhead {:.2f} us per piece\n", f.link_class,
                       f.fit.link.latency_us, f.fit.link.bandwidth_GBps, f.fit.link.message_overhead_us);
    out += fmt::format("#   {:>10} {:>12} {:>12} {:>9}\n", "bytes", "measured_us", "fitted_us", "residual");
    for (size_t i = 0; i < f.samples.size(); ++i)
      out += fmt::format("#   {:>10} {:>12.2f} {:>12.2f} {:>+8.1f}%{}\n", f.samples[i].bytes, f.samples[i].one_way_us,
                         f.fit.fitted_us[i], 100 * f.fit.residual[i], f.fit.used[i] ? "" : "  rejected as an outlier");
  }
  const auto& rates = c.machine.host_cpu.exchange_copy_rates;
  if (rates.empty()) {
    out += "# exchange      : no copy rate from the ring send/receive (more than one host, or no link figures);"
           " copies priced at the same-host fit\n";
    return out;
  }
  out += "# exchange      : one core's copy rate while every rank sends and receives, which prices copies and the"
         " same-host link (GB/s at chunk bytes):";
  for (const auto& p : rates) out += fmt::format(" {:.2f} at {}", p.GBps, p.bytes);
  out += "\n";
  const auto& reduce = c.machine.host_cpu.exchange_reduce_rates;
  if (reduce.empty()) {
    out += "# reduction     : no reducing link test in this run; reductions priced at the one-core probe\n";
    return out;
  }
  out += "# reduction     : one core's reduction rate while every rank sends, receives and reduces (the reducing"
         " link test less the plain one), which prices reduced bytes (GB/s at chunk bytes):";
  for (const auto& p : reduce) out += fmt::format(" {:.2f} at {}", p.GBps, p.bytes);
  out += "\n";
  return out;
}

const Table& calibration_table() {
  static const Table t{"/model/calibration",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"measured_run_id", ColumnType::String, "", "the ringbench run fitted on (/runs)"},
                        {"link_class", ColumnType::String, "", "same host, or across hosts"},
                        {"bytes", ColumnType::UInt64, "bytes", "message size of the link-test point"},
                        {"measured_us", ColumnType::Float64, "us", "its one-way time (/links)"},
                        {"fitted_us", ColumnType::Float64, "us", "the fitted link's time for it"},
                        {"residual", ColumnType::Float64, "", "fitted / measured - 1"},
                        {"used", ColumnType::Int64, "", "1 if fitted on, 0 if rejected as an outlier"},
                        {"latency_us", ColumnType::Float64, "us", "the class's fitted latency"},
                        {"bandwidth_GBps", ColumnType::Float64, "GB/s (1e9 bytes/s)", "the class's fitted bandwidth"},
                        {"message_overhead_us", ColumnType::Float64, "us", "the class's fitted overhead per piece"}},
                       "topomodel calibrate: the link fit's residuals, one row per link-test point"};
  return t;
}

std::vector<Row> calibration_rows(const std::string& run_id, const Calibration& c) {
  std::vector<Row> rows;
  for (const auto& f : c.fits)
    for (size_t i = 0; i < f.samples.size(); ++i)
      rows.push_back({run_id, c.run.run_id, f.link_class, f.samples[i].bytes, f.samples[i].one_way_us, f.fit.fitted_us[i],
                      f.fit.residual[i], int64_t{f.fit.used[i] ? 1 : 0}, f.fit.link.latency_us, f.fit.link.bandwidth_GBps,
                      f.fit.link.message_overhead_us});
  return rows;
}

const Table& predictions_table() {
  static const Table t{"/model/predictions",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"measured_run_id", ColumnType::String, "", "the ringbench run whose rows are predicted (/runs)"},
                        {"collective", ColumnType::String, "", "allreduce, allgather, ..."},
                        {"algorithm", ColumnType::String, "", "ring, tree, ..."},
                        {"world_size", ColumnType::Int64, "ranks", "number of ranks"},
                        {"hosts", ColumnType::Int64, "", "hosts the ranks ran on"},
                        {"bytes", ColumnType::UInt64, "bytes", "message size (the whole buffer, as /results)"},
                        {"measured_us", ColumnType::Float64, "us", "the row's median call time (/results t_median_us)"},
                        {"predicted_us", ColumnType::Float64, "us", "the model's time for one call"},
                        {"error", ColumnType::Float64, "", "predicted / measured - 1"},
                        {"foreign_cpu_share", ColumnType::Float64, "fraction",
                         "the row's share of the host's CPU other processes took, left out of the cores (0 with --ignore-load)"}},
                       "topomodel predict: one row per measured row of our transport"};
  return t;
}

std::vector<Row> prediction_rows(const std::string& run_id, const std::vector<Prediction>& predictions) {
  std::vector<Row> rows;
  for (const auto& p : predictions)
    rows.push_back({run_id, p.measured_run_id, p.collective, p.algorithm, int64_t{p.world_size}, int64_t{p.hosts}, p.bytes,
                    p.measured_us, p.predicted_us, p.error(), p.foreign_cpu_share});
  return rows;
}

}  // namespace ringbench::topomodel
