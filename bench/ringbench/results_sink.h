#pragma once
// Rank 0's writer of the results file during a run. Rows are committed as soon as they exist (a
// run killed later keeps them), but while the other ranks wait on rank 0 it must not sit for long
// on a lock another run holds: during the sweep a commit waits only briefly, and rows that could
// not be committed stay queued and go with the next commit, or with flush() at the end, which may
// wait as long as the lock needs. Any other failure is reported once; the rows still print on
// stdout, so no measurement is lost from view.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "results/results_file.h"

namespace ringbench {

class MpiBootstrap;

// Rank 0 proves `output` writable (results::check_writable: a real probe file and lock file)
// before any socket opens. Under MPI every rank learns the verdict, so all stop alike with exit 2;
// under the file bootstrap only rank 0 knows. Returns the one-line reason, or empty.
std::string output_problem(MpiBootstrap& mpi, const std::string& output);

class ResultsSink {
 public:
  ResultsSink(std::string path, std::chrono::milliseconds lock_wait_during_run)
      : path_(std::move(path)), lock_wait_during_run_(lock_wait_during_run) {}

  // Queues a change and tries to commit everything queued.
  void add(std::function<void(results::Transaction&)> change);
  // Commits what is queued, waiting up to `lock_wait` for the lock. True when nothing is left.
  bool flush(std::chrono::milliseconds lock_wait);
  bool failed() const { return failed_; }

 private:
  bool try_commit(std::chrono::milliseconds lock_wait, bool final);

  std::string path_;
  std::chrono::milliseconds lock_wait_during_run_;
  std::vector<std::function<void(results::Transaction&)>> queued_;
  bool failed_ = false;
  bool told_busy_ = false;
};

}  // namespace ringbench
