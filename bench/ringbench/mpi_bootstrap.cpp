#include "mpi_bootstrap.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>

#include <fmt/format.h>

namespace ringbench {

MpiBootstrap::MpiBootstrap(int* argc, char*** argv) {
  try {
    file_ = FileBootstrap::from_environment();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ringbench: error: %s\n", e.what());
    std::exit(2);
  }
  if (file_) {
    rank_ = file_->rank();
    size_ = file_->size();
    return;
  }
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiBootstrap::~MpiBootstrap() {
  if (!file_) MPI_Finalize();
}

std::vector<std::string> MpiBootstrap::allgather(const std::string& mine) {
  if (file_) return file_->allgather(mine);
  // Cards differ in length: gather lengths padded into one fixed slot size agreed by MPI_Allreduce
  // would be a second collective, so pad to a generous fixed size instead and check it.
  constexpr int kSlot = 4096;
  std::string slot = mine;
  if (slot.size() >= kSlot) {
    // Every rank must call the allgather, so report and stop rather than publish half a card.
    std::fprintf(stderr, "ringbench: error: rank %d: its address card is %zu bytes, more than the %d the bootstrap "
                         "carries (too many network interfaces? choose one with --iface)\n",
                 rank_, slot.size(), kSlot - 1);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  slot.resize(kSlot, '\0');
  std::vector<char> all(static_cast<size_t>(kSlot) * static_cast<size_t>(size_));
  MPI_Allgather(slot.data(), kSlot, MPI_CHAR, all.data(), kSlot, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> cards;
  for (int r = 0; r < size_; ++r) cards.emplace_back(all.data() + static_cast<size_t>(r) * kSlot);
  return cards;
}

std::string MpiBootstrap::library_version() const {
  if (file_) return "none (file bootstrap, RINGBENCH_BOOTSTRAP_DIR)";
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<size_t>(length));
  auto end = version.find_first_of("\n,");
  return end == std::string::npos ? version : version.substr(0, end);
}

void MpiBootstrap::abort(int exit_code) {
  if (file_) std::exit(exit_code);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

std::string MpiBootstrap::launch_mismatch() const {
  if (file_) return {};
  auto number = [](const char* name) -> int {
    const char* value = std::getenv(name);
    return value ? std::atoi(value) : 0;
  };
  int ompi_size = number("OMPI_COMM_WORLD_SIZE");
  if (ompi_size > 0 && ompi_size != size_)
    return fmt::format("mpirun started {} processes but MPI reports a world of {}: this binary is linked "
                       "against a different MPI than the mpirun used (check `which mpirun` and `ldd ringbench`)",
                       ompi_size, size_);
  int slurm_tasks = number("SLURM_STEP_NUM_TASKS");
  if (ompi_size == 0 && slurm_tasks > 1 && size_ == 1)
    return fmt::format("srun started {} tasks (this is SLURM_PROCID {}) but each one is an MPI singleton of size 1: "
                       "launch with `srun --mpi=pmix` (Open MPI here has no PMI-2 support) or use mpirun",
                       slurm_tasks, number("SLURM_PROCID"));
  return {};
}

}  // namespace ringbench
