#include "launch_check.h"

#include <cstdlib>

#include <fmt/format.h>

namespace ringbench {

std::string launch_without_pmi() {
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  if (tasks == nullptr || std::atoi(tasks) <= 1) return {};
  // Any of these means a launcher MPI_Init can talk to: mpirun, srun --mpi=pmix, PMI-1/2, or
  // ringbench's own file bootstrap.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_FD", "RINGBENCH_BOOTSTRAP_DIR"})
    if (std::getenv(name) != nullptr) return {};
  return fmt::format("srun started {} tasks without a process-management interface MPI can use, so each would be "
                     "an unconnected singleton: launch with `srun --mpi=pmix` (Open MPI here has no PMI-2 support) "
                     "or use mpirun inside the allocation",
                     tasks);
}

}  // namespace ringbench

namespace ringbench {

std::string single_rank_notice() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_FD", "PMI_SIZE", "SLURM_STEP_ID",
                           "SLURM_PROCID", "RINGBENCH_BOOTSTRAP_DIR"})
    if (std::getenv(name) != nullptr) return {};
  return "ringbench: no launcher found (mpirun, srun or RINGBENCH_BOOTSTRAP_DIR), so this runs as a single rank; "
         "to measure N ranks: mpirun -np N ringbench [options]";
}

}  // namespace ringbench
