#include "link_test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "transport/communicator.h"
#include "transport/fd.h"

namespace ringbench {

using Clock = std::chrono::steady_clock;

double ring_exchange_seconds(Communicator& comm, uint64_t bytes, int iterations, int back_to_back) {
  const int n = comm.size(), r = comm.rank();
  if (n == 1 || iterations < 1 || back_to_back < 1) return 0.0;
  // N chunk slots, used like a ring all-reduce's buffer: frame k sends slot r-k and receives into
  // slot r-k-1, which frame k+1 then forwards.
  std::vector<std::byte> slots(bytes * static_cast<size_t>(n));
  auto slot = [&](int k) { return std::span<std::byte>(slots.data() + static_cast<size_t>(((k % n) + n) % n) * bytes, bytes); };
  std::vector<SendSpec> sends;
  std::vector<RecvSpec> receives;
  for (int k = 0; k < back_to_back; ++k) {
    sends.push_back({(r + 1) % n, static_cast<uint32_t>(k), slot(r - k)});
    receives.push_back({(r - 1 + n) % n, static_cast<uint32_t>(k), slot(r - k - 1)});
  }
  double total = 0;
  for (int i = 0; i < iterations; ++i) {
    comm.barrier();
    comm.begin_collective();
    auto start = Clock::now();
    comm.ring_stream(sends, receives, {"send/receive", "link test", 0, static_cast<uint32_t>(back_to_back)});
    total += std::chrono::duration<double>(Clock::now() - start).count();
  }
  return total / iterations / back_to_back;
}

double plain_socket_pair_bandwidth(uint64_t total_bytes) {
  Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.get(), 1) != 0 || ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return 0.0;
  constexpr size_t kWrite = 1 << 20;
  std::thread reader([&] {
    Fd fd(::accept(listener.get(), nullptr, nullptr));
    std::vector<char> buffer(kWrite);
    while (::recv(fd.get(), buffer.data(), buffer.size(), 0) > 0) {
    }
  });
  Fd writer(::socket(AF_INET, SOCK_STREAM, 0));
  // Timed from the first write until the reader has drained the last byte.
  auto start = Clock::now();
  bool connected = ::connect(writer.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  if (connected) {
    std::vector<char> buffer(kWrite, 'r');
    for (uint64_t sent = 0; sent < total_bytes;) {
      ssize_t n = ::send(writer.get(), buffer.data(), buffer.size(), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<uint64_t>(n);
    }
  }
  writer.reset();
  if (!connected) ::shutdown(listener.get(), SHUT_RDWR);  // wakes the reader's accept()
  reader.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return connected && seconds > 0 ? static_cast<double>(total_bytes) / seconds : 0.0;
}

}  // namespace ringbench
