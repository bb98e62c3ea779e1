#include "stream_helpers.h"

#include <utility>

#include "flight_recorder.h"

namespace ringbench {

StreamHelpers::StreamHelpers(int threads) {
  for (int i = 1; i < threads; ++i) helpers_.emplace_back([this] { help(); });
}

StreamHelpers::~StreamHelpers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (auto& helper : helpers_) helper.join();
}

bool StreamHelpers::run_one(std::unique_lock<std::mutex>& lock) {
  if (next_ >= jobs_) return false;
  const int index = next_++;
  const auto* job = job_;
  lock.unlock();
  std::exception_ptr error;
  try {
    (*job)(index);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error && !error_) error_ = error;
  if (--unfinished_ == 0) done_.notify_one();
  return true;
}

void StreamHelpers::help() {
  block_flight_signal();  // SIGUSR1 is read through the communicator's signalfd, never delivered
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || next_ < jobs_; });
    if (stopping_) return;
    run_one(lock);
  }
}

void StreamHelpers::run(int jobs, const std::function<void(int)>& job) {
  if (jobs <= 0) return;
  if (jobs == 1 || helpers_.empty()) {  // nothing to share: no lock, no wake-up
    std::exception_ptr first;
    for (int i = 0; i < jobs; ++i) {
      try {
        job(i);
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    }
    if (first) std::rethrow_exception(first);
    return;
  }
  std::unique_lock lock(mutex_);
  job_ = &job;
  jobs_ = jobs;
  next_ = 0;
  unfinished_ = jobs;
  error_ = nullptr;
  work_.notify_all();
  while (run_one(lock)) {
  }
  done_.wait(lock, [this] { return unfinished_ == 0; });
  jobs_ = next_ = 0;
  job_ = nullptr;
  if (auto error = std::exchange(error_, nullptr)) std::rethrow_exception(error);
}

}  // namespace ringbench
