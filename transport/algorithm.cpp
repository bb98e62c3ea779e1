#include "algorithm.h"

#include "collectives/ring_allreduce.h"

namespace ringbench {

const std::vector<const Algorithm*>& all_algorithms() {
  // One line per algorithm; the order is the order reports list them in.
  static const std::vector<const Algorithm*> algorithms = {
      &ring_allreduce(),
  };
  return algorithms;
}

const Algorithm* find_algorithm(Collective collective, std::string_view name) {
  for (const Algorithm* a : all_algorithms())
    if (a->collective() == collective && a->name() == name) return a;
  return nullptr;
}

}  // namespace ringbench
