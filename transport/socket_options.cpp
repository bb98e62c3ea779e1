#include "socket_options.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

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

}  // namespace ringbench
