#include "tables.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "ringbench_version.h"

namespace ringbench::topomodel {

using results::Column;
using results::ColumnType;
using results::Row;
using results::Table;

namespace {

const char* kGBps = "GB/s (1e9 bytes/s)";

}  // namespace

const Table& runs_table() {
  static const Table t{"/model/runs",
                       {{"run_id", ColumnType::String, "", "unique id of this topomodel run (UUID v4)"},
                        {"command", ColumnType::String, "", "topomodel subcommand"},
                        {"start_utc", ColumnType::String, "ISO 8601 UTC", "when the run started"},
                        {"end_utc", ColumnType::String, "ISO 8601 UTC", "when the run finished"},
                        {"version", ColumnType::String, "", "ringbench version"},
                        {"git_revision", ColumnType::String, "", "git describe of the build"},
                        {"command_line", ColumnType::String, "", "argv joined with spaces"},
                        {"cluster", ColumnType::String, "", "cluster name"},
                        {"cluster_json", ColumnType::String, "", "every field of the cluster, as JSON"},
                        {"gpus", ColumnType::Int64, "GPUs", "GPUs modelled"},
                        {"exit_status", ColumnType::Int64, "", "topomodel's exit status"}},
                       "one row per topomodel run that wrote to this file"};
  return t;
}

Row run_row(const RunRecord& r) {
  return {r.run_id, r.command, r.start_utc, r.end_utc, std::string(kVersion), std::string(kGitRevision), r.command_line, r.cluster_name, r.cluster_json, r.gpus, r.exit_status};
}

const Table& collectives_table() {
  static const Table t{
      "/model/collectives",
      {{"run_id", ColumnType::String, "", "joins /model/runs"},
       {"cluster", ColumnType::String, "", "cluster name"},
       {"gpus", ColumnType::Int64, "GPUs", "GPUs in the cluster"},
       {"op", ColumnType::String, "", "collective (nccl-tests naming)"},
       {"algorithm", ColumnType::String, "", "ring, tree, halving-doubling, hierarchical, nvls, direct"},
       {"best", ColumnType::Int64, "", "1 for the fastest applicable algorithm (auto's choice)"},
       {"applicable", ColumnType::Int64, "", "0 if the algorithm cannot run this collective here"},
       {"why_not", ColumnType::String, "", "why it cannot, when applicable is 0"},
       {"placement", ColumnType::String, "", "the job's factorisation, e.g. tp8 dp16"},
       {"order", ColumnType::String, "", "rank order, innermost first"},
       {"group_size", ColumnType::Int64, "GPUs", "members per group"},
       {"groups", ColumnType::Int64, "", "groups running at the same moment, sharing links"},
       {"bytes", ColumnType::UInt64, "bytes", "message size S (nccl-tests convention)"},
       {"time_us", ColumnType::Float64, "us", "modelled time of the batch"},
       {"latency_us", ColumnType::Float64, "us", "launch overhead plus latency steps"},
       {"bandwidth_us", ColumnType::Float64, "us", "bytes on the bottleneck link / its capacity (phased: scale-up + network)"},
       {"algbw_GBps", ColumnType::Float64, kGBps, "S / time"},
       {"busbw_GBps", ColumnType::Float64, kGBps, "algbw x nccl-tests bus factor"},
       {"wire_bytes_per_gpu", ColumnType::Float64, "bytes", "bytes each GPU sends on its links, average"},
       {"bottleneck", ColumnType::String, "", "the link that sets bandwidth_us (phased: \"scale-up link + network link\")"}},
      "topomodel collective: one row per algorithm"};
  return t;
}

std::vector<Row> collective_rows(const std::string& run_id, const model::Cluster& cluster, const std::string& placement,
                                 const std::string& order, const std::vector<model::CollectiveCost>& costs, int best) {
  std::vector<Row> rows;
  for (size_t i = 0; i < costs.size(); ++i) {
    const auto& c = costs[i];
    rows.push_back({run_id, cluster.name, int64_t{cluster.gpus()}, std::string(model::to_string(c.op)),
                    std::string(model::to_string(c.algorithm)), int64_t{static_cast<int>(i) == best ? 1 : 0},
                    int64_t{c.applicable ? 1 : 0}, c.why_not, placement, order, int64_t{c.group_size},
                    int64_t{c.groups}, c.bytes, c.time_us, c.latency_us, c.bandwidth_us, c.algbw_GBps, c.busbw_GBps,
                    c.wire_bytes_per_gpu, c.bottleneck});
  }
  return rows;
}

const Table& placements_table() {
  static const Table t{
      "/model/placements",
      {{"run_id", ColumnType::String, "", "joins /model/runs"},
       {"cluster", ColumnType::String, "", "cluster name"},
       {"gpus", ColumnType::Int64, "GPUs", "GPUs of the job"},
       {"rank", ColumnType::Int64, "", "1 = smallest step communication time"},
       {"tp", ColumnType::Int64, "", "tensor-parallel size"},
       {"cp", ColumnType::Int64, "", "context-parallel size"},
       {"ep", ColumnType::Int64, "", "expert-parallel size"},
       {"dp", ColumnType::Int64, "", "data-parallel size"},
       {"pp", ColumnType::Int64, "", "pipeline-parallel size"},
       {"order", ColumnType::String, "", "rank order, innermost first (Megatron notation)"},
       {"tp_islands", ColumnType::Int64, "islands", "NVLink islands one TP group spans"},
       {"tp_bytes", ColumnType::UInt64, "bytes", "one TP all-reduce"},
       {"tp_per_step", ColumnType::Float64, "", "TP all-reduces per step on the critical path"},
       {"tp_algorithm", ColumnType::String, "", "fastest algorithm for the TP batch"},
       {"tp_time_us", ColumnType::Float64, "us", "one TP all-reduce, every TP group at once"},
       {"tp_busbw_GBps", ColumnType::Float64, kGBps, "its bus bandwidth"},
       {"tp_bottleneck", ColumnType::String, "", "link that limits it"},
       {"dp_bytes", ColumnType::UInt64, "bytes", "gradient all-reduce per GPU"},
       {"dp_algorithm", ColumnType::String, "", "fastest algorithm for the DP batch"},
       {"dp_time_us", ColumnType::Float64, "us", "gradient all-reduce, every DP group at once"},
       {"dp_busbw_GBps", ColumnType::Float64, kGBps, "its bus bandwidth"},
       {"dp_bottleneck", ColumnType::String, "", "link that limits it"},
       {"pp_bytes", ColumnType::UInt64, "bytes", "one activation between stages"},
       {"pp_per_step", ColumnType::Float64, "", "stage-boundary sends per step"},
       {"pp_time_us", ColumnType::Float64, "us", "one send, every stage boundary at once"},
       {"cp_time_us", ColumnType::Float64, "us", "one CP all-gather, every CP group at once"},
       {"ep_time_us", ColumnType::Float64, "us", "one EP all-to-all, every EP group at once"},
       {"step_comm_us", ColumnType::Float64, "us", "sum of count x time over TP, DP, PP, CP, EP"}},
      "topomodel sweep: one row per placement, best first"};
  return t;
}

std::vector<Row> placement_rows(const std::string& run_id, const model::Cluster& cluster,
                                const std::vector<model::PlacementResult>& results) {
  using model::Dim;
  std::vector<Row> rows;
  int64_t rank = 0;
  for (const auto& r : results) {
    const auto& p = r.placement;
    rows.push_back({run_id, cluster.name, int64_t{p.gpus()}, ++rank, int64_t{p[Dim::TP]}, int64_t{p[Dim::CP]},
                    int64_t{p[Dim::EP]}, int64_t{p[Dim::DP]}, int64_t{p[Dim::PP]}, p.order_string(),
                    int64_t{r.tp_islands}, r.traffic.tp_bytes, r.traffic.tp_per_step,
                    std::string(model::to_string(r.tp.algorithm)), r.tp.time_us, r.tp.busbw_GBps, r.tp.bottleneck,
                    r.traffic.dp_bytes, std::string(model::to_string(r.dp.algorithm)), r.dp.time_us, r.dp.busbw_GBps,
                    r.dp.bottleneck, r.traffic.pp_bytes, r.traffic.pp_per_step, r.pp.time_us, r.cp.time_us,
                    r.ep.time_us, r.step_comm_us});
  }
  return rows;
}

const Table& validation_table_def() {
  static const Table t{"/model/validation",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"case", ColumnType::String, "", "what was measured"},
                        {"role", ColumnType::String, "", "fitted (sets an efficiency) or checked (a prediction)"},
                        {"fits", ColumnType::String, "", "the efficiency a fitted case sets"},
                        {"metric", ColumnType::String, "", "busbw or p2p bandwidth"},
                        {"published_GBps", ColumnType::Float64, kGBps, "the published figure"},
                        {"model_GBps", ColumnType::Float64, kGBps, "the model's figure"},
                        {"error_pct", ColumnType::Float64, "%", "(model - published) / published"},
                        {"pass", ColumnType::Int64, "", "1 if within the 20% tolerance (fitted: always)"},
                        {"source", ColumnType::String, "", "citation"}},
                       "topomodel validate: the model against published measurements"};
  return t;
}

