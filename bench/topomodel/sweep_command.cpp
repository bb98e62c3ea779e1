// topomodel sweep: every (TP, PP, DP, rank order) of a job, with its per-step collective times,
// best first. Defaults describe a Llama-2-70B-like step (80 layers, hidden 8192, sequence 4096,
// micro-batch 1, bf16: one TP all-reduce = 1 x 4096 x 8192 x 2 bytes = 67.1 MB), 16 micro-batches.

#include <fmt/format.h>

#include "commands.h"
#include "model/cluster_json.h"
#include "model/error.h"
#include "model/input_limits.h"
#include "model/sweep.h"
#include "report.h"
#include "results_output.h"
#include "sizes.h"
#include "training_options.h"

namespace ringbench::topomodel {
namespace {

struct Options {
  ClusterOptions cluster;
  int job_gpus = 0;
  std::string tp_bytes = "67.1M";
  std::string pp_bytes;  // default: tp_bytes (the same activation tensor)
  std::string params = "70e9";
  std::string grad_bytes_per_param = "2";
  std::string cp_bytes = "0", ep_bytes = "0";
  int layers = 80;
  int microbatches = 16;
  int max_tp = 64;
  int cp = 1, ep = 1;
  std::vector<std::string> orders;
  size_t top = 20;
  TrainingOptions training;
  std::vector<int> micro_batches;  // --model: micro-batch sizes to try
};

// --cp x --ep in 64 bits before the sweep forms it as an int (each is up to kMaxGpus).
void check_fixed_factors(const Options& o, int gpus) {
  if (product_up_to({o.cp, o.ep}, gpus) > gpus) {
    throw model::InputError(fmt::format("--cp {} x --ep {} must divide --gpus {}", o.cp, o.ep, gpus));
  }
}

// --model: the training-step sweep (issue 7), ranked by step time, with memory rejections.
void run_training(const Options& o, Context& context) {
  model::Cluster cluster = o.cluster.resolve();
  const int gpus = cluster.gpus();
  check_fixed_factors(o, gpus);
  const model::Transformer m = o.training.workload();
  const model::TrainingConfig config = o.training.config();
  std::vector<int> mbs = o.micro_batches.empty() ? std::vector<int>{1, 2, 4} : o.micro_batches;
  ResultsOutput output(o.cluster.output, run_record("sweep", context, &cluster, gpus));
  model::CostModel cost_model(cluster);
  const auto swept = model::step_sweep(cost_model, m, config, gpus, mbs, {.cp = o.cp, .ep = o.ep, .orders = o.orders});

  fmt::print("# topomodel sweep ({})\n", context.command_line);
  fmt::print("# cluster   {}\n", cluster_line(cluster));
  print_workload_lines(m, config, cluster);
  fmt::print("# costing   step = compute + tp + pp_p2p + bubble + exposed dp (model/step.h); every group of a kind at\n");
  fmt::print("#           once, sharing links; hierarchical phases sequential; micro-batches tried: {}\n",
             fmt::join(mbs, ", "));
  fmt::print("# placements {} fit\n", swept.results.size());
  print_rejections(swept.rejected, 5);
  print_step_table(swept.results, o.top);
  context.exit_status = 0;
  output.write({{&steps_table(), step_rows(output.run_id(), cluster, m, swept.results, true)},
                {&rejected_table(), rejected_rows(output.run_id(), swept.rejected)}},
               context.exit_status);
}

void run(const Options& o, Context& context) {
  if (!o.training.model.empty()) return run_training(o, context);
  model::Cluster cluster = o.cluster.resolve();
  const int gpus = cluster.gpus();
  check_fixed_factors(o, gpus);
  model::MessageWorkload w;
  w.tp_bytes = parse_bytes(o.tp_bytes, "--tp-bytes");
  w.pp_bytes = o.pp_bytes.empty() ? w.tp_bytes : parse_bytes(o.pp_bytes, "--pp-bytes");
  const double params = parse_count(o.params, "--params", model::limits::kMaxParams);
  const double per_param = parse_count(o.grad_bytes_per_param, "--grad-bytes-per-param", model::limits::kMaxBytesPerValue);
  w.gradient_bytes = static_cast<uint64_t>(params * per_param);
  w.cp_bytes = o.cp > 1 ? parse_bytes(o.cp_bytes, "--cp-bytes") : 0;
  w.ep_bytes = o.ep > 1 ? parse_bytes(o.ep_bytes, "--ep-bytes") : 0;
  w.layers = o.layers;
  w.microbatches = o.microbatches;
  w.max_tp = o.max_tp;

  ResultsOutput output(o.cluster.output, run_record("sweep", context, &cluster, gpus));
  model::CostModel cost_model(cluster);
  const auto results = model::sweep(cost_model, w, gpus, {.cp = o.cp, .ep = o.ep, .orders = o.orders});

  fmt::print("# topomodel sweep ({})\n", context.command_line);
  fmt::print("# cluster   {}\n", cluster_line(cluster));
  fmt::print("# step      {} layers, {} micro-batches; TP all-reduce {} ({} per layer per micro-batch);\n", o.layers,
             o.microbatches, human_bytes(static_cast<double>(w.tp_bytes)), 4);
  fmt::print("#           DP gradient all-reduce {} / (tp x pp); PP send {} (2 per micro-batch); max tp {}\n",
             human_bytes(static_cast<double>(w.gradient_bytes)), human_bytes(static_cast<double>(w.pp_bytes)),
             o.max_tp == 0 ? std::string("none") : std::to_string(o.max_tp));
  fmt::print("# costing   every group of a kind at the same moment, sharing links; fastest algorithm per batch;\n");
  fmt::print("#           step_comm = sum of count x time, no overlap; tp_isl = islands one TP group spans\n");
  fmt::print("# placements {}\n", results.size());
  print_sweep_table(results, o.top);

  context.exit_status = 0;
  output.write({{&placements_table(), placement_rows(output.run_id(), cluster, results)}}, context.exit_status);
}

}  // namespace

void add_sweep_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand("sweep", "rank every TP x PP x DP placement and rank order by step communication time");
  auto o = std::make_shared<Options>();
  o->cluster.add_to(*command);
  command->add_option("--tp-bytes", o->tp_bytes, "one TP all-reduce (micro-batch x sequence x hidden x bytes)")
      ->capture_default_str();
  command->add_option("--pp-bytes", o->pp_bytes, "one activation sent between stages (default: --tp-bytes)");
  command->add_option("--params", o->params, "model parameters (for the DP gradient all-reduce)")->capture_default_str();
  command->add_option("--grad-bytes-per-param", o->grad_bytes_per_param, "bytes per gradient")->capture_default_str();
  namespace limits = model::limits;
  command->add_option("--layers", o->layers, "transformer layers (pp must divide it)")
      ->capture_default_str()
      ->check(integer_in(1, limits::kMaxLayers));
  command->add_option("--microbatches", o->microbatches, "micro-batches per step")
      ->capture_default_str()
      ->check(integer_in(1, limits::kMaxGlobalBatch));
  command->add_option("--max-tp", o->max_tp, "largest TP the model allows (e.g. attention heads); 0 = no limit")
      ->capture_default_str()
      ->check(integer_in(0, limits::kMaxGpus));
  command->add_option("--cp", o->cp, "fixed context-parallel size")->capture_default_str()->check(integer_in(1, limits::kMaxGpus));
  command->add_option("--ep", o->ep, "fixed expert-parallel size")->capture_default_str()->check(integer_in(1, limits::kMaxGpus));
  command->add_option("--cp-bytes", o->cp_bytes, "one CP all-gather (with --cp > 1)");
  command->add_option("--ep-bytes", o->ep_bytes, "one EP all-to-all (with --ep > 1)");
  command->add_option("--order", o->orders, "only these rank orders (repeatable); default: every distinct order");
  command->add_option("--top", o->top, "rows to print")->capture_default_str()->check(integer_in(1, limits::kMaxGpus));
  o->training.add_to(*command, false);
  command->add_option("--micro-batches", o->micro_batches, "with --model: micro-batch sizes to try (default 1 2 4)")
      ->check(integer_in(1, limits::kMaxMicroBatch));
  command->callback([o, &context] { run(*o, context); });
}

}  // namespace ringbench::topomodel
