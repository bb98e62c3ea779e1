#include "group.h"

#include <fmt/format.h>

#include <algorithm>

#include "error.h"

namespace ringbench::model {

bool GroupLayout::uniform() const {
  for (int i = 1; i < islands(); ++i) {
    if (island_size(i) != island_size(0)) return false;
  }
  return true;
}

GroupLayout make_layout(const Cluster& cluster, std::span<const int> members) {
  GroupLayout g;
  g.gpus.assign(members.begin(), members.end());
  if (!std::is_sorted(g.gpus.begin(), g.gpus.end())) std::sort(g.gpus.begin(), g.gpus.end());
  const int per_island = cluster.scale_up.gpus_per_island;
  for (size_t i = 0; i < g.gpus.size(); ++i) {
    const int gpu = g.gpus[i];
    if (gpu < 0 || gpu >= cluster.gpus()) {
      throw InputError(fmt::format("group member {} is outside the cluster's {} GPUs ({} nodes of {})", gpu,
                                   cluster.gpus(), cluster.nodes, cluster.name));
    }
    if (i > 0 && gpu == g.gpus[i - 1]) throw InputError(fmt::format("group lists GPU {} twice", gpu));
    if (i == 0 || gpu / per_island != g.gpus[i - 1] / per_island) g.island_begin.push_back(static_cast<int>(i));
  }
  g.island_begin.push_back(static_cast<int>(g.gpus.size()));
  return g;
}

}  // namespace ringbench::model
