#include "link_test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "statistics/order_statistics.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/collectives/streamed_ring.h"
#include "transport/communicator.h"
#include "transport/data_type.h"
#include "transport/fd.h"
#include "transport/interfaces.h"

namespace ringbench {

using Clock = std::chrono::steady_clock;

namespace {

// Makes each receive land in a staging ring and be summed into its slot as it arrives, exactly as
// the ring plans' reduce-scatter steps do (transport/collectives/streamed_ring.cpp).
void stage_and_reduce(Communicator& comm, std::span<RecvSpec> receives) {
  constexpr size_t kFloat = sizeof(float);
  const std::span<std::byte> staging = comm.scratch(kRingStagingPieces * comm.pipeline_piece(kFloat));
  for (RecvSpec& in : receives) {
    if (in.payload.size() % kFloat != 0)
      throw std::invalid_argument("reducing link test: " + std::to_string(in.payload.size()) +
                                  " bytes is not a whole number of float32s");
    reduce_through_staging(in, DataType::Float32, ReduceOp::Sum, staging);
  }
}

}  // namespace

RingExchange::RingExchange(Communicator& comm, uint64_t bytes, int back_to_back, std::span<std::byte> workspace,
                           ExchangeWork work)
    : comm_(comm), back_to_back_(back_to_back) {
  const int n = comm.size(), r = comm.rank();
  if (n == 1 || back_to_back < 1) return;
  // Chunk slots, used like a ring all-reduce's buffer: frame k sends slot r-k and receives into
  // slot r-k-1, which frame k+1 then forwards. Up to N slots, carved from the caller's workspace
  // when it holds at least two (the contents are never checked, so fewer slots than N move the
  // same bytes); otherwise allocated here.
  size_t count = bytes > 0 ? std::min<size_t>(static_cast<size_t>(n), workspace.size() / bytes) : 0;
  if (count < 2) {
    own_.resize(bytes * static_cast<size_t>(n));
    workspace = own_;
    count = static_cast<size_t>(n);
  }
  const int m = static_cast<int>(count);
  auto slot = [&](int k) { return workspace.subspan(static_cast<size_t>(((k % m) + m) % m) * bytes, bytes); };
  for (int k = 0; k < back_to_back; ++k) {
    sends_.push_back({(r + 1) % n, static_cast<uint32_t>(k), slot(r - k)});
    receives_.push_back({(r - 1 + n) % n, static_cast<uint32_t>(k), slot(r - k - 1)});
  }
  if (work == ExchangeWork::reduce) stage_and_reduce(comm, receives_);
}

void RingExchange::time(int iterations) {
  if (sends_.empty()) return;
  for (int i = 0; i < iterations; ++i) {
    comm_.barrier();
    comm_.begin_collective();
    auto start = Clock::now();
    comm_.ring_stream(sends_, receives_, {"send/receive", "link test", 0, static_cast<uint32_t>(back_to_back_)});
    seconds_.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
}

double RingExchange::median_chunk_seconds() const {
  return seconds_.empty() ? 0.0 : stats::median(seconds_) / back_to_back_;
}

double ring_exchange_seconds(Communicator& comm, uint64_t bytes, int iterations, int back_to_back,
                             std::span<std::byte> workspace, ExchangeWork work) {
  if (comm.size() == 1 || iterations < 1 || back_to_back < 1) return 0.0;
  RingExchange exchange(comm, bytes, back_to_back, workspace, work);
  exchange.time(iterations);
  return exchange.median_chunk_seconds();
}

namespace {

constexpr size_t kWrite = 1 << 20;
constexpr uint64_t kMaxBytes = 256ull << 20;
constexpr auto kMaxTime = std::chrono::seconds(1);
// Neither end may wait longer than this for the other (a firewalled data interface, a peer that
// died): the measurement is then reported as 0 and the run goes on.
constexpr int kDeadlineSeconds = 10;

void bound_waits(int fd) {
  timeval limit{kDeadlineSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

// Accepts one connection, reads until EOF, answers with the byte count (8 bytes).
void plain_reader(int listener) {
  pollfd ready{listener, POLLIN, 0};
  if (::poll(&ready, 1, kDeadlineSeconds * 1000) != 1) return;
  Fd fd(::accept(listener, nullptr, nullptr));
  if (!fd) return;
  bound_waits(fd.get());
  std::vector<char> buffer(kWrite);
  uint64_t total = 0;
  for (ssize_t n; (n = ::recv(fd.get(), buffer.data(), buffer.size(), 0)) > 0;) total += static_cast<uint64_t>(n);
  ::send(fd.get(), &total, sizeof total, MSG_NOSIGNAL);
}

// Writes 1 MiB blocks for at most kMaxBytes or kMaxTime, half-closes, and waits for the reader's
// count: timed from the first write until the reader has drained the last byte.
double plain_writer(const sockaddr_in& address) {
  Fd writer(::socket(AF_INET, SOCK_STREAM, 0));
  bound_waits(writer.get());  // connect() obeys SO_SNDTIMEO too
  if (::connect(writer.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return 0.0;
  std::vector<char> buffer(kWrite, 'r');
  auto start = Clock::now();
  for (uint64_t sent = 0; sent < kMaxBytes && Clock::now() - start < kMaxTime;) {
    ssize_t n = ::send(writer.get(), buffer.data(), buffer.size(), MSG_NOSIGNAL);
    if (n <= 0) return 0.0;
    sent += static_cast<uint64_t>(n);
  }
  ::shutdown(writer.get(), SHUT_WR);
  uint64_t received = 0;
  if (::recv(writer.get(), &received, sizeof received, MSG_WAITALL) != sizeof received) return 0.0;
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return seconds > 0 ? static_cast<double>(received) / seconds : 0.0;
}

Fd listen_on(const std::string& ip, sockaddr_in& address) {
  Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  address = {};
  address.sin_family = AF_INET;
  ::inet_pton(AF_INET, ip.c_str(), &address.sin_addr);
  socklen_t length = sizeof address;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.get(), 1) != 0 || ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return Fd();
  return listener;
}

}  // namespace

PlainPair measure_plain_pair(Communicator& comm) {
  const auto& cards = comm.peers();
  int peer = -1;  // the first rank on another host than rank 0, if any
  for (int r = 1; r < comm.size() && peer < 0; ++r)
    if (!cards[r].host.same_host(cards[0].host)) peer = r;

  PlainPair result;
  if (peer < 0) {
    // One host: both ends in rank 0, over loopback.
    if (comm.rank() != 0) return result;
    sockaddr_in address{};
    Fd listener = listen_on("127.0.0.1", address);
    if (!listener) return result;
    std::thread reader(plain_reader, listener.get());
    result.GBps = plain_writer(address) / 1e9;
    ::shutdown(listener.get(), SHUT_RDWR);  // wakes accept() if the writer never connected
    reader.join();
    result.path = "loopback on " + cards[0].host.hostname;
    return result;
  }
  // Across hosts: rank `peer` listens on its chosen interface and tells rank 0 the port over our
  // connection; the bytes themselves cross a separate, plain blocking socket.
  comm.begin_collective();
  if (comm.rank() == peer) {
    sockaddr_in address{};
    Fd listener = listen_on(comm.interface().address, address);
    uint16_t port = listener ? ntohs(address.sin_port) : 0;
    SendSpec send{0, 0, std::as_bytes(std::span(&port, 1))};
    comm.exchange({&send, 1}, {}, {"plain pair", "setup", 0, 1});
    if (listener) plain_reader(listener.get());
  } else if (comm.rank() == 0) {
    uint16_t port = 0;
    RecvSpec recv{peer, 0, std::as_writable_bytes(std::span(&port, 1))};
    comm.exchange({}, {&recv, 1}, {"plain pair", "setup", 0, 1});
    const std::string ip = cards[peer].chosen.address;
    if (port != 0) {
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(port);
      ::inet_pton(AF_INET, ip.c_str(), &address.sin_addr);
      result.GBps = plain_writer(address) / 1e9;
    }
    result.path = cards[0].host.hostname + " -> " + cards[peer].host.hostname + " (" + ip + ")";
  }
  return result;
}

}  // namespace ringbench
