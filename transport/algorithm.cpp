#include "algorithm.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "collectives/binomial_broadcast.h"
#include "collectives/binomial_reduce.h"
#include "collectives/chain_broadcast.h"
#include "collectives/hierarchical_allreduce.h"
#include "collectives/naive_allreduce.h"
#include "collectives/pairwise_alltoall.h"
#include "collectives/recursive_doubling_allgather.h"
#include "collectives/recursive_doubling_allreduce.h"
#include "collectives/rhd_allreduce.h"
#include "collectives/rhd_reducescatter.h"
#include "collectives/ring_allgather.h"
#include "collectives/ring_allreduce.h"
#include "collectives/ring_reduce.h"
#include "collectives/ring_reducescatter.h"
#include "collectives/tree_allreduce.h"
#include "collectives/two_shot_allreduce.h"
#include "communicator.h"
#include "spec/algorithm_spec.h"

namespace ringbench {

namespace {

// Where `a` stands in the specification's list (spec/algorithm_spec.cpp), which alone decides the
// order reports list algorithms in.
size_t specification_position(const Algorithm& a) {
  const auto& specs = spec::all_algorithm_specs();
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i]->collective == to_string(a.collective()) && specs[i]->name == a.name()) return i;
  throw std::logic_error("algorithm " + std::string(a.name()) + " has no specification");
}

std::vector<const Algorithm*> in_specification_order(std::vector<const Algorithm*> runners) {
  std::ranges::sort(runners, {}, [](const Algorithm* a) { return specification_position(*a); });
  if (runners.size() != spec::all_algorithm_specs().size())
    throw std::logic_error("the transport runs " + std::to_string(runners.size()) + " algorithms, the specification has " +
                           std::to_string(spec::all_algorithm_specs().size()));
  return runners;
}

}  // namespace

const std::vector<const Algorithm*>& all_algorithms() {
  // Which code runs each specified algorithm; the order is the specification's.
  static const std::vector<const Algorithm*> algorithms = in_specification_order({
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
  });
  return algorithms;
}

const Algorithm* find_algorithm(Collective collective, std::string_view name) {
  for (const Algorithm* a : all_algorithms())
    if (a->collective() == collective && a->name() == name) return a;
  return nullptr;
}

std::vector<int> host_placement(const Communicator& comm) {
  std::map<std::string, int> index;
  std::vector<int> hosts;
  for (const PeerCard& card : comm.peers()) {
    auto [it, inserted] = index.emplace(card.host.key(), static_cast<int>(index.size()));
    hosts.push_back(it->second);
  }
  return hosts;
}

}  // namespace ringbench
