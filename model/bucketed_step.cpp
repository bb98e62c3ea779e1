#include "bucketed_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "error.h"
#include "plan_cost.h"
#include "spec/algorithm_spec.h"

namespace ringbench::model {
namespace {

void check_workload(uint64_t grad_bytes, int layers, uint64_t bucket_bytes, double compute_us_per_layer) {
  if (grad_bytes == 0) throw InputError("--grad-bytes must be at least 1 byte");
  if (layers < 1) throw InputError(fmt::format("--layers must be >= 1, got {}", layers));
  if (bucket_bytes == 0) throw InputError("--bucket-bytes must be at least 1 byte");
  if (!std::isfinite(compute_us_per_layer) || compute_us_per_layer < 0) {
    throw InputError(fmt::format("--compute-ms must be a finite time >= 0, got {} us", compute_us_per_layer));
  }
  const uint64_t buckets = grad_bytes / bucket_bytes + (grad_bytes % bucket_bytes != 0 ? 1 : 0);
  if (buckets > kMaxBuckets) {
    throw InputError(fmt::format("--bucket-bytes {}: {} bytes of gradients make {} buckets, more than the model's {}",
                                 bucket_bytes, grad_bytes, buckets, kMaxBuckets));
  }
}

// The layer (1-based, backward order) that holds byte `end - 1` of the gradient stream: layers split
// the bytes evenly, layer j holding [(j-1) G / L, j G / L), so it is ceil(end L / G). In 128 bits:
// end x L can pass 2^64 (1e18 bytes x 65536 layers).
int layer_holding_end(uint64_t end, uint64_t grad_bytes, int layers) {
  __extension__ using u128 = unsigned __int128;
  const u128 scaled = static_cast<u128>(end) * static_cast<u128>(layers);
  const u128 layer = (scaled + grad_bytes - 1) / grad_bytes;
  return static_cast<int>(std::min<u128>(layer, static_cast<u128>(layers)));
}

}  // namespace

BucketedStep bucketed_step(uint64_t grad_bytes, int layers, uint64_t bucket_bytes, double compute_us_per_layer,
                           const AllReduceTime& allreduce_us) {
  check_workload(grad_bytes, layers, bucket_bytes, compute_us_per_layer);
  BucketedStep s;
  s.grad_bytes = grad_bytes;
  s.layers = layers;
  s.bucket_bytes = bucket_bytes;
  s.compute_us_per_layer = compute_us_per_layer;
  s.compute_us = layers * compute_us_per_layer;
  std::map<uint64_t, double> priced;  // at most two sizes: B and the rest
  double engine_free_us = 0;          // when the progress engine ends its last all-reduce
  for (uint64_t begin = 0; begin < grad_bytes; begin += std::min(bucket_bytes, grad_bytes - begin)) {
    BucketTimes b;
    b.bytes = std::min(bucket_bytes, grad_bytes - begin);
    b.ready_layer = layer_holding_end(begin + b.bytes, grad_bytes, layers);
    b.ready_us = b.ready_layer * compute_us_per_layer;
    auto it = priced.find(b.bytes);
    if (it == priced.end()) it = priced.emplace(b.bytes, allreduce_us(b.bytes)).first;
    b.comm_us = it->second;
    b.start_us = std::max(b.ready_us, engine_free_us);
    b.end_us = b.start_us + b.comm_us;
    engine_free_us = b.end_us;
    s.comm_alone_us += b.comm_us;
    s.timeline.push_back(b);
  }
  s.buckets = s.timeline.size();
  s.step_us = std::max(s.compute_us, engine_free_us);
  s.exposed_comm_us = s.step_us - s.compute_us;
  // In [0, 1] by construction (0 <= exposed <= comm alone); the clamp only drops rounding's -0.0.
  s.overlap_fraction = s.comm_alone_us > 0 ? std::clamp(1.0 - s.exposed_comm_us / s.comm_alone_us, 0.0, 1.0) : 0.0;
  return s;
}

BucketedStep ddp_step(const AllReduceTime& allreduce_us, const DdpWorkload& w) {
  if (w.layers < 1) throw InputError(fmt::format("--layers must be >= 1, got {}", w.layers));
  if (w.grad_bytes < static_cast<uint64_t>(w.layers)) {
    throw InputError(fmt::format("--grad-bytes {} is less than a byte for each of the {} layers", w.grad_bytes, w.layers));
  }
  // Balanced by default: each layer's backward takes as long as all-reducing its own gradients.
  const double per_layer = w.compute_us_per_layer ? *w.compute_us_per_layer : allreduce_us(w.grad_bytes / w.layers);
  return bucketed_step(w.grad_bytes, w.layers, w.bucket_bytes, per_layer, allreduce_us);
}

namespace {

// One bucket's all-reduce on `batch`, as the CostModel prices it (the fastest algorithm without one).
AllReduceTime cost_model_allreduce(CostModel& model, const Batch& batch, std::optional<Algorithm> algorithm) {
  return [&model, &batch, algorithm](uint64_t bytes) {
    const CollectiveCost c = algorithm ? model.cost(Op::AllReduce, *algorithm, batch, bytes)
                                       : model.cost_best(Op::AllReduce, batch, bytes);
    if (!c.applicable) {
      throw InputError(fmt::format("--algo {}: cannot all-reduce {} bytes here: {}", to_string(c.algorithm), bytes,
                                   c.why_not));
    }
    return c.time_us;
  };
}

}  // namespace

AllReduceTime measured_machine_allreduce(const Cluster& machine, std::string_view algorithm, int world_size,
                                         uint64_t grad_bytes) {
  std::vector<const spec::AlgorithmSpec*> candidates;
  for (const spec::AlgorithmSpec* a : spec::all_algorithm_specs()) {
    const bool named = a->name == algorithm || (algorithm == "halving-doubling" && a->name == "rhd");
    if (a->collective == "allreduce" && (algorithm == "auto" || named)) candidates.push_back(a);
  }
  if (candidates.empty()) {
    throw InputError(fmt::format("--algo {}: not one of ringbench's all-reduce algorithms, which a measured machine "
                                 "({}) prices from their plans",
                                 algorithm, machine.name));
  }
  const std::vector<int> hosts = block_placement(world_size, machine.nodes);
  return [machine, candidates, hosts, grad_bytes](uint64_t bytes) {
    constexpr size_t kFloat32 = 4;
    double fastest = std::numeric_limits<double>::infinity();
    for (const spec::AlgorithmSpec* a : candidates) {
      const PlanCall call{a, std::max<size_t>(1, bytes / kFloat32), kFloat32, 0, hosts,
                          static_cast<uint64_t>(machine.host_cpu.piece_bytes), 0.0, grad_bytes};
      fastest = std::min(fastest, plan_cost(machine, call).time_us);
    }
    return fastest;
  };
}

BucketedStep ddp_step(CostModel& model, const Batch& batch, std::optional<Algorithm> algorithm, const DdpWorkload& w) {
  return ddp_step(cost_model_allreduce(model, batch, algorithm), w);
}

BucketSweep bucket_sweep(const AllReduceTime& allreduce_us, DdpWorkload w, const std::vector<uint64_t>& bucket_sizes) {
  BucketSweep out;
  for (uint64_t size : bucket_sizes) {
    w.bucket_bytes = size;
    out.steps.push_back(ddp_step(allreduce_us, w));
    if (out.steps.back().step_us < out.steps[out.best].step_us) out.best = out.steps.size() - 1;
  }
  return out;
}

BucketSweep bucket_sweep(CostModel& model, const Batch& batch, std::optional<Algorithm> algorithm, DdpWorkload w,
                         const std::vector<uint64_t>& bucket_sizes) {
  return bucket_sweep(cost_model_allreduce(model, batch, algorithm), std::move(w), bucket_sizes);
}

}  // namespace ringbench::model
