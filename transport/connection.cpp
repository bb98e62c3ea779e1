#include "connection.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>

#include <fmt/format.h>

#include "error.h"
#include "options.h"
#include "stream_helpers.h"
#include "stripe.h"

namespace ringbench {

Connection::Connection(Fd fd, int my_rank, int peer_rank, std::string peer_address, bool opened_by_us)
    : my_rank_(my_rank), peer_rank_(peer_rank), opened_by_us_(opened_by_us), peer_address_(std::move(peer_address)) {
  sockets_.push_back(std::move(fd));
}

void Connection::add_stream(Fd fd) {
  sockets_.push_back(std::move(fd));
  socket_sent_.push_back(0);
  socket_received_.push_back(0);
  share_pieces_.emplace_back();
}

int Connection::send_socket() const { return stripe_stream(sent_offset_, streams()); }
int Connection::read_socket() const { return stripe_stream(received_offset_, streams()); }

std::string Connection::describe_peer() const { return ringbench::describe_peer(peer_rank_, peer_address_); }

ErrorFacts Connection::facts(TransportErrorKind kind, std::string what) const {
  ErrorFacts facts(kind, my_rank_, peer_rank_, std::move(what));
  facts.peer_address = peer_address_;
  return facts;
}

Connection::Moved Connection::send_raw(int fd, const iovec* iov, int iov_count) {
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);
  msg.msg_iovlen = static_cast<size_t>(iov_count);
  for (;;) {
    ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return {static_cast<size_t>(n), 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
    return {0, errno};
  }
}

Connection::Moved Connection::receive_raw(int fd, const iovec* iov, int iov_count, int flags) {
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);
  msg.msg_iovlen = static_cast<size_t>(iov_count);
  for (;;) {
    ssize_t n = ::recvmsg(fd, &msg, flags | MSG_DONTWAIT);
    if (n > 0) return {static_cast<size_t>(n), 0};
    if (n == 0) return {0, kPeerClosed};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
    return {0, errno};
  }
}

size_t Connection::settle_sent(Moved moved) {
  if (moved.bytes > 0) last_sent_ = Clock::now();
  if (moved.error) fail("send", moved.error);
  return moved.bytes;
}

size_t Connection::settle_received(Moved moved, int flags) {
  if (moved.bytes > 0 && !(flags & MSG_PEEK)) last_received_ = Clock::now();
  if (moved.error == kPeerClosed) fail_closed();
  if (moved.error) fail("recv", moved.error);
  return moved.bytes;
}

void Connection::fail_closed() {
  mark_closed("closed its connection");
  throw TransportError(
      facts(TransportErrorKind::PeerClosed, fmt::format("connection to {} closed by the peer", describe_peer())));
}

template <typename Move>
size_t Connection::striped(const iovec* iov, int iov_count, uint64_t* offset, uint64_t* socket_bytes, Move move) {
  // One socket: no stripes to respect.
  if (sockets_.size() == 1) {
    size_t n = move(sockets_[0].get(), iov, iov_count);
    *offset += n;
    if (socket_bytes) socket_bytes[0] += n;
    return n;
  }
  size_t total = 0, first = 0, skip = 0;  // iov[first] from byte `skip` is the next byte to move
  while (first < static_cast<size_t>(iov_count)) {
    // The run of iov that fits in the current stripe.
    std::array<iovec, 8> run;
    size_t room = stripe_left(*offset), wanted = 0;
    int count = 0;
    for (size_t i = first; i < static_cast<size_t>(iov_count) && room > 0 && count < 8; ++i) {
      const size_t from = i == first ? skip : 0;
      const size_t take = std::min(room, iov[i].iov_len - from);
      if (take == 0) continue;
      run[count++] = {static_cast<std::byte*>(iov[i].iov_base) + from, take};
      room -= take;
      wanted += take;
    }
    if (wanted == 0) break;
    const int socket = stripe_stream(*offset, streams());
    const size_t n = move(sockets_[socket].get(), run.data(), count);
    total += n;
    *offset += n;
    if (socket_bytes) socket_bytes[socket] += n;
    for (size_t left = n; left > 0;) {  // advance (first, skip) by n bytes
      const size_t in_this = iov[first].iov_len - skip;
      if (left < in_this) {
        skip += left;
        left = 0;
      } else {
        left -= in_this;
        ++first;
        skip = 0;
      }
    }
    while (first < static_cast<size_t>(iov_count) && iov[first].iov_len == skip) {
      ++first;
      skip = 0;
    }
    if (n < wanted) break;
  }
  return total;
}

