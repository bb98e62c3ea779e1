// topomodel clusters: every preset and its levels (or one, with --cluster), optionally as JSON
// to start a cluster file from.

#include <fmt/format.h>

#include "commands.h"
#include "model/cluster_json.h"
#include "model/presets.h"

namespace ringbench::topomodel {

void add_clusters_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand("clusters", "list the built-in clusters and their levels");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  command->add_option("--cluster", *name, "show only this preset or JSON file");
  command->add_flag("--json", *json, "print the cluster file format (one JSON object per line)");
  command->callback([&context, name, json] {
    std::vector<model::Cluster> clusters;
    if (!name->empty()) {
      clusters.push_back(model::resolve_cluster(*name));
    } else {
      for (const auto& preset : model::preset_names()) clusters.push_back(model::preset(preset));
    }
    fmt::print("# GB = 1e9 bytes; bandwidths per direction; efficiencies fitted by `topomodel validate`\n");
    for (const auto& c : clusters) {
      if (*json) {
        fmt::print("{}\n", model::cluster_to_json(c));
      } else {
        fmt::print("{}\n", model::describe(c));
      }
    }
    context.exit_status = 0;
  });
}

}  // namespace ringbench::topomodel
