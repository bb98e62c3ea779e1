#pragma once
// The handle of a non-blocking collective (Communicator::start): test() without blocking, wait()
// until it is done. Copies share one call. Any thread may test() or wait(); the call itself runs
// on the communicator's progress thread (progress_thread.h).

#include <atomic>
#include <exception>
#include <memory>

namespace ringbench {

// What a started call shares between its handles and the progress thread. `error` is written
// before `done` is set (release) and read only after `done` is seen (acquire). `done` is an int,
// not a bool: libstdc++ waits on an int with a futex on its own address, but on a bool through a
// futex shared by every address in its hash bucket, so every call finishing would wake a caller
// waiting for a later one (nonblocking_test's WaitingForTheLastCallSleepsThroughTheOthers).
struct RequestState {
  std::atomic<int> done{0};  // 1 once the call has finished
  std::exception_ptr error;
};

class Request {
 public:
  Request() = default;  // no call: test() is true, wait() returns at once
  explicit Request(std::shared_ptr<RequestState> state) : state_(std::move(state)) {}

  // True once the call has finished, successfully or not. Never blocks.
  bool test() const { return !state_ || state_->done.load(std::memory_order_acquire) != 0; }
  // Blocks until the call has finished, then rethrows what it threw: the same TransportError a
  // blocking call would have thrown (naming the failed rank), or the error of an earlier call on
  // this communicator, which fails every call after it at once. Bounded by the liveness timeout
  // (TransportOptions::timeout) of the call and of those started before it.
  void wait() const {
    if (!state_) return;
    state_->done.wait(0, std::memory_order_acquire);
    if (state_->error) std::rethrow_exception(state_->error);
  }

 private:
  std::shared_ptr<RequestState> state_;
};

}  // namespace ringbench