std::vector<Row> validation_rows(const std::string& run_id, const std::vector<model::ValidationRow>& rows) {
  std::vector<Row> out;
  for (const auto& v : rows) {
    out.push_back({run_id, v.name, std::string(model::to_string(v.role)), v.fits, v.metric, v.published_GBps,
                   v.model_GBps, 100.0 * v.error, int64_t{v.pass() ? 1 : 0}, v.source});
  }
  return out;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

}  // namespace ringbench::topomodel

namespace ringbench::topomodel {

using results::ColumnType;
using results::Row;
using results::Table;

const Table& steps_table() {
  static const Table t{
      "/model/steps",
      {{"run_id", ColumnType::String, "", "joins /model/runs"},
       {"cluster", ColumnType::String, "", "cluster name"},
       {"model", ColumnType::String, "", "workload name"},
       {"model_json", ColumnType::String, "", "every workload field, as JSON"},
       {"rank", ColumnType::Int64, "", "1 = fastest step (0 for topomodel step)"},
       {"gpus", ColumnType::Int64, "GPUs", "GPUs of the job"},
       {"tp", ColumnType::Int64, "", "tensor-parallel size"},
       {"cp", ColumnType::Int64, "", "context-parallel size"},
       {"ep", ColumnType::Int64, "", "expert-parallel size"},
       {"dp", ColumnType::Int64, "", "data-parallel size"},
       {"pp", ColumnType::Int64, "", "pipeline-parallel size"},
       {"order", ColumnType::String, "", "rank order, innermost first"},
       {"micro_batch", ColumnType::Int64, "sequences", "micro-batch size"},
       {"microbatches", ColumnType::Int64, "", "micro-batches per pipeline per step (m)"},
       {"global_batch", ColumnType::Int64, "sequences", "global batch"},
       {"virtual_stages", ColumnType::Int64, "", "interleaving factor v"},
       {"recompute", ColumnType::String, "", "none, selective, full"},
       {"tp_islands", ColumnType::Int64, "islands", "NVLink islands one TP group spans"},
       {"tp_algorithm", ColumnType::String, "", "fastest TP collective algorithm"},
       {"dp_algorithm", ColumnType::String, "", "fastest DP collective algorithm"},
       {"compute_us", ColumnType::Float64, "us", "m x the slowest stage's micro-batch, priced from shapes"},
       {"tp_us", ColumnType::Float64, "us", "TP communication on the critical path"},
       {"cp_us", ColumnType::Float64, "us", "CP communication"},
       {"ep_us", ColumnType::Float64, "us", "EP all-to-all"},
       {"pp_us", ColumnType::Float64, "us", "pipeline sends"},
       {"bubble_us", ColumnType::Float64, "us", "pipeline bubble"},
       {"dp_total_us", ColumnType::Float64, "us", "whole DP gradient reduction"},
       {"dp_exposed_us", ColumnType::Float64, "us", "its part not hidden by the backward pass"},
       {"step_us", ColumnType::Float64, "us", "step time"},
       {"tokens_per_s", ColumnType::Float64, "tokens/s", "global batch tokens / step time"},
       {"model_tflops_per_gpu", ColumnType::Float64, "TFLOP/s", "model FLOPs (MFU convention) per GPU"},
       {"hardware_tflops_per_gpu", ColumnType::Float64, "TFLOP/s", "hardware FLOPs incl. recomputation per GPU"},
       {"mfu", ColumnType::Float64, "", "model FLOP/s / peak"},
       {"hfu", ColumnType::Float64, "", "hardware FLOP/s / peak"},
       {"memory_GB", ColumnType::Float64, "GB (1e9 bytes)", "modelled memory per GPU"},
       {"usable_GB", ColumnType::Float64, "GB (1e9 bytes)", "usable HBM"}},
      "topomodel step / sweep --model: one row per placement"};
  return t;
}

std::vector<Row> step_rows(const std::string& run_id, const model::Cluster& cluster, const model::Transformer& m,
                           const std::vector<model::StepResult>& results, bool ranked) {
  using model::Dim;
  std::vector<Row> rows;
  const std::string json = model::workload_to_json(m);
  int64_t rank = 0;
  for (const auto& r : results) {
    const auto& p = r.placement;
    rows.push_back({run_id, cluster.name, m.name, json, ranked ? ++rank : int64_t{0}, int64_t{p.gpus()},
                    int64_t{p[Dim::TP]}, int64_t{p[Dim::CP]}, int64_t{p[Dim::EP]}, int64_t{p[Dim::DP]},
                    int64_t{p[Dim::PP]}, p.order_string(), int64_t{r.config.micro_batch}, int64_t{r.microbatches},
                    int64_t{r.config.global_batch}, int64_t{r.config.virtual_stages},
                    std::string(model::to_string(r.config.recompute)), int64_t{r.comm.tp_islands},
                    std::string(model::to_string(r.comm.tp.algorithm)), std::string(model::to_string(r.comm.dp.algorithm)),
                    r.compute_us, r.tp_us, r.cp_us, r.ep_us, r.pp_us, r.bubble_us, r.dp_total_us, r.dp_exposed_us,
                    r.step_us, r.tokens_per_s, r.model_tflops_per_gpu, r.hardware_tflops_per_gpu, r.mfu, r.hfu,
                    r.memory.total_GB, r.memory.usable_GB});
  }
  return rows;
}

const Table& rejected_table() {
  static const Table t{"/model/rejected",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"placement", ColumnType::String, "", "e.g. tp8 pp4 dp32"},
                        {"micro_batch", ColumnType::Int64, "sequences", "micro-batch size"},
                        {"why", ColumnType::String, "", "memory or divisibility"}},
                       "topomodel sweep --model: placements rejected"};
  return t;
}

