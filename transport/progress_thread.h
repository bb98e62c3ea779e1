#pragma once
// The thread that drives a Communicator while its owner computes: the runner of non-blocking
// collectives (Communicator::start).
//
// A started call is the same sequential code a blocking call runs (an algorithm's run over
// Communicator::exchange and ring_stream); it is queued as a job, and this thread runs the jobs
// one at a time in the order they were started. So several calls may be in flight, they complete
// in issue order, and every rank advances its sequence numbers identically, as long as every rank
// starts the same calls in the same order. While a job runs, only this thread touches the
// connections; the owner's thread touches them only when no job is in flight (drain()), so the
// progress loop (progress.cpp) needs no lock.
//
// The thread is made on the first start(): a program that never starts a call has no extra
// thread. It blocks the flight recorder's signal (SIGUSR1), which is read through the
// communicator's signalfd, never delivered. The destructor fails the jobs not yet begun, lets the
// running one end (bounded by its liveness timeout) and joins.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "request.h"

namespace ringbench {

class ProgressThread {
 public:
  // `rank` names this rank in the error of a call cancelled by the destructor.
  explicit ProgressThread(int rank) : rank_(rank) {}
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  // Queues `job` behind every call started before it. If a call already failed, the job never
  // runs and its request fails with that error; start() itself throws it.
  Request start(std::function<void()> job);
  // True while a started call has not finished. Cheap (one atomic read); after it returns false
  // the owner sees everything the finished jobs wrote.
  bool busy() const { return in_flight_.load(std::memory_order_acquire) > 0; }
  // Blocks until every started call has finished.
  void drain();
  // The communicator failed (on any thread): every later start() and job fails with `failure`.
  void note_failure(std::exception_ptr failure);
  // True on this object's own thread: a job may call the communicator without draining.
  bool on_this_thread() const;

 private:
  struct Job {
    std::function<void()> run;
    std::shared_ptr<RequestState> state;
  };
  void loop();
  static void finish(Job& job, std::exception_ptr error);

  int rank_;
  std::mutex mutex_;
  std::condition_variable work_;  // a job was queued, or stopping_
  std::condition_variable idle_;  // in_flight_ reached zero
  std::deque<Job> queue_;         // started, not begun
  std::atomic<size_t> in_flight_{0};
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::thread thread_;  // last: started after every member it uses exists
};

}  // namespace ringbench
