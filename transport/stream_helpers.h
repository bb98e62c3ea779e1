#pragma once
// Helper threads that drive one rank's streams together (--threads T, issue 18 §3).
//
// One TCP stream is moved by one core: every byte costs a kernel copy on the thread that calls
// sendmsg or recvmsg. With --streams K the K sockets of a connection can be written (and read) at
// once by different threads, so a NIC that needs more than one core's copying can be filled. The
// progress loop stays single-threaded: a Connection hands one write_some or read_some as K jobs,
// one per socket, to run(), which runs them on the calling thread and T - 1 helpers and returns
// when all have ended (fork-join). No helper ever touches a connection outside such a call, so
// the Communicator's rule that one thread drives the connections at a time still holds.
//
// Jobs are taken, not assigned: a helper that is slow to wake (its core is busy) simply gets none,
// and the calling thread runs them itself. So T > cores costs a wake-up, never a stall.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ringbench {

class StreamHelpers {
 public:
  // `threads` drive the streams, the caller of run() included: threads - 1 helpers are started.
  explicit StreamHelpers(int threads);
  ~StreamHelpers();
  StreamHelpers(const StreamHelpers&) = delete;
  StreamHelpers& operator=(const StreamHelpers&) = delete;

  int threads() const { return static_cast<int>(helpers_.size()) + 1; }
  // Runs job(0) .. job(jobs - 1), each exactly once, on this thread and the helpers; returns when
  // every one has ended. The first exception a job threw is rethrown then.
  void run(int jobs, const std::function<void(int)>& job);

 private:
  void help();
  // Takes the next job of the current batch, runs it and counts it done; false when none was left.
  bool run_one(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable work_;  // a batch was posted, or the helpers must stop
  std::condition_variable done_;  // the batch's last job ended
  const std::function<void(int)>* job_ = nullptr;
  int jobs_ = 0, next_ = 0, unfinished_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> helpers_;
};

}  // namespace ringbench
