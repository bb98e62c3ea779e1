#include "algorithm_spec.h"

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

const AlgorithmSpec* find_algorithm_spec(std::string_view collective, std::string_view name) {
  for (const AlgorithmSpec* spec : all_algorithm_specs())
    if (spec->collective == collective && spec->name == name) return spec;
  return nullptr;
}

}  // namespace ringbench::spec
