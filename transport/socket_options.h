#pragma once
// Socket set-up shared by listening, connecting and accepted sockets.

#include <cstddef>
#include <string>

#include "fd.h"

namespace ringbench {

// A non-blocking IPv4 TCP socket with buffers sized as requested (0: kernel autotuning). Buffer
// sizes must be set before listen()/connect() for the window scale to follow them.
Fd make_tcp_socket(size_t socket_buffer_bytes);
void set_nodelay(int fd);
// "127.0.0.1:41235" of the socket's peer.
std::string peer_address_of(int fd);

}  // namespace ringbench
