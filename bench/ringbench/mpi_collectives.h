#pragma once
// The MPI library's own collectives as algorithm `mpi` of each collective: the reference users
// would otherwise reach for, timed and verified by exactly the same harness as ours. Their bytes
// cross the MPI library's connections, not ours, so they are not counted (bytes_counted() is
// false and reports show n/a). Which wire they use is Open MPI's choice unless forced, e.g.
// `mpirun --mca pml ob1 --mca btl tcp,self` for the same TCP as ours; mpi_transport.h infers
// which wire they used.

#include <string>
#include <vector>

#include "transport/algorithm.h"

namespace ringbench {

// One `mpi` algorithm per collective.
const std::vector<const Algorithm*>& mpi_algorithms();

// Every algorithm the harness can run: ringbench's own (transport/), then the `mpi` ones.
std::vector<const Algorithm*> harness_algorithms();
const Algorithm* find_harness_algorithm(Collective collective, std::string_view name);

}  // namespace ringbench
