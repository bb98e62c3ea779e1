#pragma once
// One established connection to one peer: its TCP socket(s), who is on the other end, and the
// byte counters of everything that crossed it. Owned by the Communicator; used from one thread
// (helper threads make only its system calls, and the caller acts on their results).
//
// With --streams K the connection is K sockets, and its one byte stream is striped over them
// (stripe.h): writes and reads go to the socket the next byte belongs to, so callers see one
// ordered stream whatever K is. fd() is the socket the next byte is sent on, read_fd() the one the
// next byte arrives on (what to poll for POLLOUT and POLLIN); the counters, TCP_INFO included,
// cover all K sockets. A write, or a read of a frame's payload, offers every socket its share of
// the bytes (its stripes), and each moves what it can: one socket whose window is shut does not
// hold the others back. A socket may so move stripes past the stream's first unmoved byte; a
// later call offering the same bytes at the same places skips them (each socket's own count says
// how far it got). With helper threads (--threads, stream_helpers.h) the shares move at once.
//
// All I/O is non-blocking; callers wait for readiness through the progress loop. System-call
// results are classified in one place: EAGAIN means "try later" (0 bytes), EOF, EPIPE and
// ECONNRESET mean the peer closed (TransportError PeerClosed), anything else is a System error
// naming the peer.

#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "byte_counters.h"
#include "error.h"
#include "fd.h"

namespace ringbench {

class StreamHelpers;

// The kernel's own count of one connection's bytes (getsockopt TCP_INFO).
// Both are comparable with our own counters at any moment: data still queued in either direction
// is accounted for (see kernel_counts()).
struct KernelByteCounts {
  uint64_t bytes_sent = 0;      // tcpi_bytes_acked plus bytes still in the send queue
  uint64_t bytes_received = 0;  // tcpi_bytes_received less bytes not yet read by us
};

class Connection {
 public:
  enum class State { Connected, Closed };

  // opened_by_us: this rank called connect() (the kernel then counts our SYN as an acked byte).
  Connection(Fd fd, int my_rank, int peer_rank, std::string peer_address, bool opened_by_us = false);
  // Stream 1, 2, ... of the connection, in order, before any byte moves (set-up only).
  void add_stream(Fd fd);

  // -1 once silenced (below), so that poll() passes over it.
  int fd() const { return silenced_ ? -1 : sockets_[send_socket()].get(); }
  int read_fd() const { return silenced_ ? -1 : sockets_[read_socket()].get(); }
  int streams() const { return static_cast<int>(sockets_.size()); }
  int peer_rank() const { return peer_rank_; }
  const std::string& peer_address() const { return peer_address_; }  // "10.0.0.2:41235"
  State state() const { return state_; }
  // "rank 2 (127.0.0.1:41235)", for messages.
  std::string describe_peer() const;

  // The threads that move a call's shares of the K sockets at once; null (the default): this
  // thread moves the shares one after another. Set before any byte moves; outlives the connection.
  void set_helpers(StreamHelpers* helpers) { helpers_ = helpers; }

  // Writes as much of iov as the socket takes now; returns the byte count (0 if it would block).
  // The caller offers the bytes not yet written again, at the same places, until all are written.
  size_t write_some(const iovec* iov, int iov_count);
  // Reads up to the iov's total size; returns the byte count (0 if nothing is available).
  // read_ahead: the caller will offer the unread part of iov again, at the same places, until
  // all of it is read (a frame's payload), so sockets may fill later stripes of it before an
  // earlier one. Without it (a header, which a control frame in front of it may displace) bytes
  // are read in stream order only.
  size_t read_some(const iovec* iov, int iov_count, bool read_ahead = false);

  // Every byte moved is recorded here by whoever moved it, split into payload and overhead.
  void record_sent(uint64_t overhead, uint64_t payload);
  void record_received(uint64_t overhead, uint64_t payload);
  const ByteCounters& counters() const { return counters_; }

  // Bytes read into a payload that turned out to be a frame header (a control frame sat in front
  // of the expected one): moves them from the payload count to the overhead count.
  void reclassify_received_as_overhead(uint64_t bytes);

  KernelByteCounts kernel_counts() const;
  void close();

