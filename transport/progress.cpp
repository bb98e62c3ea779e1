// Communicator::exchange: the one loop that moves bytes. Every send and receive of a step is
// driven together, non-blocking, so a rank whose send is stuck (the right neighbour's buffers
// are full) keeps draining its left neighbour, and no message size can deadlock the ring.
//
// Each pass tries every unfinished operation once; only when a whole pass moves nothing does the
// loop sleep in poll() on exactly the sockets it waits for. The no-progress deadline restarts
// whenever any byte moves, so a slow transfer is never cut off while a silent peer is caught.

#include <poll.h>
#include <sys/uio.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "communicator.h"
#include "error.h"
#include "wire.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;

struct SendState {
  Connection* connection;
  std::array<std::byte, wire::kFrameHeaderBytes> header;
  std::span<const std::byte> payload;
  size_t done = 0;  // header and payload bytes written
  bool finished() const { return done == header.size() + payload.size(); }
};

struct RecvState {
  Connection* connection;
  RecvSpec* spec;
  wire::FrameHeader expected;
  std::array<std::byte, wire::kFrameHeaderBytes> header{};
  size_t done = 0;       // header and payload bytes read
  size_t reported = 0;   // payload bytes handed to on_arrival
  size_t piece = 0;      // on_arrival granularity in bytes
  bool header_checked = false;
  bool finished() const { return done == header.size() + spec->payload.size() && reported == spec->payload.size(); }
};

// Splits `n` bytes just moved at stream offset `done` into (overhead, payload).
std::pair<uint64_t, uint64_t> split(size_t done, size_t n) {
  size_t overhead = done < wire::kFrameHeaderBytes ? std::min(n, wire::kFrameHeaderBytes - done) : 0;
  return {overhead, n - overhead};
}

int fill_iov(iovec* iov, std::byte* header, size_t header_size, std::byte* payload, size_t payload_size,
             size_t done) {
  int count = 0;
  if (done < header_size) {
    iov[count++] = {header + done, header_size - done};
    if (payload_size > 0) iov[count++] = {payload, payload_size};
  } else if (done - header_size < payload_size) {
    iov[count++] = {payload + (done - header_size), payload_size - (done - header_size)};
  }
  return count;
}

bool progress_send(SendState& s) {
  iovec iov[2];
  int count = fill_iov(iov, s.header.data(), s.header.size(), const_cast<std::byte*>(s.payload.data()),
                       s.payload.size(), s.done);
  size_t n = s.connection->write_some(iov, count);
  auto [overhead, payload] = split(s.done, n);
  s.connection->record_sent(overhead, payload);
  s.done += n;
  return n > 0;
}

bool progress_recv(RecvState& r, int my_rank, const StepContext& where) {
  auto payload = r.spec->payload;
  bool moved = false;
  if (r.done < r.header.size() + payload.size()) {
    iovec iov[2];
    // Until the header is checked, read no further than the frame we expect, so that a frame of
    // the wrong size is reported rather than half-read into the next one.
    int count = fill_iov(iov, r.header.data(), r.header.size(), payload.data(), payload.size(), r.done);
    size_t n = r.connection->read_some(iov, count);
    auto [overhead, payload_bytes] = split(r.done, n);
    r.connection->record_received(overhead, payload_bytes);
    r.done += n;
    moved = n > 0;
  }
  if (!r.header_checked && r.done >= r.header.size()) {
    auto got = wire::decode_frame_header(r.header.data());
    if (auto problem = wire::check_frame(got, r.expected))
      throw TransportError(TransportErrorKind::Protocol, r.connection->peer_rank(),
                           fmt::format("rank {}: bad frame from {} during {} {} step {}/{}: {}", my_rank,
                                       r.connection->describe_peer(), where.algorithm, where.collective,
                                       where.step + 1, where.steps, *problem));
    r.header_checked = true;
  }
  if (r.header_checked && r.spec->on_arrival) {
    size_t arrived = r.done - r.header.size();
    size_t ready = arrived == payload.size() ? arrived : r.reported + (arrived - r.reported) / r.piece * r.piece;
    if (ready > r.reported) {
      r.spec->on_arrival(r.reported, ready);
      r.reported = ready;
    }
  } else if (r.header_checked) {
    r.reported = r.done - r.header.size();
  }
  return moved;
}

}  // namespace

void Communicator::exchange(std::span<const SendSpec> sends, std::span<RecvSpec> receives,
                            const StepContext& where) {
  // Small vectors on the stack of this call: a step has at most one operation per peer.
  std::vector<SendState> send_states;
  std::vector<RecvState> recv_states;
  send_states.reserve(sends.size());
  recv_states.reserve(receives.size());
  for (const auto& s : sends) {
    wire::FrameHeader header{wire::kFrameMagic, wire::FrameKind::Data, sequence_, s.step, s.payload.size()};
    send_states.push_back({&peer(s.peer), wire::encode(header), s.payload});
  }
  for (auto& r : receives) {
    size_t granule = std::max<size_t>(r.granule, 1);
    size_t piece = std::max(granule, options_.pipeline_bytes / granule * granule);
    wire::FrameHeader expected{wire::kFrameMagic, wire::FrameKind::Data, sequence_, r.step, r.payload.size()};
    recv_states.push_back({&peer(r.peer), &r, expected, {}, 0, 0, piece});
  }

  auto last_progress = Clock::now();
  std::vector<pollfd> fds;
  for (;;) {
    bool moved = false, pending = false;
    for (auto& s : send_states) {
      if (s.finished()) continue;
      moved |= progress_send(s);
      pending |= !s.finished();
    }
    for (auto& r : recv_states) {
      if (r.finished()) continue;
      moved |= progress_recv(r, rank_, where);
      pending |= !r.finished();
    }
    if (!pending) return;
    auto now = Clock::now();
    if (moved) {
      last_progress = now;
      continue;
    }
    int wait_ms = -1;
    if (options_.timeout.count() > 0) {
      auto left = options_.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(now - last_progress);
      if (left.count() <= 0) {
        std::string waiting;
        for (auto& s : send_states)
          if (!s.finished())
            waiting += fmt::format("; send to {}: {} of {} bytes", s.connection->describe_peer(), s.done,
                                   s.header.size() + s.payload.size());
        for (auto& r : recv_states)
          if (!r.finished())
            waiting += fmt::format("; recv from {}: {} of {} bytes", r.connection->describe_peer(), r.done,
                                   r.header.size() + r.spec->payload.size());
        int suspect = -1;
        for (auto& r : recv_states)
          if (!r.finished()) suspect = r.connection->peer_rank();
        throw TransportError(TransportErrorKind::Timeout, suspect,
                             fmt::format("rank {}: no progress for {} s during {} {} step {}/{}{}", rank_,
                                         options_.timeout.count() / 1000.0, where.algorithm, where.collective,
                                         where.step + 1, where.steps, waiting));
      }
      wait_ms = static_cast<int>(left.count());
    }
    fds.clear();
    for (auto& s : send_states)
      if (!s.finished()) fds.push_back({s.connection->fd(), POLLOUT, 0});
    for (auto& r : recv_states)
      if (!r.finished()) fds.push_back({r.connection->fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), wait_ms);
  }
}

}  // namespace ringbench
