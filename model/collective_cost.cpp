#include "collective_cost.h"

#include <algorithm>

#include "algorithms/algorithm.h"
#include "error.h"
#include "units.h"

namespace ringbench::model {

CostModel::CostModel(const Cluster& cluster) : fabric_((validate(cluster), cluster)), loads_(fabric_.links()) {}

Batch CostModel::batch(std::span<const std::vector<int>> groups) const {
  Batch b;
  b.reserve(groups.size());
  for (const auto& members : groups) b.push_back(make_layout(cluster(), members));
  return b;
}

CollectiveCost CostModel::cost(Op op, Algorithm algorithm, const Batch& batch, uint64_t bytes) {
  CollectiveCost out;
  out.op = op;
  out.algorithm = algorithm;
  out.groups = static_cast<int>(batch.size());
  out.bytes = bytes;
  int members = 0;
  for (const auto& g : batch) {
    out.group_size = std::max(out.group_size, g.size());
    members += g.size();
  }
  if (out.group_size < 2) return out;  // nothing to communicate

  loads_.clear();
  Traffic traffic(fabric_, loads_);
  double alpha_us = 0;
  bool phased = false;
  for (const auto& g : batch) {
    if (g.size() < 2) continue;
    const algorithms::Steps steps = algorithms::run(algorithm, g, op, static_cast<double>(bytes), traffic);
    if (!steps.applicable) {
      out.applicable = false;
      out.why_not = steps.why_not;
      loads_.clear();
      return out;
    }
    alpha_us = std::max(alpha_us, steps.latency_us);
    phased = phased || steps.phased;
  }
  // The two levels' busiest links: their sum for a phased algorithm (collective_cost.h), else
  // the busier of the two, which is the busiest link overall.
  const int split = fabric_.scale_up_links();
  const auto up = loads_.bottleneck(fabric_, 0, split);
  const auto net = loads_.bottleneck(fabric_, split, static_cast<int>(fabric_.links()));
  const auto b = up.seconds >= net.seconds ? up : net;
  out.phased = phased;
  out.scale_up_us = up.seconds * 1e6;
  out.network_us = net.seconds * 1e6;
  out.latency_us = cluster().launch_overhead_us + alpha_us;
  out.bandwidth_us = phased ? out.scale_up_us + out.network_us : std::max(out.scale_up_us, out.network_us);
  out.time_us = out.latency_us + out.bandwidth_us;
  out.algbw_GBps = GBps(static_cast<double>(bytes), out.time_us);
  out.busbw_GBps = out.algbw_GBps * bus_factor(op, out.group_size);
  out.wire_bytes_per_gpu = traffic.sent_bytes() / members;
  if (phased && up.link >= 0 && net.link >= 0) {
    out.bottleneck = fabric_.link_name(up.link) + " + " + fabric_.link_name(net.link);  // both set the time
  } else if (b.link >= 0) {
    out.bottleneck = fabric_.link_name(b.link);
  }
  loads_.clear();
  return out;
}

std::vector<CollectiveCost> CostModel::cost_each(Op op, const Batch& batch, uint64_t bytes) {
  std::vector<CollectiveCost> out;
  for (Algorithm a : algorithms_for(op)) out.push_back(cost(op, a, batch, bytes));
  return out;
}

CollectiveCost CostModel::cost_best(Op op, const Batch& batch, uint64_t bytes) {
  const auto each = cost_each(op, batch, bytes);
  const int best = fastest(each);
  if (best < 0) return each.front();
  return each[static_cast<size_t>(best)];
}

int fastest(std::span<const CollectiveCost> costs) {
  int best = -1;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (!costs[i].applicable) continue;
    if (best < 0 || costs[i].time_us < costs[static_cast<size_t>(best)].time_us) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace ringbench::model
