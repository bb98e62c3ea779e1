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
// The options in force on a connected socket, as the kernel reports them, for diagnostics:
// "TCP_NODELAY on, SO_SNDBUF 2626560 B (kernel autotuning), SO_RCVBUF 131072 B (kernel
// autotuning), TCP_MAXSEG 65483 B, congestion control cubic". requested_buffer_bytes: what
// make_tcp_socket was asked for (0: autotuning).
std::string describe_socket_options(int fd, size_t requested_buffer_bytes);

}  // namespace ringbench
