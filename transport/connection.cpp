#include "connection.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {

Connection::Connection(Fd fd, int my_rank, int peer_rank, std::string peer_address, bool opened_by_us)
    : fd_(std::move(fd)),
      my_rank_(my_rank),
      peer_rank_(peer_rank),
      opened_by_us_(opened_by_us),
      peer_address_(std::move(peer_address)) {}

std::string Connection::describe_peer() const { return ringbench::describe_peer(peer_rank_, peer_address_); }

ErrorFacts Connection::facts(TransportErrorKind kind, std::string what) const {
  ErrorFacts facts(kind, my_rank_, peer_rank_, std::move(what));
  facts.peer_address = peer_address_;
  return facts;
}

size_t Connection::write_some(const iovec* iov, int iov_count) {
  if (silenced_) return 0;
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);
  msg.msg_iovlen = static_cast<size_t>(iov_count);
  for (;;) {
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) last_sent_ = Clock::now();
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    fail("send", errno);
  }
}

size_t Connection::read_some(const iovec* iov, int iov_count) {
  if (silenced_) return 0;
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);
  msg.msg_iovlen = static_cast<size_t>(iov_count);
  for (;;) {
    ssize_t n = ::recvmsg(fd_.get(), &msg, MSG_DONTWAIT);
    if (n > 0) {
      last_received_ = Clock::now();
      return static_cast<size_t>(n);
    }
    if (n == 0) {
      mark_closed("closed its connection");
      throw TransportError(
          facts(TransportErrorKind::PeerClosed, fmt::format("connection to {} closed by the peer", describe_peer())));
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    fail("recv", errno);
  }
}

size_t Connection::peek(std::byte* out, size_t size) {
  if (silenced_) return 0;
  for (;;) {
    ssize_t n = ::recv(fd_.get(), out, size, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) {
      mark_closed("closed its connection");
      throw TransportError(
          facts(TransportErrorKind::PeerClosed, fmt::format("connection to {} closed by the peer", describe_peer())));
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    fail("recv", errno);
  }
}

void Connection::queue_control(std::span<const std::byte> frame) {
  if (control_done_ == control_out_.size()) {
    control_out_.clear();
    control_done_ = 0;
  }
  control_out_.insert(control_out_.end(), frame.begin(), frame.end());
}

bool Connection::flush_control() {
  while (control_done_ < control_out_.size()) {
    iovec iov{control_out_.data() + control_done_, control_out_.size() - control_done_};
    size_t n = write_some(&iov, 1);
    if (n == 0) return false;
    record_sent(n, 0);  // control frames are protocol overhead, all of them
    control_done_ += n;
  }
  return true;
}

void Connection::mark_closed(std::string cause) {
  if (state_ != State::Closed) {
    state_ = State::Closed;
    closed_at_ = Clock::now();
    close_cause_ = std::move(cause);
  }
}

void Connection::reclassify_received_as_overhead(uint64_t bytes) {
  counters_.payload_received -= bytes;
  counters_.overhead_received += bytes;
}

void Connection::fail(const char* call, int err) {
  mark_closed(err == EPIPE || err == ECONNRESET ? "reset its connection" : system_error_text(call, err));
  const bool reset = err == EPIPE || err == ECONNRESET;
  ErrorFacts failure =
      facts(reset ? TransportErrorKind::PeerClosed : TransportErrorKind::System,
            fmt::format("connection to {} {}", describe_peer(), reset ? "reset by the peer" : "failed"));
  failure.syscall = call;
  failure.error_number = err;
  throw TransportError(std::move(failure));
}

void Connection::record_sent(uint64_t overhead, uint64_t payload) {
  counters_.overhead_sent += overhead;
  counters_.payload_sent += payload;
}

void Connection::record_received(uint64_t overhead, uint64_t payload) {
  counters_.overhead_received += overhead;
  counters_.payload_received += payload;
}

KernelByteCounts Connection::kernel_counts() const {
  // Sent side: the bytes the peer acknowledged plus those still in our send queue (unsent or
  // unacknowledged). Not tcpi_bytes_sent: it counts a segment again when a shaping qdisc drops it
  // locally and TCP sends it anew, which tcpi_bytes_retrans does not cover (seen on a tbf-shaped
  // link). Received side: what arrived in order less what we have not read yet. The queues are
  // read on both sides of TCP_INFO, so an ack or data arriving in between is noticed and the
  // caller retries.
  int unread_before = 0, unread_after = 0, queued_before = 0, queued_after = 0;
  tcp_info info{};
  socklen_t length = sizeof info;
  ::ioctl(fd_.get(), SIOCINQ, &unread_before);
  ::ioctl(fd_.get(), SIOCOUTQ, &queued_before);
  int rc = ::getsockopt(fd_.get(), IPPROTO_TCP, TCP_INFO, &info, &length);
  const int getsockopt_error = errno;
  ::ioctl(fd_.get(), SIOCOUTQ, &queued_after);
  ::ioctl(fd_.get(), SIOCINQ, &unread_after);
  if (unread_before != unread_after || queued_before != queued_after) return {UINT64_MAX, UINT64_MAX};
  if (rc != 0) {
    ErrorFacts failure =
        facts(TransportErrorKind::System, fmt::format("cannot read the kernel's byte counts for {}", describe_peer()));
    failure.syscall = "getsockopt(TCP_INFO)";
    failure.error_number = getsockopt_error;
    throw TransportError(std::move(failure));
  }
  // The kernel counts a received FIN as one byte of sequence space: a peer that has already closed
  // its end (it finished first) shows one byte more than it ever sent.
  // (Kernel TCP state numbers from include/net/tcp_states.h; linux/tcp.h does not export them.)
  enum : uint8_t { kTimeWait = 6, kCloseWait = 8, kLastAck = 9, kClosing = 11 };
  uint8_t state = info.tcpi_state;
  uint64_t fin = (state == kCloseWait || state == kLastAck || state == kClosing || state == kTimeWait) ? 1 : 0;
  // The active opener's SYN is one acknowledged byte of sequence space that carried no data.
  const uint64_t syn = opened_by_us_ ? 1 : 0;
  return {info.tcpi_bytes_acked - syn + static_cast<uint64_t>(queued_after),
          info.tcpi_bytes_received - fin - static_cast<uint64_t>(unread_after)};
}

void Connection::close() {
  fd_.reset();
  mark_closed("closed by this rank");
}

}  // namespace ringbench
