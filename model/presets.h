#pragma once
// Built-in clusters: the node hardware and fabric of common systems, with the efficiencies fitted
// in published_figures.cpp. Each preset has one island's worth of nodes; resize with with_nodes()
// or with_gpus() (the CLI's --nodes / --gpus).

#include <string>
#include <string_view>
#include <vector>

#include "cluster.h"

namespace ringbench::model {

std::vector<std::string> preset_names();

// The preset with fitted efficiencies. InputError naming the known presets if `name` is unknown.
Cluster preset(std::string_view name);

// The preset at line rate (every efficiency 1): what the fit in published_figures.cpp starts from.
Cluster nominal_preset(std::string_view name);

// `--cluster` argument: a preset name, or a path to a JSON file (anything containing '/' or
// ending in ".json"; see cluster_json.h).
Cluster resolve_cluster(std::string_view name_or_path);

}  // namespace ringbench::model
