#include "algorithm_spec.h"

#include "segments.h"

namespace ringbench::spec {

const std::vector<const AlgorithmSpec*>& all_algorithm_specs() {
  static const std::vector<const AlgorithmSpec*> specs = {
      &ring_allreduce(),
      &naive_allreduce(),
      &tree_allreduce(),
      &rhd_allreduce(),
      &recursive_doubling_allreduce(),
      &two_shot_allreduce(),
      &hierarchical_allreduce(),
      &ring_allgather(),
      &recursive_doubling_allgather(),
      &ring_reducescatter(),
      &rhd_reducescatter(),
      &chain_broadcast(),
      &binomial_broadcast(),
      &ring_reduce(),
      &binomial_reduce(),
      &pairwise_alltoall(),
  };
  return specs;
}

uint64_t chosen_segment_bytes(const AlgorithmSpec& spec, int world_size, uint64_t message_bytes, double latency_us,
                              double bandwidth_GBps) {
  if (!is_pipelined(spec)) return 0;
  // One more than the plan's fill steps: a hop is itself a pipeline of two copies (the sender's
  // into its socket, the receiver's out of its own), so even a one-hop chain has a stage to fill.
  // Measured (docs/performance.md): without it the chain at N = 2 ran one 16 MiB segment, 0.88x
  // the 64 KiB default; with it, 128-256 KiB and 1.04-1.36x from 2 MiB up.
  return pipeline_segment_bytes(message_bytes, latency_us, bandwidth_GBps, spec.fill_steps(world_size) + 1);
}

const AlgorithmSpec* find_algorithm_spec(std::string_view collective, std::string_view name) {
  for (const AlgorithmSpec* spec : all_algorithm_specs())
    if (spec->collective == collective && spec->name == name) return spec;
  return nullptr;
}

}  // namespace ringbench::spec