std::vector<Row> rejected_rows(const std::string& run_id, const std::vector<model::TransformerWorkload::Rejection>& rejected) {
  std::vector<Row> rows;
  for (const auto& r : rejected) rows.push_back({run_id, r.placement.shape(), int64_t{r.micro_batch}, r.why});
  return rows;
}

const Table& failures_table() {
  static const Table t{"/model/failures",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"cluster", ColumnType::String, "", "cluster name"},
                        {"placement", ColumnType::String, "", "e.g. tp8 pp16 dp128"},
                        {"component", ColumnType::String, "", "gpu, nic, node, leaf, spine-link, software"},
                        {"count", ColumnType::Int64, "", "such components in the job"},
                        {"failures_per_day", ColumnType::Float64, "1/day", "count x per-component rate"},
                        {"stalled_sync", ColumnType::Int64, "GPUs", "GPUs stalled, synchronous job"},
                        {"stalled_elastic", ColumnType::Int64, "GPUs", "GPUs dropped, elastic job"},
                        {"replicas_lost", ColumnType::Int64, "", "DP replicas dropped, elastic job"},
                        {"note", ColumnType::String, "", "what fails with it"}},
                       "topomodel failures: blast radius per component"};
  return t;
}

std::vector<Row> failure_rows(const std::string& run_id, const model::Cluster& cluster, const model::Placement& p,
                              const std::vector<model::BlastRadius>& rows) {
  std::vector<Row> out;
  for (const auto& r : rows) {
    out.push_back({run_id, cluster.name, p.shape(), std::string(model::to_string(r.component)), int64_t{r.count},
                   r.failures_per_day, int64_t{r.stalled_sync}, int64_t{r.stalled_elastic}, int64_t{r.replicas_lost},
                   r.note});
  }
  return out;
}

