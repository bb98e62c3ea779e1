#include "socket_options.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {

Fd make_tcp_socket(size_t socket_buffer_bytes) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) {
    const int err = errno;
    ErrorFacts failure(TransportErrorKind::System, -1, -1, "");
    failure.syscall = "socket";
    failure.error_number = err;
    throw TransportError(std::move(failure));
  }
  if (socket_buffer_bytes > 0) {
    int bytes = static_cast<int>(socket_buffer_bytes);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  }
  return fd;
}

void set_nodelay(int fd) {
  // Small frames (headers, barriers, tiny collectives) must leave at once, not wait for Nagle.
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string peer_address_of(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(address.sin_port));
}

namespace {

// The option's value as the kernel reports it, or -1 when it cannot be read.
int option_value(int fd, int level, int name) {
  int value = 0;
  socklen_t length = sizeof value;
  return ::getsockopt(fd, level, name, &value, &length) == 0 ? value : -1;
}

// "SO_SNDBUF 2626560 B": Linux reports twice what was asked (half is its bookkeeping), and caps
// a request at net.core.wmem_max / rmem_max, which is worth saying since it silently undoes --sockbuf.
std::string buffer_text(const char* name, int granted, size_t requested, const char* cap) {
  if (requested == 0) return fmt::format("{} {} B (kernel autotuning)", name, granted);
  const bool capped = granted >= 0 && static_cast<size_t>(granted) < 2 * requested;
  return fmt::format("{} {} B (asked {} B{}{})", name, granted, requested, capped ? ", capped by " : "",
                     capped ? cap : "");
}

}  // namespace

std::string describe_socket_options(int fd, size_t requested_buffer_bytes) {
  char congestion[16] = {};
  socklen_t length = sizeof congestion - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, congestion, &length) != 0) congestion[0] = '?';
  return fmt::format("TCP_NODELAY {}, {}, {}, TCP_MAXSEG {} B, congestion control {}",
                     option_value(fd, IPPROTO_TCP, TCP_NODELAY) > 0 ? "on" : "off",
                     buffer_text("SO_SNDBUF", option_value(fd, SOL_SOCKET, SO_SNDBUF), requested_buffer_bytes,
                                 "net.core.wmem_max"),
                     buffer_text("SO_RCVBUF", option_value(fd, SOL_SOCKET, SO_RCVBUF), requested_buffer_bytes,
                                 "net.core.rmem_max"),
                     option_value(fd, IPPROTO_TCP, TCP_MAXSEG), congestion);
}

}  // namespace ringbench
