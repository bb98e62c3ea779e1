#pragma once
// One established TCP connection to one peer: the socket, who is on the other end, and the byte
// counters of everything that crossed it. Owned by the Communicator; used from one thread.
//
// All I/O is non-blocking; callers wait for readiness through the progress loop. System-call
// results are classified in one place: EAGAIN means "try later" (0 bytes), EOF, EPIPE and
// ECONNRESET mean the peer closed (TransportError PeerClosed), anything else is a System error
// naming the peer.

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "byte_counters.h"
#include "fd.h"

namespace ringbench {

// The kernel's own count of one connection's bytes (getsockopt TCP_INFO).
// Both are comparable with our own counters at any moment: data still queued in either direction
// is accounted for (see kernel_counts()).
struct KernelByteCounts {
  uint64_t bytes_sent = 0;      // tcpi_bytes_sent less retransmitted bytes, plus bytes still unsent
  uint64_t bytes_received = 0;  // tcpi_bytes_received less bytes not yet read by us
};

class Connection {
 public:
  enum class State { Connected, Closed };

  Connection(Fd fd, int my_rank, int peer_rank, std::string peer_address);

  int fd() const { return fd_.get(); }
  int peer_rank() const { return peer_rank_; }
  const std::string& peer_address() const { return peer_address_; }  // "10.0.0.2:41235"
  State state() const { return state_; }
  // "rank 2 (127.0.0.1:41235)", for messages.
  std::string describe_peer() const;

  // Writes as much of iov as the socket takes now; returns the byte count (0 if it would block).
  size_t write_some(const iovec* iov, int iov_count);
  // Reads up to the iov's total size; returns the byte count (0 if nothing is available).
  size_t read_some(const iovec* iov, int iov_count);

  // Every byte moved is recorded here by whoever moved it, split into payload and overhead.
  void record_sent(uint64_t overhead, uint64_t payload);
  void record_received(uint64_t overhead, uint64_t payload);
  const ByteCounters& counters() const { return counters_; }

  KernelByteCounts kernel_counts() const;
  void close();

 private:
  [[noreturn]] void fail(const char* call, int err);

  Fd fd_;
  int my_rank_;
  int peer_rank_;
  std::string peer_address_;
  State state_ = State::Connected;
  ByteCounters counters_;
};

}  // namespace ringbench
