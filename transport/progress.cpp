// The one loop that moves bytes: Communicator::exchange and Communicator::ring_stream.
//
// Every send and receive handed to the loop is driven together on non-blocking sockets, so a rank
// whose send is stuck (the right neighbour's buffers are full) keeps draining its left neighbour,
// and no message size can deadlock a ring. Each pass tries every ready operation once; only when a
// whole pass moves nothing does the loop sleep in poll() on exactly the sockets it waits for. The
// no-progress deadline restarts whenever any byte moves, so a slow transfer is never cut off while
// a silent peer is caught.
//
// Two kinds of ordering between operations are supported:
//   - `after`: an operation starts only when an earlier one on the same connection has finished
//     (frames on one connection are sent and read in order);
//   - `feed`: a send's payload becomes available only as fast as an earlier receive has handed its
//     bytes to on_arrival. This is what lets a ring forward each reduced piece at once instead of
//     waiting for the whole step: the pipeline runs across steps, not only inside them.

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
constexpr int kNone = -1;

struct RecvState;

struct SendState {
  Connection* connection;
  std::array<std::byte, wire::kFrameHeaderBytes> header;
  std::span<const std::byte> payload;
  int after = kNone;  // index of the send that must finish first
  int feed = kNone;   // index of the receive whose delivered bytes bound what can be sent
  size_t done = 0;    // header and payload bytes written
  size_t total() const { return header.size() + payload.size(); }
  bool finished() const { return done == total(); }
};

struct RecvState {
  Connection* connection;
  RecvSpec* spec;
  wire::FrameHeader expected;
  int after = kNone;
  std::array<std::byte, wire::kFrameHeaderBytes> header{};
  size_t done = 0;      // header and payload bytes read
  size_t reported = 0;  // payload bytes delivered (handed to on_arrival, or simply read)
  size_t piece = 1;     // on_arrival granularity in bytes
  bool header_checked = false;
  bool finished() const { return done == header.size() + spec->payload.size() && reported == spec->payload.size(); }
};

// Splits `n` bytes just moved at stream offset `done` into (overhead, payload).
std::pair<uint64_t, uint64_t> split(size_t done, size_t n) {
  size_t overhead = done < wire::kFrameHeaderBytes ? std::min(n, wire::kFrameHeaderBytes - done) : 0;
  return {overhead, n - overhead};
}

// iovecs for the bytes of [done, limit) of header+payload.
int fill_iov(iovec* iov, std::byte* header, size_t header_size, std::byte* payload, size_t limit, size_t done) {
  int count = 0;
  if (done < header_size) {
    iov[count++] = {header + done, header_size - done};
    if (limit > header_size) iov[count++] = {payload, limit - header_size};
  } else if (done < limit) {
    iov[count++] = {payload + (done - header_size), limit - done};
  }
  return count;
}

class Loop {
 public:
  Loop(int rank, const TransportOptions& options, const StepContext& where)
      : rank_(rank), options_(options), where_(where) {}

  std::vector<SendState> sends;
  std::vector<RecvState> recvs;

  void run();

 private:
  size_t send_limit(const SendState& s) const {
    size_t available = s.feed == kNone ? s.payload.size() : std::min(s.payload.size(), recvs[s.feed].reported);
    return s.header.size() + available;
  }
  bool ready(const SendState& s) const { return s.after == kNone || sends[s.after].finished(); }
  bool ready(const RecvState& r) const { return r.after == kNone || recvs[r.after].finished(); }
  bool progress(SendState& s);
  bool progress(RecvState& r);
  [[noreturn]] void timed_out();

  int rank_;
  const TransportOptions& options_;
  const StepContext& where_;
};

bool Loop::progress(SendState& s) {
  size_t limit = send_limit(s);
  if (s.done >= limit) return false;
  iovec iov[2];
  int count = fill_iov(iov, s.header.data(), s.header.size(), const_cast<std::byte*>(s.payload.data()), limit, s.done);
  size_t n = s.connection->write_some(iov, count);
  auto [overhead, payload] = split(s.done, n);
  s.connection->record_sent(overhead, payload);
  s.done += n;
  return n > 0;
}