const Table& goodput_table() {
  static const Table t{"/model/goodput",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"interval_s", ColumnType::Float64, "s", "checkpoint interval tau"},
                        {"goodput", ColumnType::Float64, "", "fraction of wall time doing useful work"},
                        {"young_daly", ColumnType::Int64, "", "1 for the Young/Daly optimum row"},
                        {"checkpoint_s", ColumnType::Float64, "s", "delta"},
                        {"restart_s", ColumnType::Float64, "s", "R"},
                        {"mtbf_s", ColumnType::Float64, "s", "job mean time between failures"}},
                       "topomodel failures: goodput of a synchronous job vs checkpoint interval"};
  return t;
}

std::vector<Row> goodput_rows(const std::string& run_id, const model::CheckpointModel& ck, double mtbf_s, double best_s,
                              const std::vector<std::pair<double, double>>& rows) {
  std::vector<Row> out;
  for (const auto& [interval, g] : rows) {
    out.push_back({run_id, interval, g, int64_t{interval == best_s ? 1 : 0}, ck.checkpoint_s, ck.restart_s, mtbf_s});
  }
  return out;
}

const Table& run_validation_table_def() {
  static const Table t{"/model/run_validation",
                       {{"run_id", ColumnType::String, "", "joins /model/runs"},
                        {"case", ColumnType::String, "", "the published run or sweep"},
                        {"role", ColumnType::String, "", "fitted, checked, or ranking"},
                        {"convention", ColumnType::String, "", "HFU or MFU"},
                        {"published", ColumnType::String, "", "TFLOP/s per GPU, or the best placement"},
                        {"model", ColumnType::String, "", "the model's figure"},
                        {"error_pct", ColumnType::Float64, "%", "(model - published) / published; 0 for rankings"},
                        {"pass", ColumnType::Int64, "", "1 if within 20% (or the same best placement)"},
                        {"source", ColumnType::String, "", "citation"}},
                       "topomodel validate: the training-step model against published runs"};
  return t;
}

std::vector<Row> run_validation_rows(const std::string& run_id, const std::vector<model::RunRow>& runs,
                                     const std::vector<model::RankingRow>& rankings) {
  std::vector<Row> out;
  for (const auto& r : runs) {
    out.push_back({run_id, r.name, std::string(model::to_string(r.role)), r.convention,
                   fmt::format("{:.1f}", r.published_tflops), fmt::format("{:.1f}", r.model_tflops), 100 * r.error,
                   int64_t{r.pass() ? 1 : 0}, r.source});
  }
  for (const auto& k : rankings) {
    out.push_back({run_id, k.name, std::string("ranking"), std::string("HFU"), k.published_best, k.model_best, 0.0,
                   int64_t{k.pass() ? 1 : 0}, k.source});
  }
  return out;
}

}  // namespace ringbench::topomodel
