#include "results_sink.h"

#include <algorithm>
#include <cstdio>

#include "mpi_bootstrap.h"

namespace ringbench {

std::string output_problem(MpiBootstrap& mpi, const std::string& output) {
  std::string problem;
  if (mpi.rank() == 0) {
    try {
      results::check_writable(output);
    } catch (const std::exception& e) {
      problem = e.what();
      if (problem.empty()) problem = "cannot be written";
      problem.resize(std::min<size_t>(problem.size(), 1000));  // the bootstrap carries 4 KiB per rank
    }
  }
  if (!mpi.uses_mpi()) return problem;
  return mpi.allgather(problem).at(0);  // MPI's allgather may be called any number of times
}

void ResultsSink::add(std::function<void(results::Transaction&)> change) {
  queued_.push_back(std::move(change));
  try_commit(lock_wait_during_run_, false);
}

bool ResultsSink::flush(std::chrono::milliseconds lock_wait) { return try_commit(lock_wait, true); }

bool ResultsSink::try_commit(std::chrono::milliseconds lock_wait, bool final) {
  if (queued_.empty()) return true;
  try {
    results::commit(path_, [&](results::Transaction& t) {
      for (auto& change : queued_) change(t);
    }, lock_wait);
    queued_.clear();
    return true;
  } catch (const results::ResultsBusy& e) {
    if (final) {
      std::fprintf(stderr, "ringbench: error: %s\n", e.what());
      failed_ = true;
    } else if (!told_busy_) {
      std::fprintf(stderr, "ringbench: %s; keeping rows to commit later\n", e.what());
      told_busy_ = true;
    }
  } catch (const std::exception& e) {
    if (!failed_) std::fprintf(stderr, "ringbench: error: %s\n", e.what());
    failed_ = true;
  }
  return false;
}

}  // namespace ringbench
