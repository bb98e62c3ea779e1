#pragma once
// Owns one file descriptor; closes it exactly once. The one RAII descriptor of the project: the
// transport's sockets, and the results library's lock file, fsync()s and /dev/urandom.

#include <unistd.h>

#include <utility>

namespace ringbench {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // close() errors are ignored: a socket has nothing left to report, and every file the results
  // library writes is fsync()ed (and its error reported) before it is closed.
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace ringbench
