#include "report.h"

#include <fmt/format.h>

#include "model/units.h"
#include "sizes.h"

namespace ringbench::topomodel {

std::string describe_members(const std::vector<int>& m) {
  if (m.empty()) return "none";
  bool contiguous = true;
  for (size_t i = 1; i < m.size(); ++i) contiguous = contiguous && m[i] == m[i - 1] + 1;
  if (contiguous) return m.size() == 1 ? fmt::format("{}", m[0]) : fmt::format("{}-{}", m.front(), m.back());
  if (m.size() <= 4) return fmt::format("{}", fmt::join(m, ","));
  return fmt::format("{},{},{},...,{}", m[0], m[1], m[2], m.back());
}

std::string cluster_line(const model::Cluster& c) {
  return fmt::format("{}: {} nodes x {} GPUs = {} GPUs, {} GPUs per {} island, {} x {:g} Gb/s NICs per node",
                     c.name, c.nodes, c.gpus_per_node, c.gpus(), c.scale_up.gpus_per_island,
                     model::to_string(c.scale_up.kind), c.nics.per_node, c.nics.bw_Gbps);
}

void print_collective_table(const std::vector<model::CollectiveCost>& costs, int best) {
  fmt::print("#\n");
  fmt::print("#   {:<17} {:>11} {:>10} {:>11} {:>9} {:>9} {:>12}  {}\n", "algorithm", "time", "latency", "bandwidth",
             "algbw", "busbw", "wire/GPU", "bottleneck");
  fmt::print("#   {:<17} {:>11} {:>10} {:>11} {:>9} {:>9} {:>12}  {}\n", "", "(us)", "(us)", "(us)", "(GB/s)",
             "(GB/s)", "(bytes)", "(link)");
  for (size_t i = 0; i < costs.size(); ++i) {
    const auto& c = costs[i];
    const char* mark = static_cast<int>(i) == best ? "*" : " ";
    if (!c.applicable) {
      fmt::print(" {}  {:<17} {:>11}  ({})\n", mark, model::to_string(c.algorithm), "n/a", c.why_not);
      continue;
    }
    fmt::print(" {}  {:<17} {:>11.2f} {:>10.2f} {:>11.2f} {:>9.2f} {:>9.2f} {:>12.4g}  {}\n", mark,
               model::to_string(c.algorithm), c.time_us, c.latency_us, c.bandwidth_us, c.algbw_GBps, c.busbw_GBps,
               c.wire_bytes_per_gpu, c.bottleneck.empty() ? "-" : c.bottleneck);
  }
  if (best >= 0) {
    fmt::print("# auto: {} (fastest, marked *)\n", model::to_string(costs[static_cast<size_t>(best)].algorithm));
  } else {
    fmt::print("# auto: no algorithm applies\n");
  }
}

void print_sweep_table(const std::vector<model::PlacementResult>& results, size_t top) {
  using model::Dim;
  fmt::print("#\n");
  fmt::print("# {:>4} {:>5} {:>3} {:>3} {:>5} {:>4} {:<15} {:>7} {:<16} {:>10} {:<16} {:>11} {:>9} {:>12} {:>7}\n",
             "rank", "tp", "cp", "ep", "dp", "pp", "order", "tp_isl", "tp_algorithm", "tp_time", "dp_algorithm",
             "dp_time", "pp_time", "step_comm", "x_best");
  fmt::print("# {:>4} {:>5} {:>3} {:>3} {:>5} {:>4} {:<15} {:>7} {:<16} {:>10} {:<16} {:>11} {:>9} {:>12} {:>7}\n", "",
             "", "", "", "", "", "(inner first)", "", "", "(us)", "", "(us)", "(us)", "(ms)", "");
  const double best = results.empty() ? 0.0 : results.front().step_comm_us;
  for (size_t i = 0; i < results.size() && i < top; ++i) {
    const auto& r = results[i];
    const auto& p = r.placement;
    fmt::print("  {:>4} {:>5} {:>3} {:>3} {:>5} {:>4} {:<15} {:>7} {:<16} {:>10.1f} {:<16} {:>11.1f} {:>9.1f} {:>12.3f} {:>7.2f}\n",
               i + 1, p[Dim::TP], p[Dim::CP], p[Dim::EP], p[Dim::DP], p[Dim::PP], p.order_string(), r.tp_islands,
               p[Dim::TP] > 1 ? model::to_string(r.tp.algorithm) : "-", r.tp.time_us,
               p[Dim::DP] * p[Dim::CP] * p[Dim::EP] > 1 ? model::to_string(r.dp.algorithm) : "-", r.dp.time_us,
               r.pp.time_us, r.step_comm_us / 1000.0, best > 0 ? r.step_comm_us / best : 1.0);
  }
  if (results.size() > top) fmt::print("# ... {} more placements (--top to show more; -o writes all)\n", results.size() - top);
}

void print_validation_table(const std::vector<model::ValidationRow>& rows) {
  fmt::print("# The model against published measurements. Fitted cases set one efficiency each; checked cases\n");
  fmt::print("# are predictions with those efficiencies and must land within {:.0f}%. GB = 1e9 bytes.\n",
             100 * model::kCheckTolerance);
  fmt::print("#\n");
  fmt::print("# {:<3} {:<58} {:<8} {:<21} {:>10} {:>9} {:>8}  {}\n", "id", "case", "role", "fits / metric",
             "published", "model", "error", "result");
  fmt::print("# {:<3} {:<58} {:<8} {:<21} {:>10} {:>9} {:>8}  {}\n", "", "", "", "", "(GB/s)", "(GB/s)", "(%)", "");
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& v = rows[i];
    const bool fitted = v.role == model::CaseRole::Fitted;
    fmt::print("  {:<3} {:<58} {:<8} {:<21} {:>10.1f} {:>9.1f} {:>+8.1f}  {}\n", i + 1, v.name, model::to_string(v.role),
               fitted ? v.fits : v.metric, v.published_GBps, v.model_GBps, 100.0 * v.error,
               fitted ? "fitted" : (v.pass() ? "ok" : "FAIL"));
  }
  fmt::print("#\n# sources:\n");
  for (size_t i = 0; i < rows.size(); ++i) fmt::print("#  {:<3} {}\n", i + 1, rows[i].source);
}

}  // namespace ringbench::topomodel
