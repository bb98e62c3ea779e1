#pragma once
// The launch deadline: everything from process start to a connected mesh (MPI start-up, the
// address exchange, connection set-up) must finish within --timeout (kMinimum at least), or each
// rank says what it was waiting for and exits with the timeout code. Without it a launch that
// stalls (a stranger at a port, a rank that never started) hangs with no output at all.
//
// A thread sleeps until the deadline; the code tells it the phase as it moves on (phase()), and
// done() stops it once the mesh is connected. On expiry it writes one line to stderr, e.g.
// "ringbench: error: rank 2: launch deadline 30 s passed while waiting for the connection from
// rank 3 (10.0.0.2:40123)", and ends the process with _Exit (MPI_Init may hold locks; nothing is
// left to clean up).
//
// Threading: phase(), set_rank(), set_deadline() and done() may be called from any thread.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ringbench {

class LaunchWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  // Launching N processes and MPI start-up take seconds on a loaded machine, even when a short
  // --timeout suits the collectives that follow: the launch gets at least this long.
  static constexpr std::chrono::milliseconds kMinimum = std::chrono::seconds(10);
  // The deadline for `timeout` (TransportOptions::timeout): at least kMinimum; 0 (wait forever)
  // stays 0.
  static std::chrono::milliseconds deadline_for(std::chrono::milliseconds timeout);
  // --timeout as the command line gives it ("--timeout 5", "--timeout=5"), read before MPI_Init so
  // that the deadline covers MPI start-up too; nullopt when absent or not a number of seconds (the
  // command line's own parsing, later, reports a bad value).
  static std::optional<std::chrono::milliseconds> timeout_in(int argc, char** argv);

  // Starts the clock now, with `deadline` (0: none) and the rank the launcher's environment gives.
  explicit LaunchWatchdog(std::chrono::milliseconds deadline);
  ~LaunchWatchdog();
  LaunchWatchdog(const LaunchWatchdog&) = delete;
  LaunchWatchdog& operator=(const LaunchWatchdog&) = delete;

  void phase(std::string waiting_for);
  void set_rank(int rank);
  // Measured from the process start (construction); 0: no deadline.
  void set_deadline(std::chrono::milliseconds deadline);
  // The mesh is connected: the watchdog stops and its thread ends.
  void done();

 private:
  void watch();
  [[noreturn]] void expire();

  const Clock::time_point start_ = Clock::now();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::chrono::milliseconds deadline_;
  std::string phase_ = "the process to start";
  std::string rank_;  // "rank 2", or "a rank" until known
  bool done_ = false;
  std::thread thread_;  // last: starts once every member above is ready
};

}  // namespace ringbench
