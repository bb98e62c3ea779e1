// topomodel collective: one collective on a cluster, every algorithm, the fastest marked.
//
// The job fills the cluster. --group tp=8 runs the collective over TP groups of 8 with the rest of
// the GPUs in DP (--group dp=16: DP groups of 16, the rest in TP); every such group runs it at the
// same moment, sharing links, unless --one-group. --placement and --order give full control:
//   topomodel collective --cluster dgx-a100 --nodes 8 --group tp=8 --order dp-tp   (TP across nodes)

#include <fmt/format.h>

#include "commands.h"
#include "model/cluster_json.h"
#include "model/collective_cost.h"
#include "model/error.h"
#include "model/placement.h"
#include "report.h"
#include "results_output.h"
#include "sizes.h"

namespace ringbench::topomodel {
namespace {

struct Options {
  ClusterOptions cluster;
  std::string op = "allreduce";
  std::string bytes = "1G";
  std::string group = "tp=8";
  std::string placement;
  std::string order = default_rank_order();
  std::string algorithm;
  bool one_group = false;
};

// "--group tp=8" or "--group tp" (size from --placement).
std::pair<model::Dim, int> parse_group(const std::string& text) {
  const auto eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const model::Placement parsed = model::parse_placement(eq == std::string::npos ? name + "=1" : text, "--group");
  for (int d = 0; d < model::kDims; ++d) {
    const auto dim = static_cast<model::Dim>(d);
    if (name == model::to_string(dim)) return {dim, eq == std::string::npos ? 0 : parsed[dim]};
  }
  throw model::InputError(fmt::format("--group: '{}' is not DIM=SIZE (e.g. tp=8)", text));
}

// --placement as given, or the cluster split into --group's groups with the rest in DP (or TP).
model::Placement placement_of(const Options& o, int n, model::Dim dim, int size) {
  model::Placement p;
  if (!o.placement.empty()) {
    p = model::parse_placement(o.placement);
    // In 64 bits before check_divides forms the product as an int (tp=65536,dp=65536 is 2^32).
    using model::Dim;
    if (product_up_to({p[Dim::TP], p[Dim::CP], p[Dim::EP], p[Dim::DP], p[Dim::PP]}, n) > n) throw model::InputError(fmt::format("--placement {} needs more than the cluster's {} GPUs", o.placement, n));
    if (size != 0 && p[dim] != size) {
      throw model::InputError(fmt::format("--group {} disagrees with --placement {}", o.group, o.placement));
    }
  } else {
    if (size == 0) throw model::InputError(fmt::format("--group {} needs a size (e.g. {}=8) without --placement", o.group, o.group));
    if (size > n) {
      throw model::InputError(fmt::format("--group {} is larger than the cluster ({} GPUs; use --nodes or --gpus)", o.group, n));
    }
    if (n % size != 0) throw model::InputError(fmt::format("--group {} does not divide the cluster's {} GPUs", o.group, n));
    p[dim] = size;
    p[dim == model::Dim::TP ? model::Dim::DP : model::Dim::TP] = n / size;
  }
  return p;
}

// Why busbw across islands is not directly comparable with busbw inside one: nccl-tests
// normalises by the flat ring's factor over all n GPUs, while between M islands the network
// carries the same factor over M, and the phased algorithms pay both levels one after the other.
void print_busbw_and_phases(model::Op op, int n, int islands) {
  const std::string factor = model::bus_factor_formula(op);
  if (factor == "1") {
    fmt::print("# busbw       = algbw for {} (nccl-tests bus factor 1)\n", model::to_string(op));
  } else {
    fmt::print("# busbw       algbw x {}, n = {} (nccl-tests): a flat ring's load per GPU link; between M islands the "
               "network needs only {} x S per island, so busbw across islands and inside one do not compare directly\n",
               factor, n, model::bus_factor_formula(op, "M"));
  }
  if (islands > 1) {
    fmt::print("# phases      hierarchical, tree, halving-doubling and nvls wait between their scale-up and network "
               "phases here: bandwidth = busiest scale-up port + busiest network link, as in `step`\n");
  }
}

void run(const Options& o, Context& context) {
  const model::Cluster cluster = o.cluster.resolve();
  const model::Op op = model::parse_op(o.op);
  const uint64_t bytes = parse_bytes(o.bytes, "--bytes");
  const int n = cluster.gpus();
  const auto [dim, size] = parse_group(o.group);

  model::Placement p = placement_of(o, n, dim, size);
  p.order = model::parse_order(o.order);
  model::check_divides(p, n);
  if (p[dim] < 2) throw model::InputError(fmt::format("--group {}: a collective needs at least 2 GPUs", o.group));
  if (op == model::Op::SendRecv && dim != model::Dim::PP) {
    throw model::InputError("--op sendrecv runs between pipeline stages: use --group pp=N");
  }

  ResultsOutput output(o.cluster.output, run_record("collective", context, &cluster, n));
  std::vector<std::vector<int>> members = op == model::Op::SendRecv ? model::stage_pairs(p) : model::groups(p, dim);
  if (o.one_group) members.resize(1);
  model::CostModel cost_model(cluster);
  const model::Batch batch = cost_model.batch(members);
  std::vector<model::CollectiveCost> costs;
  if (o.algorithm.empty()) {
    costs = cost_model.cost_each(op, batch, bytes);
  } else {
    costs.push_back(cost_model.cost(op, model::parse_algorithm(o.algorithm), batch, bytes));
  }
  const int best = model::fastest(costs);

  fmt::print("# topomodel collective ({})\n", context.command_line);
  fmt::print("# cluster     {}\n", cluster_line(cluster));
  fmt::print("# collective  {}, S = {} bytes ({}), over {} groups of {}\n", model::to_string(op), bytes,
             human_bytes(static_cast<double>(bytes)), model::to_string(dim),
             op == model::Op::SendRecv ? 2 : p[dim]);
  fmt::print("# placement   {}, rank order {} (innermost first), rank r on GPU r\n", p.shape(), p.order_string());
  fmt::print("# concurrent  {} group(s) at the same moment, sharing links; group 0 = GPUs {} ({} island(s))\n",
             members.size(), describe_members(members.front()), batch.front().islands());
  print_busbw_and_phases(op, op == model::Op::SendRecv ? 2 : p[dim], batch.front().islands());
  print_collective_table(costs, best);

  context.exit_status = 0;
  output.write({{&collectives_table(), collective_rows(output.run_id(), cluster, p.shape(), p.order_string(), costs, best)}},
               context.exit_status);
}

}  // namespace

void add_collective_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand("collective", "cost one collective with every algorithm; the fastest is marked");
  auto o = std::make_shared<Options>();
  o->cluster.add_to(*command);
  command->add_option("--op", o->op, "allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv")
      ->capture_default_str();
  command->add_option("--bytes", o->bytes, "message size S (nccl-tests convention; 1G = 1e9, 1Gi = 2^30)")
      ->capture_default_str();
  command->add_option("--group", o->group, "the groups: DIM=SIZE (tp, cp, ep, dp, pp); the rest of the GPUs in dp (or tp)")
      ->capture_default_str();
  command->add_option("--placement", o->placement, "full factorisation, e.g. tp=8,pp=4,dp=4 (then --group tp)");
  command->add_option("--order", o->order, "rank order, innermost first (Megatron notation)")->capture_default_str();
  command->add_option("--algorithm", o->algorithm, "cost only this algorithm");
  command->add_flag("--one-group", o->one_group, "cost group 0 alone instead of every group at once");
  command->callback([o, &context] { run(*o, context); });
}

}  // namespace ringbench::topomodel