namespace {

// Appends the iovecs for bytes [from, to) of iov (offsets from its start) to pieces.
void append_range(const iovec* iov, int iov_count, uint64_t from, uint64_t to, std::vector<iovec>& pieces) {
  uint64_t at = 0;  // offset of iov[i]'s first byte
  for (int i = 0; i < iov_count && from < to; at += iov[i].iov_len, ++i) {
    const uint64_t end = at + iov[i].iov_len;
    if (from >= end) continue;
    const uint64_t take = std::min(to, end) - from;
    pieces.push_back({static_cast<std::byte*>(iov[i].iov_base) + (from - at), take});
    from += take;
  }
}

// Fills pieces with one socket's stripes within stream bytes [from, end) of a K-socket stream,
// where `from` is that socket's next byte and iov holds the stream from byte `begin`.
void share_of(const iovec* iov, int iov_count, uint64_t begin, uint64_t from, uint64_t end, int streams,
              std::vector<iovec>& pieces) {
  pieces.clear();
  while (from < end && pieces.size() + 2 <= IOV_MAX) {
    const uint64_t piece_end = std::min(end, from + stripe_left(from));
    append_range(iov, iov_count, from - begin, piece_end - begin, pieces);
    from = from - from % kStripeBytes + kStripeBytes * static_cast<uint64_t>(streams);  // its next stripe
  }
}

uint64_t iov_bytes(const iovec* iov, int iov_count) {
  uint64_t total = 0;
  for (int i = 0; i < iov_count; ++i) total += iov[i].iov_len;
  return total;
}

}  // namespace

size_t Connection::striped_together(const iovec* iov, int iov_count, uint64_t* offset, uint64_t* socket_bytes,
                                    bool sending) {
  const int k = streams();
  const uint64_t begin = *offset, end = begin + iov_bytes(iov, iov_count);
  // The sockets with bytes of their own left in [begin, end), and what each one's call moved. No
  // allocation on this path, which every K > 1 write and payload read takes: the shares fit in an
  // array, and each socket's iovec list keeps its capacity from call to call.
  struct Share {
    int socket;
    Moved moved;
  };
  std::array<Share, TransportOptions::kMaxStreams> shares{};
  int share_count = 0;
  for (int s = 0; s < k; ++s)
    if (stripe_offset(socket_bytes[s], s, k) < end) shares[static_cast<size_t>(share_count++)] = {s, {}};
  auto move_share = [&](int i) {
    Share& share = shares[static_cast<size_t>(i)];
    const int s = share.socket;
    std::vector<iovec>& pieces = share_pieces_[static_cast<size_t>(s)];  // one job per socket: never shared
    share_of(iov, iov_count, begin, stripe_offset(socket_bytes[s], s, k), end, k, pieces);
    const int fd = sockets_[static_cast<size_t>(s)].get();
    const int count = static_cast<int>(pieces.size());
    share.moved = sending ? send_raw(fd, pieces.data(), count) : receive_raw(fd, pieces.data(), count, 0);
  };
  if (helpers_) {
    helpers_->run(share_count, move_share);
  } else {
    for (int i = 0; i < share_count; ++i) move_share(i);
  }
  const std::span<const Share> moved(shares.data(), static_cast<size_t>(share_count));
  // Counts first, so that what moved before a failure is known; then the first failure.
  for (const Share& share : moved) socket_bytes[share.socket] += share.moved.bytes;
  uint64_t first_unmoved = end;
  for (int s = 0; s < k; ++s) first_unmoved = std::min(first_unmoved, stripe_offset(socket_bytes[s], s, k));
  *offset = first_unmoved;
  for (const Share& share : moved) sending ? settle_sent(share.moved) : settle_received(share.moved, 0);
  return static_cast<size_t>(first_unmoved - begin);
}

