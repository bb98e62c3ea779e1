#pragma once
// The only MPI in ringbench's own path: MPI_Init, rank and size, one MPI_Allgather of each
// rank's published address, MPI_Finalize. (The `mpi` baseline rows call the MPI library's own
// collectives, and are labelled as such.)

#include <optional>
#include <string>
#include <vector>

#include "transport/bootstrap.h"
#include "transport/file_bootstrap.h"

namespace ringbench {

// With RINGBENCH_BOOTSTRAP_DIR (and RINGBENCH_RANK, RINGBENCH_SIZE) set, MPI is not used at all:
// the address exchange goes through files (transport/file_bootstrap.h). The fault tests launch
// ranks that way so that no MPI launcher kills the survivors of a failure before they detect it;
// the `mpi` baseline rows need MPI and are not available then (uses_mpi() is false).
class MpiBootstrap : public Bootstrap {
 public:
  MpiBootstrap(int* argc, char*** argv);  // MPI_Init
  ~MpiBootstrap() override;               // MPI_Finalize
  MpiBootstrap(const MpiBootstrap&) = delete;
  MpiBootstrap& operator=(const MpiBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> allgather(const std::string& mine) override;

  // "Open MPI v4.1.4, ..." first line of MPI_Get_library_version.
  std::string library_version() const;
  // Aborts every rank through MPI (used only when our own transport cannot tell the others).
  [[noreturn]] void abort(int exit_code);

  // A launch that gave N copies of "rank 0 of 1" while the launcher started more processes
  // (mpirun of another MPI, srun without --mpi=pmix): the reason, or empty when consistent.
  std::string launch_mismatch() const;

  bool uses_mpi() const { return !file_; }

 private:
  std::optional<FileBootstrap> file_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace ringbench
