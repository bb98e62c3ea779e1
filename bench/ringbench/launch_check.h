#pragma once
// Launch mistakes caught before MPI_Init. A task of a multi-task srun step without any
// process-management interface (srun --mpi=none) makes Open MPI abort inside MPI_Init with
// "OPAL ERROR: Unreachable", which names nothing useful; we say what to do instead.

#include <string>

namespace ringbench {

// The reason this launch cannot work, or empty.
std::string launch_without_pmi();

}  // namespace ringbench

namespace ringbench {

// One line for a run started without any launcher (no mpirun, srun, PMI or file bootstrap): it
// runs as a single rank, which measures nothing between ranks. Empty when a launcher is present.
std::string single_rank_notice();

}  // namespace ringbench
