#pragma once
// Bootstrap through a shared directory, for launching ranks without MPI: the fault tests start N
// ringbench processes themselves, so that when one dies no launcher kills the others and each
// survivor's own detection, message and exit code can be observed.
//
// Each rank writes its blob to DIR/card.RANK (written to a temporary name, then renamed, so a
// reader never sees half a card) and waits, polling, until all N cards exist.

#include <chrono>
#include <optional>
#include <string>

#include "bootstrap.h"

namespace ringbench {

class FileBootstrap : public Bootstrap {
 public:
  FileBootstrap(std::string directory, int rank, int size, std::chrono::milliseconds timeout);
  // RINGBENCH_BOOTSTRAP_DIR, RINGBENCH_RANK, RINGBENCH_SIZE; nullopt when the first is unset.
  // Throws TransportError (Config) when set but inconsistent.
  static std::optional<FileBootstrap> from_environment();

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Blocks until every rank has published, at most `timeout`; then throws TransportError
  // (Handshake) naming the ranks that never did.
  std::vector<std::string> allgather(const std::string& mine) override;

 private:
  std::string directory_;
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
};

}  // namespace ringbench
