#include "sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "error.h"

namespace ringbench::model {

bool MessageWorkload::fits(const Placement& p, std::string& why) const {
  if (max_tp > 0 && p[Dim::TP] > max_tp) {
    why = fmt::format("tp {} > max tp {}", p[Dim::TP], max_tp);
    return false;
  }
  if (layers % p[Dim::PP] != 0) {
    why = fmt::format("pp {} does not divide {} layers", p[Dim::PP], layers);
    return false;
  }
  return true;
}

StepTraffic MessageWorkload::traffic(const Placement& p) const {
  StepTraffic t;
  const double layers_per_stage = static_cast<double>(layers) / p[Dim::PP];
  t.tp_bytes = tp_bytes;
  t.tp_per_step = 4.0 * layers_per_stage * microbatches;
  t.dp_bytes = gradient_bytes / static_cast<uint64_t>(p[Dim::TP] * p[Dim::PP]);
  t.dp_per_step = 1.0;
  t.pp_bytes = pp_bytes;
  t.pp_per_step = 2.0 * microbatches;
  t.cp_bytes = cp_bytes;
  t.cp_per_step = 2.0 * layers_per_stage * microbatches;
  t.ep_bytes = ep_bytes;
  t.ep_per_step = 4.0 * layers_per_stage * microbatches;
  return t;
}

namespace {

// Groups of a dimension depend only on (size, stride) for a packed job, so different rank
// orders share most batches: cost each distinct one once.
class BatchCache {
 public:
  explicit BatchCache(CostModel& model) : model_(model) {}

  const std::vector<CollectiveCost>& each(Op op, uint64_t bytes, const Placement& p, Dim dim) {
    const auto key = std::make_tuple(op, bytes, p[dim], p.stride(dim), p.gpus());
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::vector<std::vector<int>> members = op == Op::SendRecv ? stage_pairs(p) : groups(p, dim);
    const Batch batch = model_.batch(members);
    return cache_.emplace(key, model_.cost_each(op, batch, bytes)).first->second;
  }