// With K > 1 each socket is offered its own share. Moved in stream order, one socket whose window
// was shut held the others: with each flow capped (K = 4, 16 MiB, docs/performance.md) in order
// reached 0.069 GB/s busbw [0.066-0.083], by shares 0.094 [0.092-0.094], 4.0x one stream's.
size_t Connection::write_some(const iovec* iov, int iov_count) {
  if (silenced_) return 0;
  if (streams() > 1) return striped_together(iov, iov_count, &sent_offset_, socket_sent_.data(), true);
  return striped(iov, iov_count, &sent_offset_, socket_sent_.data(),
                 [this](int fd, const iovec* run, int count) { return settle_sent(send_raw(fd, run, count)); });
}

size_t Connection::read_some(const iovec* iov, int iov_count, bool read_ahead) {
  if (silenced_) return 0;
  if (read_ahead && streams() > 1)
    return striped_together(iov, iov_count, &received_offset_, socket_received_.data(), false);
  return striped(iov, iov_count, &received_offset_, socket_received_.data(), [this](int fd, const iovec* run, int count) {
    return settle_received(receive_raw(fd, run, count, 0), 0);
  });
}

size_t Connection::peek(std::byte* out, size_t size) {
  if (silenced_) return 0;
  // Peeking consumes nothing: walk a copy of the read offset. No socket has read ahead here:
  // peeks come between frames, and a frame read ahead is read to its end before it finishes.
  uint64_t offset = received_offset_;
  const iovec iov{out, size};
  return striped(&iov, 1, &offset, nullptr, [this](int fd, const iovec* run, int count) {
    return settle_received(receive_raw(fd, run, count, MSG_PEEK), MSG_PEEK);
  });
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

KernelByteCounts Connection::kernel_counts_of(int fd) const {
  // Sent side: the bytes the peer acknowledged plus those still in our send queue (unsent or
  // unacknowledged). Not tcpi_bytes_sent: it counts a segment again when a shaping qdisc drops it
  // locally and TCP sends it anew, which tcpi_bytes_retrans does not cover (seen on a tbf-shaped
  // link). Received side: what arrived in order less what we have not read yet. The queues are
  // read on both sides of TCP_INFO, so an ack or data arriving in between is noticed and the
  // caller retries.
  int unread_before = 0, unread_after = 0, queued_before = 0, queued_after = 0;
  tcp_info info{};
  socklen_t length = sizeof info;
  ::ioctl(fd, SIOCINQ, &unread_before);
  ::ioctl(fd, SIOCOUTQ, &queued_before);
  int rc = ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length);
  const int getsockopt_error = errno;
  ::ioctl(fd, SIOCOUTQ, &queued_after);
  ::ioctl(fd, SIOCINQ, &unread_after);
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

KernelByteCounts Connection::kernel_counts() const {
  // Every stream's count, summed: each stream carries its own handshake and its share of stripes.
  KernelByteCounts sum;
  for (const Fd& socket : sockets_) {
    const KernelByteCounts one = kernel_counts_of(socket.get());
    if (one.bytes_sent == UINT64_MAX) return one;  // a queue moved while it was read: retry
    sum.bytes_sent += one.bytes_sent;
    sum.bytes_received += one.bytes_received;
  }
  return sum;
}

void Connection::close() {
  for (Fd& socket : sockets_) socket.reset();
  mark_closed("closed by this rank");
}

}  // namespace ringbench