bool Loop::progress(RecvState& r) {
  auto payload = r.spec->payload;
  bool moved = false;
  if (r.done < r.header.size() + payload.size()) {
    iovec iov[2];
    // Never read past the frame we expect: a frame of another size is reported, not half-read
    // into the next one.
    int count = fill_iov(iov, r.header.data(), r.header.size(), payload.data(), r.header.size() + payload.size(), r.done);
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
                           fmt::format("rank {}: bad frame from {} during {} {} step {}/{}: {}", rank_,
                                       r.connection->describe_peer(), where_.algorithm, where_.collective,
                                       r.expected.step + 1, where_.steps, *problem));
    r.header_checked = true;
  }
  if (!r.header_checked) return moved;
  size_t arrived = r.done - r.header.size();
  if (!r.spec->on_arrival) {
    r.reported = arrived;
    return moved;
  }
  size_t ready = arrived == payload.size() ? arrived : r.reported + (arrived - r.reported) / r.piece * r.piece;
  if (ready > r.reported) {
    r.spec->on_arrival(r.reported, ready);
    r.reported = ready;
    moved = true;  // delivered bytes may unblock a fed send
  }
  return moved;
}

void Loop::timed_out() {
  std::string waiting;
  int suspect = -1;
  for (auto& s : sends)
    if (!s.finished() && ready(s))
      waiting += fmt::format("; send to {}: {} of {} bytes", s.connection->describe_peer(), s.done, s.total());
  for (auto& r : recvs)
    if (!r.finished() && ready(r)) {
      waiting += fmt::format("; recv from {}: {} of {} bytes", r.connection->describe_peer(), r.done,
                             r.header.size() + r.spec->payload.size());
      suspect = r.connection->peer_rank();
    }
  throw TransportError(TransportErrorKind::Timeout, suspect,
                       fmt::format("rank {}: no progress for {} s during {} {} step {}/{}{}", rank_,
                                   options_.timeout.count() / 1000.0, where_.algorithm, where_.collective,
                                   where_.step + 1, where_.steps, waiting));
}

void Loop::run() {
  auto last_progress = Clock::now();
  std::vector<pollfd> fds;
  for (;;) {
    bool moved = false, pending = false;
    for (auto& s : sends) {
      if (s.finished()) continue;
      pending = true;
      if (ready(s)) moved |= progress(s);
    }
    for (auto& r : recvs) {
      if (r.finished()) continue;
      pending = true;
      if (ready(r)) moved |= progress(r);
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
      if (left.count() <= 0) timed_out();
      wait_ms = static_cast<int>(left.count());
    }
    // Wait only on what can move: a send with bytes available to write, a receive that has begun.
    fds.clear();
    for (auto& s : sends)
      if (!s.finished() && ready(s) && s.done < send_limit(s)) fds.push_back({s.connection->fd(), POLLOUT, 0});
    for (auto& r : recvs)
      if (!r.finished() && ready(r)) fds.push_back({r.connection->fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), wait_ms);
  }
}

RecvState make_recv(Connection& connection, RecvSpec& spec, uint64_t sequence, size_t pipeline_bytes) {
  size_t granule = std::max<size_t>(spec.granule, 1);
  size_t piece = std::max(granule, pipeline_bytes / granule * granule);
  wire::FrameHeader expected{wire::kFrameMagic, wire::FrameKind::Data, sequence, spec.step, spec.payload.size()};
  RecvState state{&connection, &spec, expected};
  state.piece = piece;
  return state;
}

SendState make_send(Connection& connection, const SendSpec& spec, uint64_t sequence) {
  wire::FrameHeader header{wire::kFrameMagic, wire::FrameKind::Data, sequence, spec.step, spec.payload.size()};
  return SendState{&connection, wire::encode(header), spec.payload};
}

}  // namespace

void Communicator::exchange(std::span<const SendSpec> sends, std::span<RecvSpec> receives, const StepContext& where) {
  Loop loop(rank_, options_, where);
  loop.sends.reserve(sends.size());
  loop.recvs.reserve(receives.size());
  for (const auto& s : sends) loop.sends.push_back(make_send(peer(s.peer), s, sequence_));
  for (auto& r : receives) loop.recvs.push_back(make_recv(peer(r.peer), r, sequence_, options_.pipeline_bytes));
  loop.run();
}

void Communicator::ring_stream(std::span<const SendSpec> sends, std::span<RecvSpec> receives, const StepContext& where) {
  Loop loop(rank_, options_, where);
  loop.sends.reserve(sends.size());
  loop.recvs.reserve(receives.size());
  for (size_t k = 0; k < sends.size(); ++k) {
    loop.sends.push_back(make_send(peer(sends[k].peer), sends[k], sequence_));
    if (k > 0) {
      loop.sends.back().after = static_cast<int>(k - 1);
      loop.sends.back().feed = static_cast<int>(k - 1);
    }
  }
  for (size_t k = 0; k < receives.size(); ++k) {
    loop.recvs.push_back(make_recv(peer(receives[k].peer), receives[k], sequence_, options_.pipeline_bytes));
    if (k > 0) loop.recvs.back().after = static_cast<int>(k - 1);
  }
  loop.run();
}

}  // namespace ringbench
