// topomodel step: one placement of a transformer's training step on a cluster, with the
// breakdown (compute, exposed TP, DP, PP p2p, bubble), throughput, MFU/HFU and memory; or, with
// --workload ddp, the bucketed data-parallel step ringbench measures (ddp_step.h).
//
//   topomodel step --cluster dgx-a100 --gpus 1024 --model gpt3-175b --tp 8 --pp 8
//   topomodel step --workload ddp --cluster dgx-h100 --bucket-bytes 64Ki:128Mi

#include <fmt/format.h>

#include "commands.h"
#include "ddp_step.h"
#include "model/error.h"
#include "model/input_limits.h"
#include "model/step.h"
#include "report.h"
#include "results_output.h"
#include "sizes.h"
#include "training_options.h"

namespace ringbench::topomodel {
namespace {

struct Options {
  ClusterOptions cluster;
  TrainingOptions training;
  std::string workload = "transformer";
  DdpOptions ddp;
  int tp = 1, pp = 1, dp = 0, cp = 1, ep = 1;
  std::string order = default_rank_order();
};

void run_transformer(const Options& o, Context& context) {
  const model::Cluster cluster = o.cluster.resolve();
  const model::Transformer m = o.training.workload();
  const model::TrainingConfig config = o.training.config();
  const int n = cluster.gpus();
  // Each flag is in [1, kMaxGpus] (its validator); their product must not overflow.
  const int64_t model_parallel = product_up_to({o.tp, o.pp, o.cp, o.ep}, n);
  if (model_parallel > n || n % model_parallel != 0) {
    throw model::InputError(fmt::format("--tp {} x --pp {} x --cp {} x --ep {} does not divide the {} GPUs", o.tp, o.pp,
                                        o.cp, o.ep, n));
  }
  model::Placement p;
  p[model::Dim::TP] = o.tp;
  p[model::Dim::PP] = o.pp;
  p[model::Dim::CP] = o.cp;
  p[model::Dim::EP] = o.ep;
  p[model::Dim::DP] = o.dp == 0 ? static_cast<int>(n / model_parallel) : o.dp;  // 0: --dp not given
  p.order = model::parse_order(o.order);
  if (model_parallel * p[model::Dim::DP] != n) {
    throw model::InputError(fmt::format("--dp {}: tp x pp x cp x ep x dp = {} GPUs, not the cluster's {}", o.dp,
                                        model_parallel * p[model::Dim::DP], n));
  }

  ResultsOutput output(o.cluster.output, run_record("step", context, &cluster, n));
  model::CostModel cost(cluster);
  const model::StepResult r = model::step(cost, m, config, p);

  fmt::print("# topomodel step ({})\n", context.command_line);
  fmt::print("# cluster   {}\n", cluster_line(cluster));
  print_workload_lines(m, config, cluster);
  fmt::print("# placement {}, rank order {} (innermost first); {} micro-batches of {} per pipeline\n", p.shape(),
             p.order_string(), r.microbatches, config.micro_batch);
  print_step_breakdown(r);
  context.exit_status = 0;
  output.write({{&steps_table(), step_rows(output.run_id(), cluster, m, {r}, false)}}, context.exit_status);
}

// --workload picks the step: a transformer's (--model) or the DDP one; each rejects the other's flags.
void run(const Options& o, Context& context) {
  if (o.workload == "ddp") {
    if (!o.training.model.empty()) throw model::InputError("--model is for --workload transformer, not ddp");
    run_ddp_step(o.cluster, o.ddp, context);
    return;
  }
  if (o.workload != "transformer") {
    throw model::InputError(fmt::format("--workload {}: unknown (known: transformer, ddp)", o.workload));
  }
  if (const std::string flag = o.ddp.first_given(); !flag.empty()) {
    throw model::InputError(fmt::format("{} needs --workload ddp", flag));
  }
  if (o.training.model.empty()) throw model::InputError("--model is required for --workload transformer");
  run_transformer(o, context);
}

}  // namespace

void add_step_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand(
      "step", "one training step: a transformer on one placement, with its breakdown, or bucketed DDP (--workload ddp)");
  auto o = std::make_shared<Options>();
  o->cluster.add_to(*command);
  command->add_option("--workload", o->workload, "transformer (--model) or ddp (bucketed data-parallel gradients)")
      ->capture_default_str();
  o->training.add_to(*command, false);
  o->ddp.add_to(*command);
  const CLI::Validator parallel = integer_in(1, model::limits::kMaxGpus);
  command->add_option("--tp", o->tp, "tensor-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--pp", o->pp, "pipeline-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--dp", o->dp, "data-parallel size (default: the rest of the GPUs)")->check(parallel);
  command->add_option("--cp", o->cp, "context-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--ep", o->ep, "expert-parallel size")->capture_default_str()->check(parallel);
  command->add_option("--order", o->order, "rank order, innermost first (Megatron notation)")->capture_default_str();
  command->callback([o, &context] { run(*o, context); });
}

}  // namespace ringbench::topomodel
