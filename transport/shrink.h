#pragma once
// --on-failure shrink: after a failure, the survivors agree on who failed (failure_agreement.h)
// and go on as a smaller job. shrink() builds the survivors' communicator, epoch + 1, from the
// failed one: ranks renumbered in their old order (the first survivor becomes rank 0), the same
// listener, cards, interface, options and job secret, and the agreement's fresh connections. The
// old communicator is finished with: destroying it closes its connections, so a rank declared
// failed that wakes up finds them closed, and its knock is answered Fenced (strangers.h).

#include <memory>
#include <vector>

#include "communicator.h"
#include "failure_agreement.h"

namespace ringbench {

struct Shrunk {
  std::unique_ptr<Communicator> comm;
  std::vector<int> failed;     // ranks of the old communicator, ascending
  std::vector<int> survivors;  // survivors[new rank] = old rank
  int rounds = 0;              // agreement rounds until stable
};

// Blocks for the agreement (failure_agreement.h). `failure` is the verdict that stopped `old`;
// it must name a rank. Throws Fenced when this rank is the one declared failed, or TransportError
// when no agreement is reached.
Shrunk shrink(Communicator& old, const TransportError& failure);

}  // namespace ringbench
