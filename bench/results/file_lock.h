#pragma once
// The commit lock: an exclusive flock() on "<file>.lock", held for one whole commit, so that
// writers on the same results file (rank 0 of several jobs, topomodel runs) take turns.
//
// The lock file is never deleted: removing it while another writer waits on it would let a third
// writer lock a new file of the same name and run beside the second. The kernel drops the lock
// when its holder dies, so a killed writer never blocks the next one.

#include <chrono>
#include <filesystem>

#include "transport/fd.h"

namespace ringbench::results {

class FileLock {
 public:
  // Blocks until the lock is ours, polling every 50 ms for at most `timeout`. Throws ResultsError
  // naming `results_file` (and the holder's pid and host, which each holder writes into the lock
  // file) on timeout, or if the lock file cannot be opened or locked.
  static FileLock acquire(const std::filesystem::path& results_file, std::chrono::milliseconds timeout);

  // The lock file that guards `results_file`.
  static std::filesystem::path path_for(const std::filesystem::path& results_file);

 private:
  explicit FileLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;  // closing it releases the lock
};

}  // namespace ringbench::results
