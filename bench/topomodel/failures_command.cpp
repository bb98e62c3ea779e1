// topomodel failures: the blast radius of one failed GPU, NIC, node, leaf and spine link for a
// placement, synchronous and elastic, and the goodput of a synchronous job against the checkpoint
// interval, with the Young/Daly optimum. Rates: Llama 3's published counts (model/failures.h).
//
//   topomodel failures --cluster dgx-h100 --gpus 16384 --tp 8 --pp 16

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "commands.h"
#include "model/error.h"
#include "model/failures.h"
#include "model/input_limits.h"
#include "report.h"
#include "results_output.h"
#include "sizes.h"

namespace ringbench::topomodel {
namespace {

// Default checkpoint: Llama 3 405B's state (405e9 x 16 bytes: bf16 weights + fp32 master, Adam m
// and v... 6.5 TB) at Llama 3's stated 2 TB/s sustained storage throughput.
constexpr double kLlama3CheckpointGB = 405e9 * 16 / 1e9;
// Checkpoint intervals tabulated when --interval-min is not given, in minutes.
const std::vector<double> kDefaultIntervalsMin = {1, 2, 5, 10, 30, 60, 120};

struct Options {
  ClusterOptions cluster;
  int tp = 8, pp = 1, cp = 1, ep = 1;
  std::string order = default_rank_order();
  double checkpoint_s = 0;   // 0: not given (the flag rejects 0); checkpoint bytes / storage bandwidth
  double checkpoint_GB = 0;  // 0: not given; kLlama3CheckpointGB
  double storage_GBps = 2000;
  double restart_s = 600;
  std::vector<double> intervals_min;  // empty: kDefaultIntervalsMin
};

// Each value has passed its flag's validator (add_failures_command); what is left is how they
// combine.
void check_options(const Options& o, int n) {
  const int64_t model_parallel = product_up_to({o.tp, o.pp, o.cp, o.ep}, n);
  if (model_parallel > n || n % model_parallel != 0) {
    throw model::InputError(fmt::format("--tp {} x --pp {} x --cp {} x --ep {} does not divide the {} GPUs", o.tp, o.pp,
                                        o.cp, o.ep, n));
  }
}

model::Placement placement_of(const Options& o, int n) {
  model::Placement p;
  p[model::Dim::TP] = o.tp;
  p[model::Dim::PP] = o.pp;
  p[model::Dim::CP] = o.cp;
  p[model::Dim::EP] = o.ep;
  p[model::Dim::DP] = n / (o.tp * o.pp * o.cp * o.ep);
  p.order = model::parse_order(o.order);
  return p;
}

double checkpoint_GB(const Options& o) { return o.checkpoint_GB > 0 ? o.checkpoint_GB : kLlama3CheckpointGB; }

model::CheckpointModel checkpoint_model(const Options& o) {
  model::CheckpointModel ck;
  ck.checkpoint_s = o.checkpoint_s > 0 ? o.checkpoint_s : checkpoint_GB(o) / o.storage_GBps;
  ck.restart_s = o.restart_s;
  return ck;
}

// Goodput at each interval asked for and at the Young/Daly optimum, by interval.
std::vector<std::pair<double, double>> goodput_by_interval(const Options& o, const model::CheckpointModel& ck,
                                                           double mtbf_s, double best) {
  const std::vector<double>& intervals = o.intervals_min.empty() ? kDefaultIntervalsMin : o.intervals_min;
  std::vector<std::pair<double, double>> table;
  for (double i : intervals) table.emplace_back(i * 60, model::goodput(i * 60, ck, mtbf_s));
  table.emplace_back(best, model::goodput(best, ck, mtbf_s));
  std::sort(table.begin(), table.end());
  return table;
}

void print_goodput_header(const Options& o, const model::CheckpointModel& ck, double mtbf_h, double best) {
  fmt::print("# job MTBF  {:.2f} h ({:.1f} failures/day), synchronous: every failure restarts the job\n", mtbf_h,
             24.0 / mtbf_h);
  fmt::print("# goodput   checkpoint write delta = {:.1f} s ({:.0f} GB at {:.0f} GB/s), restart R = {:.0f} s;\n",
             ck.checkpoint_s, o.checkpoint_s > 0 ? ck.checkpoint_s * o.storage_GBps : checkpoint_GB(o), o.storage_GBps,
             ck.restart_s);
  fmt::print("#           goodput = 1 - delta/tau - (R + (tau + delta)/2) / MTBF; Young/Daly tau* = sqrt(2 delta MTBF) = {:.1f} min\n",
             best / 60);
}

void run(const Options& o, Context& context) {
  const model::Cluster cluster = o.cluster.resolve();
  const int n = cluster.gpus();
  check_options(o, n);
  const model::Placement p = placement_of(o, n);
  const model::CheckpointModel ck = checkpoint_model(o);

  ResultsOutput output(o.cluster.output, run_record("failures", context, &cluster, n));
  const model::FailureRates rates = model::llama3_rates();
  const auto rows = model::blast_radius(cluster, p, rates);
  const double mtbf_h = model::job_mtbf_hours(rows);
  const double mtbf_s = mtbf_h * 3600;
  const double best = model::young_daly_interval_s(ck.checkpoint_s, mtbf_s);

  fmt::print("# topomodel failures ({})\n", context.command_line);
  fmt::print("# cluster   {}\n", cluster_line(cluster));
  fmt::print("# placement {}, rank order {}; one DP replica = {} GPUs\n", p.shape(), p.order_string(),
             n / p[model::Dim::DP]);
  fmt::print("# rates     {}\n", rates.source);
  print_blast_table(rows);
  print_goodput_header(o, ck, mtbf_h, best);
  const auto table = goodput_by_interval(o, ck, mtbf_s, best);
  print_goodput_table(table, best);
  context.exit_status = 0;
  output.write({{&failures_table(), failure_rows(output.run_id(), cluster, p, rows)},
                {&goodput_table(), goodput_rows(output.run_id(), ck, mtbf_s, best, table)}},
               context.exit_status);
}

}  // namespace

void add_failures_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand("failures", "blast radius per failed component, and goodput vs checkpoint interval");
  auto o = std::make_shared<Options>();
  o->cluster.add_to(*command);
  using model::limits::kMaxSeconds;
  const CLI::Validator parallel = integer_in(1, model::limits::kMaxGpus);
  command->add_option("--tp", o->tp, "tensor-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--pp", o->pp, "pipeline-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--cp", o->cp, "context-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--ep", o->ep, "expert-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--order", o->order, "rank order, innermost first")->capture_default_str();
  command->add_option("--checkpoint-s", o->checkpoint_s, "seconds the job pauses per checkpoint (default: size / storage)")
      ->check(number_in(0, kMaxSeconds, true));
  command->add_option("--checkpoint-GB", o->checkpoint_GB,
                      fmt::format("checkpoint size in GB (default {:.0f}: Llama 3 405B, 405e9 params x 16 bytes)",
                                  kLlama3CheckpointGB))
      ->check(number_in(0, model::limits::kMaxStorageGB, true));
  command->add_option("--storage-GBps", o->storage_GBps, "checkpoint write bandwidth, GB/s")
      ->capture_default_str()
      ->check(number_in(0, model::limits::kMaxStorageGB, true));
  command->add_option("--restart-s", o->restart_s, "seconds from failure to training again")
      ->capture_default_str()
      ->check(number_in(0, kMaxSeconds));
  command->add_option("--interval-min", o->intervals_min,
                      fmt::format("checkpoint intervals to tabulate, minutes (repeatable; default {})",
                                  fmt::join(kDefaultIntervalsMin, " ")))
      ->check(number_in(0, kMaxSeconds / 60, true));
  command->callback([o, &context] { run(*o, context); });
}

}  // namespace ringbench::topomodel
