#include "results_sink.h"

#include <cstdio>

namespace ringbench {

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
