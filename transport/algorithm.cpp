#include "algorithm.h"

#include <map>
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
#include "communicator.h"

namespace ringbench {

const std::vector<const Algorithm*>& all_algorithms() {
  // One line per algorithm; the order is the order reports list them in: by collective, the
  // bandwidth-optimal ring first, then the alternatives it is compared with.
  static const std::vector<const Algorithm*> algorithms = {
      &ring_allreduce(),
      &naive_allreduce(),
      &tree_allreduce(),
      &rhd_allreduce(),
      &recursive_doubling_allreduce(),
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