 private:
  CostModel& model_;
  std::map<std::tuple<Op, uint64_t, int, int, int>, std::vector<CollectiveCost>> cache_;
};

CollectiveCost best_of(const std::vector<CollectiveCost>& each) {
  const int i = fastest(each);
  return i < 0 ? each.front() : each[static_cast<size_t>(i)];
}

PlacementResult evaluate_cached(BatchCache& cache, const Workload& workload, const Placement& p) {
  PlacementResult r;
  r.placement = p;
  r.traffic = workload.traffic(p);
  r.tp_each = cache.each(Op::AllReduce, r.traffic.tp_bytes, p, Dim::TP);
  r.dp_each = cache.each(Op::AllReduce, r.traffic.dp_bytes, p, Dim::DP);
  r.tp = best_of(r.tp_each);
  r.dp = best_of(r.dp_each);
  const StepTraffic& tr = r.traffic;
  if (tr.tp_sequence_parallel) {
    const CollectiveCost rs = best_of(cache.each(Op::ReduceScatter, tr.tp_bytes, p, Dim::TP));
    const CollectiveCost ag = best_of(cache.each(Op::AllGather, tr.tp_bytes, p, Dim::TP));
    r.tp = rs;
    r.tp.time_us = rs.time_us + ag.time_us;
    r.tp.latency_us = rs.latency_us + ag.latency_us;
    r.tp.bandwidth_us = rs.bandwidth_us + ag.bandwidth_us;
  }
  const Op dp_op = tr.dp_sharded ? Op::ReduceScatter : Op::AllReduce;
  if (tr.dp_sharded) {
    r.dp = best_of(cache.each(Op::ReduceScatter, tr.dp_bytes, p, Dim::DP));
    r.dp_gather = best_of(cache.each(Op::AllGather, tr.dp_bytes, p, Dim::DP));
  }
  if (tr.dp_bucket_bytes > 0) r.dp_bucket = best_of(cache.each(dp_op, std::min(tr.dp_bucket_bytes, tr.dp_bytes), p, Dim::DP));
  r.pp = best_of(cache.each(Op::SendRecv, r.traffic.pp_bytes, p, Dim::PP));
  if (tr.pp_gather_bytes > 0) r.pp_gather = best_of(cache.each(Op::AllGather, tr.pp_gather_bytes, p, Dim::TP));
  r.cp = best_of(cache.each(Op::AllGather, r.traffic.cp_bytes, p, Dim::CP));
  r.ep = best_of(cache.each(Op::AllToAll, r.traffic.ep_bytes, p, Dim::EP));
  const StepTraffic& t = r.traffic;
  r.step_comm_us = t.tp_per_step * r.tp.time_us + t.dp_per_step * (r.dp.time_us + r.dp_gather.time_us) +
                   t.pp_per_step * (r.pp.time_us + r.pp_gather.time_us) +
                   t.cp_per_step * r.cp.time_us + t.ep_per_step * r.ep.time_us;
  return r;
}

int islands_spanned(const Cluster& c, const Placement& p, Dim dim) {
  // The first group: ranks 0, stride, ..., (size-1) x stride; every group of a packed job spans
  // as many islands as it does when the island size divides the job's.
  const int last = (p[dim] - 1) * p.stride(dim);
  return last / c.scale_up.gpus_per_island + 1;
}

// Every distinct order of the dimensions larger than 1 (dimensions of size 1 do not change any
// group), completed with the rest in the default order.
std::vector<std::array<Dim, kDims>> distinct_orders(const Placement& p) {
  std::vector<Dim> active;
  for (Dim d : Placement{}.order) {
    if (p[d] > 1) active.push_back(d);
  }
  std::vector<std::array<Dim, kDims>> out;
  do {
    std::array<Dim, kDims> order{};
    size_t i = 0;
    for (Dim d : active) order[i++] = d;
    for (Dim d : Placement{}.order) {
      if (p[d] == 1) order[i++] = d;
    }
    out.push_back(order);
  } while (std::next_permutation(active.begin(), active.end()));
  return out;
}

}  // namespace

std::optional<double> step_comm_us_with(const PlacementResult& r, Algorithm algorithm) {
  auto time_of = [&](const std::vector<CollectiveCost>& each) -> std::optional<double> {
    for (const auto& c : each) {
      if (c.algorithm == algorithm) return c.applicable ? std::optional(c.time_us) : std::nullopt;
    }
    return std::nullopt;
  };
  const auto tp = time_of(r.tp_each);
  const auto dp = time_of(r.dp_each);
  if (!tp || !dp) return std::nullopt;
  const StepTraffic& t = r.traffic;
  return t.tp_per_step * *tp + t.dp_per_step * *dp + t.pp_per_step * (r.pp.time_us + r.pp_gather.time_us) +
         t.cp_per_step * r.cp.time_us +
         t.ep_per_step * r.ep.time_us;
}

PlacementResult evaluate(CostModel& model, const Workload& workload, const Placement& placement) {
  check_divides(placement, placement.gpus());
  if (placement.gpus() > model.cluster().gpus()) {
    throw InputError(fmt::format("placement needs {} GPUs but cluster {} has {}", placement.gpus(),
                                 model.cluster().name, model.cluster().gpus()));
  }
  BatchCache cache(model);
  PlacementResult r = evaluate_cached(cache, workload, placement);
  r.tp_islands = islands_spanned(model.cluster(), placement, Dim::TP);
  return r;
}

std::vector<PlacementResult> sweep(CostModel& model, const Workload& workload, int gpus, const SweepOptions& options) {
  if (gpus < 1) throw InputError(fmt::format("--gpus must be >= 1, got {}", gpus));
  if (gpus > model.cluster().gpus()) {
    throw InputError(fmt::format("--gpus {} exceeds cluster {} ({} GPUs)", gpus, model.cluster().name,
                                 model.cluster().gpus()));
  }
  if (options.cp < 1 || options.ep < 1 || gpus % (options.cp * options.ep) != 0) {
    throw InputError(fmt::format("--cp {} x --ep {} must divide --gpus {}", options.cp, options.ep, gpus));
  }
  std::vector<std::array<Dim, kDims>> fixed_orders;
  for (const auto& o : options.orders) fixed_orders.push_back(parse_order(o));

  BatchCache cache(model);
  std::vector<PlacementResult> results;
  const int rest = gpus / (options.cp * options.ep);
  std::string why;
  for (int tp = 1; tp <= rest; ++tp) {
    if (rest % tp != 0) continue;
    for (int pp = 1; pp <= rest / tp; ++pp) {
      if ((rest / tp) % pp != 0) continue;
      Placement p;
      p[Dim::TP] = tp;
      p[Dim::PP] = pp;
      p[Dim::CP] = options.cp;
      p[Dim::EP] = options.ep;
      p[Dim::DP] = rest / tp / pp;
      if (!workload.fits(p, why)) continue;
      for (const auto& order : fixed_orders.empty() ? distinct_orders(p) : fixed_orders) {
        p.order = order;
        PlacementResult r = evaluate_cached(cache, workload, p);
        r.tp_islands = islands_spanned(model.cluster(), p, Dim::TP);
        results.push_back(std::move(r));
      }
    }
  }
  if (results.empty()) throw InputError(fmt::format("no placement of {} GPUs fits the workload", gpus));
  std::stable_sort(results.begin(), results.end(),
                   [](const PlacementResult& a, const PlacementResult& b) { return a.step_comm_us < b.step_comm_us; });
  return results;
}

}  // namespace ringbench::model
