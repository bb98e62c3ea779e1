#include "results/file_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "results/hdf5_file.h"
#include "results/results_file.h"

namespace ringbench::results {
namespace {

constexpr std::chrono::milliseconds kPollInterval{50};

// "pid 1234 on node07": written by each holder so that a waiter that gives up can say who holds
// the lock. Best effort: the lock works without it.
std::string holder_description() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) std::strcpy(host.data(), "unknown host");
  return fmt::format("pid {} on {}", getpid(), host.data());
}

void record_holder(int fd) {
  const std::string holder = holder_description() + "\n";
  if (ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = pwrite(fd, holder.data(), holder.size(), 0);
  }
}

std::string read_holder(int fd) {
  std::array<char, 512> buffer{};
  const ssize_t got = pread(fd, buffer.data(), buffer.size() - 1, 0);
  if (got <= 0) return "an unknown process";
  std::string holder(buffer.data(), static_cast<size_t>(got));
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder.empty() ? "an unknown process" : holder;
}

}  // namespace

std::filesystem::path FileLock::path_for(const std::filesystem::path& results_file) {
  std::filesystem::path lock = results_file;
  lock += ".lock";
  return lock;
}

FileLock FileLock::acquire(const std::filesystem::path& results_file, std::chrono::milliseconds timeout) {
  const std::string context = file_context(results_file);
  const std::filesystem::path lock_path = path_for(results_file);
  Fd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!fd)
    throw ResultsError(
        fmt::format("{}: cannot open lock file '{}': {}", context, lock_path.string(), std::strerror(errno)));

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (flock(fd.get(), LOCK_EX | LOCK_NB) == 0) break;
    const int error = errno;
    if (error == EINTR) continue;
    if (error != EWOULDBLOCK)
      throw ResultsError(fmt::format(
          "{}: cannot lock '{}': {} (the filesystem may not support flock; on Lustre mount with -o flock, "
          "or keep the results file on another filesystem)",
          context, lock_path.string(), std::strerror(error)));
    if (std::chrono::steady_clock::now() >= deadline)
      throw ResultsBusy(fmt::format(
          "{} is locked by another writer for more than {:g} s (lock file '{}' held by {}); wait for it "
          "to finish, or raise the lock timeout",
          context, std::chrono::duration<double>(timeout).count(), lock_path.string(),
          read_holder(fd.get())));
    std::this_thread::sleep_for(kPollInterval);
  }
  record_holder(fd.get());
  return FileLock(std::move(fd));
}

}  // namespace ringbench::results
