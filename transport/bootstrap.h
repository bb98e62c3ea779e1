#pragma once
// How ranks find each other before any of our connections exist. The transport needs exactly one
// collective from the launcher: an allgather of one small blob per rank. MPI provides it for real
// runs (bench/ringbench/mpi_bootstrap.*); tests run ranks as threads with InMemoryBootstrap.

#include <string>
#include <vector>

namespace ringbench {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank passes its blob and gets all blobs, indexed by rank. Called once per job.
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
};

}  // namespace ringbench