  // Liveness (see progress.cpp). When a byte last arrived from / left for the peer.
  using Clock = std::chrono::steady_clock;
  Clock::time_point last_received() const { return last_received_; }
  Clock::time_point last_sent() const { return last_sent_; }
  // Copies up to `size` waiting bytes without consuming them; 0 when none. Throws like read_some
  // when the peer has closed and nothing is left to read.
  size_t peek(std::byte* out, size_t size);
  // True while a data frame has been started but not finished on the send side: no control frame
  // may be written until it is.
  bool sending_frame() const { return sending_frame_; }
  void set_sending_frame(bool on) { sending_frame_ = on; }
  // Control frames (heartbeat, abort, bye) waiting to be written, and writing them: returns true
  // once none is left. A partly written control frame is finished before any data frame starts.
  void queue_control(std::span<const std::byte> frame);
  bool flush_control();
  bool control_pending() const { return control_done_ < control_out_.size(); }
  // The peer said Bye: it finished the job cleanly; its closing is not a failure.
  bool departed() const { return departed_; }
  void set_departed() { departed_ = true; }
  // When the connection was found closed or reset, and how (for the grace period in progress.cpp).
  Clock::time_point closed_at() const { return closed_at_; }
  const std::string& close_cause() const { return close_cause_; }
  // Fault injection (TransportOptions::silenced_peer): from now on nothing is read from or written
  // to this connection, as if every packet were dropped both ways; it stays open.
  void silence() { silenced_ = true; }
  bool silenced() const { return silenced_; }

 private:
  [[noreturn]] void fail(const char* call, int err);
  [[noreturn]] void fail_closed();
  int send_socket() const;
  int read_socket() const;
  // One system call on one socket, classified but not yet acted on, so that helper threads can
  // make it: error is errno, kPeerClosed for an orderly close (recv returned 0), or 0.
  struct Moved {
    size_t bytes = 0;
    int error = 0;
  };
  static constexpr int kPeerClosed = -1;
  static Moved send_raw(int fd, const iovec* iov, int iov_count);
  static Moved receive_raw(int fd, const iovec* iov, int iov_count, int flags);
  // On this connection's thread: notes the time of a move, or throws for its error.
  size_t settle_sent(Moved moved);
  size_t settle_received(Moved moved, int flags);
  // Calls move(socket, iov, count) on stripe-sized runs of iov, advancing *offset and the socket's
  // count in socket_bytes (when not null), until one moves less than it was offered.
  template <typename Move>
  size_t striped(const iovec* iov, int iov_count, uint64_t* offset, uint64_t* socket_bytes, Move move);
  // Every socket's not yet moved share of iov, one system call each (at once on the helpers, if
  // any); advances *offset to the stream's first unmoved byte and returns how far it moved.
  size_t striped_together(const iovec* iov, int iov_count, uint64_t* offset, uint64_t* socket_bytes, bool sending);
  KernelByteCounts kernel_counts_of(int fd) const;
  // A failure on this connection: this rank, the peer and its address, and `what` happened.
  ErrorFacts facts(TransportErrorKind kind, std::string what) const;
  void mark_closed(std::string cause);

  std::vector<Fd> sockets_;  // the streams, in stripe order (stripe.h)
  uint64_t sent_offset_ = 0;      // the stream's first byte not yet written (all before it are)
  uint64_t received_offset_ = 0;  // the stream's first byte not yet read
  // By socket: bytes it has written and read (stripe_offset() turns them into stream offsets).
  std::vector<uint64_t> socket_sent_{0}, socket_received_{0};
  // By socket: the iovecs of its share in striped_together, kept so that their capacity is reused.
  std::vector<std::vector<iovec>> share_pieces_{1};
  StreamHelpers* helpers_ = nullptr;
  int my_rank_;
  int peer_rank_;
  bool opened_by_us_ = false;
  std::string peer_address_;
  State state_ = State::Connected;
  ByteCounters counters_;
  Clock::time_point last_received_ = Clock::now();
  Clock::time_point last_sent_ = Clock::now();
  bool sending_frame_ = false;
  bool departed_ = false;
  bool silenced_ = false;
  std::vector<std::byte> control_out_;
  size_t control_done_ = 0;
  Clock::time_point closed_at_{};
  std::string close_cause_;
};

}  // namespace ringbench
