#include "progress_thread.h"

#include <pthread.h>
#include <signal.h>

#include <fmt/format.h>

#include "error.h"
#include "flight_recorder.h"

namespace ringbench {
namespace {
// The progress thread the current thread is, if any.
thread_local const ProgressThread* current_progress_thread = nullptr;
}  // namespace

bool ProgressThread::on_this_thread() const { return current_progress_thread == this; }

ProgressThread::~ProgressThread() {
  std::deque<Job> cancelled;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    cancelled.swap(queue_);
  }
  work_.notify_all();
  // Peers that ran these calls see this rank leave and fail fast (a Bye where a frame was due).
  const auto error = std::make_exception_ptr(TransportError(
      {TransportErrorKind::Config, rank_, -1,
       "the communicator was destroyed before this non-blocking call began (programming error: wait for it first)"}));
  for (Job& job : cancelled) {
    in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    finish(job, error);
  }
  if (thread_.joinable()) thread_.join();
}

void ProgressThread::finish(Job& job, std::exception_ptr error) {
  job.state->error = std::move(error);
  job.state->done.store(1, std::memory_order_release);
  job.state->done.notify_all();
}

Request ProgressThread::start(std::function<void()> job) {
  auto state = std::make_shared<RequestState>();
  {
    std::lock_guard lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
    in_flight_.fetch_add(1, std::memory_order_acq_rel);
    queue_.push_back({std::move(job), state});
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  work_.notify_one();
  return Request(std::move(state));
}

void ProgressThread::drain() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return in_flight_.load(std::memory_order_acquire) == 0; });
}

void ProgressThread::note_failure(std::exception_ptr failure) {
  std::lock_guard lock(mutex_);
  if (!failure_) failure_ = std::move(failure);
}

void ProgressThread::loop() {
  // Threads inherit the creator's mask, but a library user may not have blocked the signal: a
  // SIGUSR1 delivered here would end the process instead of reaching the signalfd.
  sigset_t flight_signal;
  sigemptyset(&flight_signal);
  sigaddset(&flight_signal, kFlightSignal);
  pthread_sigmask(SIG_BLOCK, &flight_signal, nullptr);
  current_progress_thread = this;
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    std::exception_ptr error = failure_;
    lock.unlock();
    if (!error) {
      try {
        job.run();
      } catch (...) {
        error = std::current_exception();
      }
    }
    job.run = nullptr;  // the job's captures go before it counts as finished
    lock.lock();
    // Counted out before its request reads done: a caller whose wait() has returned, with nothing
    // else started, sees calls_in_flight() false.
    const bool idle = in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1;
    finish(job, std::move(error));
    if (idle) idle_.notify_all();
  }
}

}  // namespace ringbench
