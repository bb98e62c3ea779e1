#pragma once
// A stranger at a rank's door, for the tests that check strangers are turned away: connects to
// 127.0.0.1:port, sends `bytes` (maybe none), then reports whether the rank closed (or reset) the
// connection within `limit`. With `keep`, it returns at once after sending and hands the open
// socket over instead, so the caller can hold many strangers at the door together.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport/fd.h"

namespace ringbench::testing {

inline bool closed_within(uint16_t port, const std::vector<std::byte>& bytes, std::chrono::seconds limit,
                          Fd* keep = nullptr) {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return false;
  if (!bytes.empty()) ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (keep) {
    *keep = std::move(fd);
    return true;
  }
  timeval tv{static_cast<time_t>(limit.count()), 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c[64];
  for (;;) {
    ssize_t n = ::recv(fd.get(), c, sizeof c, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;  // timed out: still open
  }
}

}  // namespace ringbench::testing
