#include "launch_watchdog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "exit_codes.h"

namespace ringbench {
namespace {

// The rank as the launcher's environment gives it, before MPI_Init can: "rank 2", or "a rank".
std::string rank_from_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "RINGBENCH_RANK"})
    if (const char* value = std::getenv(name); value && *value) return fmt::format("rank {}", value);
  return "a rank";
}

}  // namespace

std::chrono::milliseconds LaunchWatchdog::deadline_for(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return timeout;
  return std::max(timeout, kMinimum);
}

std::optional<std::chrono::milliseconds> LaunchWatchdog::timeout_in(int argc, char** argv) {
  const std::string flag = "--timeout";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (arg == flag && i + 1 < argc) value = argv[i + 1];
    else if (arg.rfind(flag + "=", 0) == 0) value = arg.substr(flag.size() + 1);
    else continue;
    char* end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(seconds >= 0 && seconds <= 7 * 86400)) return std::nullopt;
    return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  return std::nullopt;
}

LaunchWatchdog::LaunchWatchdog(std::chrono::milliseconds deadline)
    : deadline_(deadline), rank_(rank_from_environment()), thread_([this] { watch(); }) {}

LaunchWatchdog::~LaunchWatchdog() {
  done();
  thread_.join();
}

void LaunchWatchdog::phase(std::string waiting_for) {
  std::lock_guard lock(mutex_);
  phase_ = std::move(waiting_for);
}

void LaunchWatchdog::set_rank(int rank) {
  std::lock_guard lock(mutex_);
  rank_ = fmt::format("rank {}", rank);
}

void LaunchWatchdog::set_deadline(std::chrono::milliseconds deadline) {
  {
    std::lock_guard lock(mutex_);
    deadline_ = deadline;
  }
  changed_.notify_all();
}

void LaunchWatchdog::done() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
}

void LaunchWatchdog::watch() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (done_) return;
    if (deadline_.count() <= 0) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, start_ + deadline_) == std::cv_status::timeout && !done_ &&
        Clock::now() >= start_ + deadline_)
      expire();
  }
}

void LaunchWatchdog::expire() {
  // Called with the mutex held: the phase cannot change under the message.
  std::fprintf(stderr, "ringbench: error: %s: launch deadline %g s passed while waiting for %s\n", rank_.c_str(),
               deadline_.count() / 1000.0, phase_.c_str());
  std::fflush(nullptr);
  std::_Exit(exit_code::kTimedOut);
}

}  // namespace ringbench
