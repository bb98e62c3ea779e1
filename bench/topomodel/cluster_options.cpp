#include <fmt/format.h>

#include "commands.h"
#include "model/cluster_json.h"
#include "model/error.h"
#include "model/input_limits.h"
#include "model/presets.h"
#include "sizes.h"

namespace ringbench::topomodel {

void ClusterOptions::add_to(CLI::App& command, bool with_output) {
  command.add_option("--cluster", cluster, "preset name (see `topomodel clusters`) or path to a .json file")
      ->capture_default_str();
  nodes_option = command.add_option("--nodes", nodes, "cluster size in nodes (default: the preset's)")
                     ->check(integer_in(1, model::limits::kMaxGpus));
  gpus_option = command.add_option("--gpus", gpus, "cluster size in GPUs (whole nodes)")
                    ->check(integer_in(1, model::limits::kMaxGpus));
  if (with_output) command.add_option("-o,--output", output, "append this run to an HDF5 results file");
}

model::Cluster ClusterOptions::resolve() const {
  const bool has_nodes = nodes_option && nodes_option->count() > 0;
  const bool has_gpus = gpus_option && gpus_option->count() > 0;
  if (has_nodes && has_gpus) throw model::InputError("give --nodes or --gpus, not both");
  model::Cluster c = model::resolve_cluster(cluster);
  if (has_nodes) {
    // In 64 bits: nodes x gpus_per_node may not fit an int (268435456 x 8 = 2^31).
    const int64_t total = static_cast<int64_t>(nodes) * c.gpus_per_node;
    if (total > model::limits::kMaxGpus) {
      throw model::InputError(fmt::format("--nodes {} x {} GPUs per node = {} GPUs, more than the model's limit of {}", nodes,
                                          c.gpus_per_node, total, model::limits::kMaxGpus));
    }
    return model::with_nodes(std::move(c), nodes);
  }
  if (has_gpus) return model::with_gpus(std::move(c), gpus);
  return c;
}

RunRecord run_record(const char* command, const Context& context, const model::Cluster* cluster, int gpus) {
  RunRecord r;
  r.command = command;
  r.command_line = context.command_line;
  r.start_utc = utc_now();
  r.cluster_name = cluster ? cluster->name : "(none)";
  r.cluster_json = cluster ? model::cluster_to_json(*cluster) : "";
  r.gpus = gpus;
  return r;
}

}  // namespace ringbench::topomodel
