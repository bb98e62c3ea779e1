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
//
// Failures are detected here too (the rules are in liveness.h): while the loop waits it sends
// heartbeats, watches every connection it is not reading (a closed peer, a heartbeat, a Bye or an
// Abort arrives there), and decides which rank failed. Control frames met where a data frame was
// expected are consumed in place (see reframe()). Every failure leaves through Loop::fail(), which
// names the failed rank, the detector, this rank's collective, step, bytes and elapsed time; the
// Communicator then tells every peer it can reach (abort.cpp). Each call's frames are entered in
// the flight recorder (flight_recorder.h) as it starts and brought up to date as it ends, fails or
// dumps on SIGUSR1 (a signalfd polled beside the connections while the loop waits).

#include <poll.h>
#include <sched.h>
#include <sys/uio.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "communicator.h"
#include "debug_log.h"
#include "error.h"
#include "liveness.h"
#include "strangers.h"
#include "wire.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kNone = -1;
constexpr size_t kHeader = wire::kFrameHeaderBytes;

struct RecvState;

struct SendState {
  Connection* connection;
  std::array<std::byte, wire::kFrameHeaderBytes> header;
  std::span<const std::byte> payload;
  uint32_t step = 0;
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
  // Where payload bytes land: the payload itself, or the staging ring (RecvSpec::staging).
  std::span<std::byte> landing() const { return spec->staging.empty() ? spec->payload : spec->staging; }
  size_t ring() const { return spec->staging.size(); }  // 0: no staging ring
};

// Splits `n` bytes just moved at stream offset `done` into (overhead, payload).
std::pair<uint64_t, uint64_t> split(size_t done, size_t n) {
  size_t overhead = done < wire::kFrameHeaderBytes ? std::min(n, wire::kFrameHeaderBytes - done) : 0;
  return {overhead, n - overhead};
}

// iovecs for the bytes of [done, limit) of header+payload, where the first payload byte in that
// range (payload byte done - header_size, or 0 while the header is incomplete) is at payload_at.
int fill_iov(iovec* iov, std::byte* header, size_t header_size, std::byte* payload_at, size_t limit, size_t done) {
  int count = 0;
  if (done < header_size) {
    iov[count++] = {header + done, header_size - done};
    if (limit > header_size) iov[count++] = {payload_at, limit - header_size};
  } else if (done < limit) {
    iov[count++] = {payload_at, limit - done};
  }
  return count;
}

size_t payload_offset(size_t done) { return done > wire::kFrameHeaderBytes ? done - wire::kFrameHeaderBytes : 0; }

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Errors Connection throws for a closed, reset or broken socket (not yet a verdict: see liveness.h).
bool is_connection_loss(const TransportError& e) {
  return e.detected_by() < 0 && (e.kind() == TransportErrorKind::PeerClosed || e.kind() == TransportErrorKind::System);
}

class Loop {
 public:
  Loop(Communicator& comm, std::vector<std::unique_ptr<Connection>>& connections, StrangerDoor& strangers,
       const StepContext& where)
      : comm_(comm), connections_(connections), strangers_(strangers), options_(comm.options()), where_(where), rank_(comm.rank()),
        heartbeat_(liveness::heartbeat_interval(options_.timeout)), grace_(liveness::close_grace(options_.timeout)),
        spin_(spin_budget(comm)), yield_(comm.ranks_exceed_cores()), slice_(write_slice(comm)), reading_(connections.size()),
        pending_data_(connections.size()) {}

  std::vector<SendState> sends;
  std::vector<RecvState> recvs;

  void run();

 private:
  // How far a send may write now. With ranks sharing cores, a fed send's header waits for its
  // first payload bytes: written alone it is a segment that wakes a sleeping receiver for
  // nothing. Measured (docs/performance.md): ring all-reduce at N = 3-4 on 2 cores 23-52% faster
  // at 256K-1M; with a core per rank (N = 2, receivers spinning) the early header was 9-18%
  // faster at 512K-1M, so there it still goes first.
  size_t send_limit(const SendState& s) const {
    size_t available = s.feed == kNone ? s.payload.size() : std::min(s.payload.size(), recvs[s.feed].reported);
    if (yield_ && available == 0 && !s.payload.empty()) return 0;
    return s.header.size() + available;
  }
  bool ready(const SendState& s) const { return s.after == kNone || sends[s.after].finished(); }
  bool ready(const RecvState& r) const { return r.after == kNone || recvs[r.after].finished(); }
  static bool usable(const Connection& c) { return c.state() == Connection::State::Connected; }
  // What one pass over the operations found: some moved bytes; some are still unfinished.
  struct Pass {
    bool moved = false;
    bool pending = false;
  };
  Pass try_every_operation_once();
  template <typename Operation>
  bool guarded_progress(Operation& op);
  bool progress(SendState& s);
  bool progress(RecvState& r);
  bool keep_spinning(Clock::time_point now) const;
  void look_after_peers(Clock::time_point now);
  void collect_poll_fds();
  void handle_poll_events();
  size_t reframe(RecvState& r);
  void watch(Connection& c);
  void send_heartbeats(Clock::time_point now);
  void check_liveness(Clock::time_point now);
  void watchdog(Clock::time_point now);
  bool mid_frame_from(int peer) const;
  int waited_peer() const;
  uint32_t current_step() const;
  std::vector<std::byte> read_notice(Connection& c, const std::byte* have, size_t have_bytes, size_t length);
  [[noreturn]] void fail_from_notice(Connection& from, const wire::AbortNotice& notice);
  [[noreturn]] void fail(TransportErrorKind kind, int failed, int detected_by, int reported_by, const std::string& cause);
  // The flight recorder (flight_recorder.h): one entry per operation when the call starts, brought
  // up to date (bytes, state) only when the call ends, fails or dumps.
  void record_flight();
  // This rank's heard view where it failed, for the verdict (view_exchange.cpp).
  void note_heard_view();
  void update_flight(FlightEntry::State unfinished);
  // TRACE COLL: the call on entry, then each frame as it completes (debug_log.h; free when off).
  void trace_entry() const;
  void trace_done(const SendState& s) const;
  void trace_done(const RecvState& r) const;

  Communicator& comm_;
  std::vector<std::unique_ptr<Connection>>& connections_;
  StrangerDoor& strangers_;
  const TransportOptions& options_;
  const StepContext& where_;
  int rank_;
  std::chrono::milliseconds heartbeat_, grace_;
  static Clock::duration spin_budget(const Communicator& comm);
  Clock::duration spin_;  // how long a stalled loop retries before it sleeps in poll()
  bool yield_;            // more ranks on this host than cores: hand the core over between slices
  static size_t write_slice(const Communicator& comm);
  size_t slice_;          // most bytes one send() may take (TransportOptions::write_slice_bytes)
  Clock::time_point entered_, last_progress_, next_watchdog_;
  // Silence is measured from no earlier than this: the call's start, or the moment this rank
  // resumed after being stopped itself (then it was the silent one, not its peers).
  Clock::time_point heard_floor_, last_check_;
  std::vector<char> reading_;       // by peer: this call reads frames from it
  std::vector<char> pending_data_;  // by peer: a data frame waits unread (the peer is ahead): alive
  // What the loop sleeps on when it stalls, in three runs: the operations' own sockets, the
  // watched connections (watched_[i - first_watched_]), and the stranger door's.
  std::vector<pollfd> poll_fds_;
  std::vector<Connection*> watched_;
  size_t first_watched_ = 0, first_door_ = 0;
  size_t flight_signal_at_ = 0;  // the flight signal's entry in poll_fds_, when < first_door_
  std::vector<FlightRecorder::Id> flight_ids_;  // sends', then receives' entries
};

bool Loop::progress(SendState& s) {
  const size_t fed = send_limit(s);
  size_t limit = std::min(fed, s.done + slice_);
  if (s.done >= limit) return false;
  if (s.done == 0) {
    // A control frame written while we waited may be half out: finish it before this frame starts.
    if (!s.connection->flush_control()) return false;
    s.connection->set_sending_frame(true);
  }
  iovec iov[2];
  int count = fill_iov(iov, s.header.data(), s.header.size(),
                       const_cast<std::byte*>(s.payload.data()) + payload_offset(s.done), limit, s.done);
  size_t n = s.connection->write_some(iov, count);
  auto [overhead, payload] = split(s.done, n);
  s.connection->record_sent(overhead, payload);
  s.done += n;
  if (s.finished()) s.connection->set_sending_frame(false);
  // Ranks sharing a core: hand it over after each slice of a longer frame (write_slice_bytes),
  // not when the send has caught up with its feed: that waits on this rank's own receive.
  else if (yield_ && n > 0 && s.done < fed) sched_yield();
  return n > 0;
}

bool Loop::progress(RecvState& r) {
  auto payload = r.spec->payload;
  const size_t ring = r.ring();
  bool moved = false;
  // Never read past the frame we expect: a frame of another size is reported, not half-read
  // into the next one. A staging ring also bounds the read by what on_arrival has taken, and
  // by the ring's end (the next pass continues from its start).
  size_t limit = r.header.size() + payload.size();
  std::byte* landing_at = payload.data() + payload_offset(r.done);
  if (ring) {
    const size_t at = payload_offset(r.done);
    limit = std::min({limit, r.header.size() + r.reported + ring, r.header.size() + at - at % ring + ring});
    landing_at = r.spec->staging.data() + at % ring;
  }
  if (r.done < limit) {
    iovec iov[2];
    int count = fill_iov(iov, r.header.data(), r.header.size(), landing_at, limit, r.done);
    // A checked header means payload bytes only: the sockets may fill its stripes out of order.
    size_t n = r.connection->read_some(iov, count, r.header_checked);
    auto [overhead, payload_bytes] = split(r.done, n);
    r.connection->record_received(overhead, payload_bytes);
    r.done += n;
    // Heartbeats consumed in front of the frame are liveness, not progress.
    moved = n > reframe(r);
  }
  if (!r.header_checked) return moved;
  size_t arrived = r.done - r.header.size();
  if (!r.spec->on_arrival) {
    r.reported = arrived;
    return moved;
  }
  size_t ready = arrived == payload.size() ? arrived : r.reported + (arrived - r.reported) / r.piece * r.piece;
  while (ready > r.reported) {
    // A range handed over never wraps around a staging ring (pieces divide the ring).
    size_t end = ring ? std::min(ready, r.reported - r.reported % ring + ring) : ready;
    r.spec->on_arrival(r.reported, end);
    r.reported = end;
    moved = true;  // delivered bytes may unblock a fed send
  }
  return moved;
}

// Checks the header of the frame being read. A control frame found where the data frame was
// expected (the peer sent it between frames) is consumed here: the bytes read past it into the
// payload buffer are the start of the real frame and move back into place. Returns the bytes of
// heartbeats consumed.
size_t Loop::reframe(RecvState& r) {
  auto payload = r.landing();  // at the frame's start no read has wrapped a staging ring
  const int peer = r.connection->peer_rank();
  size_t consumed = 0;
  while (!r.header_checked && r.done >= kHeader) {
    auto got = wire::decode_frame_header(r.header.data());
    const size_t extra = r.done - kHeader;  // read past this header, into the payload buffer
    if (got.magic == wire::kFrameMagic && got.kind == wire::FrameKind::Heartbeat && got.length == 0) {
      const size_t h = std::min(extra, kHeader);
      if (h) std::memcpy(r.header.data(), payload.data(), h);  // a header-only frame has no payload buffer
      if (extra > kHeader) std::memmove(payload.data(), payload.data() + kHeader, extra - kHeader);
      r.connection->reclassify_received_as_overhead(h);
      r.done = extra;
      consumed += kHeader;
      continue;
    }
    if (got.magic == wire::kFrameMagic && got.kind == wire::FrameKind::Abort) {
      if (got.length > wire::kMaxAbortNoticeBytes)
        fail(TransportErrorKind::Protocol, peer, rank_, rank_,
             fmt::format("sent an abort notice of {} bytes (stream corrupted)", got.length));
      auto notice_bytes = read_notice(*r.connection, payload.data(), std::min<size_t>(extra, got.length), got.length);
      std::string why;
      auto notice = wire::decode_abort(notice_bytes.data(), notice_bytes.size(), &why);
      if (!notice) fail(TransportErrorKind::Protocol, peer, rank_, rank_, "sent a malformed abort notice: " + why);
      fail_from_notice(*r.connection, *notice);
    }
    if (got.magic == wire::kFrameMagic && got.kind == wire::FrameKind::Bye)
      fail(TransportErrorKind::Protocol, peer, rank_, rank_,
           "finished the job and left while this rank still expected a frame from it (ranks out of step)");
    if (auto problem = wire::check_frame(got, r.expected))
      fail(TransportErrorKind::Protocol, peer, rank_, rank_, fmt::format("sent a bad frame: {}", *problem));
    r.header_checked = true;
  }
  return consumed;
}

// The rest of an abort notice whose first `have_bytes` are at `have`: it was written in one piece,
// so it follows at once; wait a bounded moment for it.
std::vector<std::byte> Loop::read_notice(Connection& c, const std::byte* have, size_t have_bytes, size_t length) {
  std::vector<std::byte> notice(have, have + have_bytes);
  notice.resize(length);
  size_t done = have_bytes;
  auto give_up = Clock::now() + std::chrono::seconds(2);
  while (done < length && Clock::now() < give_up) {
    iovec iov{notice.data() + done, length - done};
    size_t n = c.read_some(&iov, 1);
    c.record_received(n, 0);
    done += n;
    if (n == 0) {
      pollfd p{c.read_fd(), POLLIN, 0};
      ::poll(&p, 1, 50);
    }
  }
  if (done < length)
    fail(TransportErrorKind::Protocol, c.peer_rank(), rank_, rank_, "sent only part of an abort notice");
  return notice;
}

// A connection this call does not read: consume control frames at its head, note data waiting.
void Loop::watch(Connection& c) {
  const int peer = c.peer_rank();
  std::array<std::byte, kHeader + wire::kMaxAbortNoticeBytes> buffer;
  for (;;) {
    size_t n = c.peek(buffer.data(), kHeader);
    if (n == 0) return;
    if (n < kHeader) {  // a frame is on its way; its reader (a later call) will take it
      pending_data_[peer] = 1;
      return;
    }
    auto h = wire::decode_frame_header(buffer.data());
    if (h.magic != wire::kFrameMagic)
      fail(TransportErrorKind::Protocol, peer, rank_, rank_,
           fmt::format("sent a corrupted stream (frame magic 0x{:08x})", h.magic));
    auto consume = [&](size_t bytes) {
      iovec iov{buffer.data(), bytes};
      size_t got = c.read_some(&iov, 1);  // peeked: all of it is there
      c.record_received(got, 0);
    };
    switch (h.kind) {
      case wire::FrameKind::Heartbeat:
        consume(kHeader);
        continue;
      case wire::FrameKind::Bye:
        consume(kHeader);
        c.set_departed();
        return;
      case wire::FrameKind::Abort: {
        if (h.length < wire::kAbortNoticeFixedBytes || h.length > wire::kMaxAbortNoticeBytes)
          fail(TransportErrorKind::Protocol, peer, rank_, rank_,
               fmt::format("sent an abort notice of {} bytes (stream corrupted)", h.length));
        if (c.peek(buffer.data(), kHeader + h.length) < kHeader + h.length) return;  // the rest follows
        consume(kHeader + h.length);
        std::string why;
        auto notice = wire::decode_abort(buffer.data() + kHeader, h.length, &why);
        if (!notice) fail(TransportErrorKind::Protocol, peer, rank_, rank_, "sent a malformed abort notice: " + why);
        fail_from_notice(c, *notice);
      }
      case wire::FrameKind::Data:
        pending_data_[peer] = 1;
        return;
    }
    fail(TransportErrorKind::Protocol, peer, rank_, rank_,
         fmt::format("sent a frame of unknown kind {} (stream corrupted)", static_cast<unsigned>(h.kind)));
  }
}

void Loop::send_heartbeats(Clock::time_point now) {
  static const auto beat = wire::control_header(wire::FrameKind::Heartbeat);
  for (auto& c : connections_) {
    if (!c || !usable(*c) || c->departed() || c->sending_frame()) continue;
    try {
      if (!c->control_pending() && now - c->last_sent() >= heartbeat_) c->queue_control(beat);
      c->flush_control();
    } catch (const TransportError& e) {
      if (!is_connection_loss(e)) throw;
    }
  }
}

bool Loop::mid_frame_from(int peer) const {
  for (const auto& r : recvs)
    if (r.connection->peer_rank() == peer && !r.finished() && r.done > 0) return true;
  return false;
}

int Loop::waited_peer() const {
  for (const auto& r : recvs)
    if (!r.finished() && ready(r)) return r.connection->peer_rank();
  for (const auto& s : sends)
    if (!s.finished() && ready(s)) return s.connection->peer_rank();
  return -1;
}

uint32_t Loop::current_step() const {
  for (const auto& r : recvs)
    if (!r.finished()) return r.expected.step;
  for (const auto& s : sends)
    if (!s.finished()) return s.step;
  return where_.step;
}

void Loop::check_liveness(Clock::time_point now) {
  const auto timeout = options_.timeout;
  if (now - last_check_ > 2 * heartbeat_ + std::chrono::milliseconds(500)) heard_floor_ = now;
  last_check_ = now;
  // 1. A peer that closed without a Bye, confirmed once no Abort explained it within the grace.
  Connection* closed = nullptr;
  for (auto& c : connections_)
    if (c && !c->departed() && !usable(*c) && now - c->closed_at() >= grace_ &&
        (!closed || c->closed_at() < closed->closed_at()))
      closed = c.get();
  if (closed)
    fail(TransportErrorKind::PeerClosed, closed->peer_rank(), rank_, rank_,
         fmt::format("{} {} without a goodbye: the process probably died (check its log)", closed->close_cause(),
                     closed->peer_address()));
  if (timeout.count() <= 0) return;
  // 2. Silence: strong first (the peer was between frames), then weak (it was inside a frame to us).
  Connection* strong = nullptr;
  Connection* weak = nullptr;
  Clock::duration strong_for{}, weak_for{};
  bool all_recent = true;
  for (auto& c : connections_) {
    if (!c || c->departed() || !usable(*c) || pending_data_[c->peer_rank()]) continue;
    auto silent = now - std::max(c->last_received(), heard_floor_);
    if (silent >= liveness::recently(timeout)) all_recent = false;
    if (mid_frame_from(c->peer_rank())) {
      if (silent >= timeout + grace_ && silent > weak_for) weak = c.get(), weak_for = silent;
    } else if (silent >= timeout && silent > strong_for) {
      strong = c.get(), strong_for = silent;
    }
  }
  Connection* silent = strong ? strong : weak;
  if (silent)
    fail(TransportErrorKind::Timeout, silent->peer_rank(), rank_, rank_,
         fmt::format("sent nothing, not even a heartbeat, for {:.1f} s: frozen (SIGSTOP), stuck or unreachable",
                     seconds(strong ? strong_for : weak_for)));
  // 3. No progress although every peer is alive: the ranks disagree about what comes next.
  if (all_recent && now - last_progress_ >= timeout)
    fail(TransportErrorKind::Timeout, -1, rank_, rank_,
         fmt::format("no progress for {:.1f} s although every peer is alive (heartbeats arrive), waiting on rank {}: "
                     "the ranks are probably not making the same calls",
                     seconds(now - last_progress_), waited_peer()));
}

void Loop::watchdog(Clock::time_point now) {
  if (options_.watchdog_interval.count() <= 0 || now < next_watchdog_ || now - last_progress_ < options_.watchdog_interval)
    return;
  next_watchdog_ = now + options_.watchdog_interval;
  // Name the longest-silent peer if one is suspicious, else the one this call waits on.
  int peer = waited_peer();
  Clock::duration longest{};
  for (auto& c : connections_) {
    if (!c || c->departed() || pending_data_[c->peer_rank()]) continue;
    auto silent = now - std::max(c->last_received(), entered_);
    if (silent > longest && silent >= 2 * heartbeat_) longest = silent, peer = c->peer_rank();
  }
  comm_.log(fmt::format("rank {} waiting {:.0f} s on rank {} in {} {} step {}/{}{}", rank_, seconds(now - last_progress_),
                        peer, where_.algorithm, where_.collective, current_step() + 1, where_.steps,
                        longest.count() ? fmt::format(" (nothing heard from it for {:.0f} s)", seconds(longest)) : ""));
}

void Loop::fail_from_notice(Connection& from, const wire::AbortNotice& notice) {
  const int size = static_cast<int>(connections_.size());
  auto kind = notice.kind <= static_cast<uint16_t>(TransportErrorKind::Config) ? static_cast<TransportErrorKind>(notice.kind)
                                                                               : TransportErrorKind::Protocol;
  int failed = notice.failed_rank >= 0 && notice.failed_rank < size ? notice.failed_rank : -1;
  int detector = notice.detected_by >= 0 && notice.detected_by < size ? notice.detected_by : from.peer_rank();
  if (notice.view) comm_.view_gathering().received.push_back(*notice.view);
  fail(kind, failed, detector, from.peer_rank(), notice.cause);
}

void Loop::fail(TransportErrorKind kind, int failed, int detected_by, int reported_by, const std::string& cause) {
  ErrorFacts facts(kind, rank_, failed, cause);
  if (failed >= 0 && connections_[failed]) facts.peer_address = connections_[failed]->peer_address();
  facts.detected_by = detected_by;
  facts.reported_by = reported_by;
  facts.collective = where_.collective;
  facts.algorithm = where_.algorithm;
  facts.step = current_step();
  facts.steps = where_.steps;
  facts.seconds_into_call = seconds(Clock::now() - entered_);
  for (auto& s : sends)
    if (!s.finished() && ready(s))
      facts.unfinished.push_back(
          {true, s.connection->peer_rank(), s.connection->peer_address(), s.done, s.total()});
  for (auto& r : recvs)
    if (!r.finished() && ready(r))
      facts.unfinished.push_back({false, r.connection->peer_rank(), r.connection->peer_address(), r.done,
                                  r.header.size() + r.spec->payload.size()});
  update_flight(FlightEntry::State::Failed);
  note_heard_view();
  throw TransportError(std::move(facts));
}

void Loop::note_heard_view() {
  ViewGathering& views = comm_.view_gathering();
  if (views.mine) return;
  // Inside a frame from a peer its heartbeats cannot reach us: its silence says nothing (unknown).
  std::vector<char> unheard = pending_data_;
  for (auto& c : connections_)
    if (c && mid_frame_from(c->peer_rank())) views.mid_frame.push_back(c->peer_rank()), unheard[c->peer_rank()] = 1;
  views.mine = comm_.heard_view_now(unheard);
}

void Loop::record_flight() {
  FlightRecorder& recorder = comm_.flight_recorder();
  FlightEntry entry;
  entry.sequence = comm_.sequence();
  entry.set_names(where_.collective, where_.algorithm);
  entry.steps = where_.steps;
  entry.started = entered_;
  flight_ids_.clear();
  for (const auto& s : sends) {
    entry.step = s.step, entry.peer = s.connection->peer_rank(), entry.sending = true;
    entry.bytes_expected = s.total();
    flight_ids_.push_back(recorder.record(entry));
  }
  for (const auto& r : recvs) {
    entry.step = r.expected.step, entry.peer = r.connection->peer_rank(), entry.sending = false;
    entry.bytes_expected = r.header.size() + r.spec->payload.size();
    flight_ids_.push_back(recorder.record(entry));
  }
}

void Loop::update_flight(FlightEntry::State unfinished) {
  FlightRecorder& recorder = comm_.flight_recorder();
  // A call that finished ended when its last bytes moved: no clock read on the way out.
  const auto now = unfinished == FlightEntry::State::Done ? last_progress_ : Clock::now();
  auto update = [&](size_t index, uint64_t done, bool finished) {
    FlightEntry* entry = recorder.find(flight_ids_[index]);
    if (!entry) return;  // overwritten: a call of more frames than the ring holds
    entry->bytes_done = done;
    entry->state = finished ? FlightEntry::State::Done : unfinished;
    if (entry->state != FlightEntry::State::Waiting) entry->ended = now;
  };
  for (size_t i = 0; i < sends.size(); ++i) update(i, sends[i].done, sends[i].finished());
  for (size_t i = 0; i < recvs.size(); ++i) update(sends.size() + i, recvs[i].done, recvs[i].finished());
}

Clock::duration Loop::spin_budget(const Communicator& comm) {
  return std::chrono::duration_cast<Clock::duration>(comm.spin());
}

// With helper threads a call's bytes are shared among the streams: a slice for each, so that
// each socket's system call is as long as one stream's would be.
size_t Loop::write_slice(const Communicator& comm) {
  return comm.write_slice_bytes() * static_cast<size_t>(comm.stream_threads() > 1 ? comm.streams() : 1);
}

// A closed or broken connection is not yet a verdict (liveness.h): note it and carry on.
template <typename Operation>
bool Loop::guarded_progress(Operation& op) {
  if (!usable(*op.connection)) return false;
  try {
    return progress(op);
  } catch (const TransportError& e) {
    if (!is_connection_loss(e)) throw;
    return false;
  }
}

Loop::Pass Loop::try_every_operation_once() {
  Pass pass;
  for (auto& s : sends) {
    if (s.finished()) continue;
    pass.pending = true;
    if (ready(s)) pass.moved |= guarded_progress(s);
    if (s.finished()) trace_done(s);
  }
  for (auto& r : recvs) {
    if (r.finished()) continue;
    pass.pending = true;
    if (ready(r)) pass.moved |= guarded_progress(r);
    if (r.finished()) trace_done(r);
  }
  return pass;
}

// A bounded spin before sleeping (options.spin): waking a rank blocked in poll() costs 25-30 us
// per hop on a VM, more than a small message takes to arrive. Each retry yields the core (like
// Open MPI's yield-when-idle): with nothing else to run the call returns at once, and whatever
// does need the core runs without a wake-up, a peer sharing it or the kernel's own network work.
// Measured, 8 B recursive-doubling all-reduce: N=2 60-110 us -> 12-15 us (spin); N=4 on 2 cores
// 95-125 us -> 50-90 us (yielding spin); 4-32 MiB unchanged. A rank with a core to itself once
// spun without yielding, and across two namespace hosts (one rank each, tbf 1 Gbit/s) the
// softirq that sends tbf's released packets waited behind it: the 64 KiB ring took 2140 us, 532
// yielding, the link's own 524 (docs/performance.md).
bool Loop::keep_spinning(Clock::time_point now) const {
  if (now - last_progress_ >= spin_) return false;
  sched_yield();
  return true;
}

// The loop stalled: heartbeats out, then the verdicts on silent or closed peers, then the log.
void Loop::look_after_peers(Clock::time_point now) {
  std::fill(reading_.begin(), reading_.end(), 0);
  for (auto& r : recvs)
    if (!r.finished()) reading_[r.connection->peer_rank()] = 1;
  send_heartbeats(now);
  check_liveness(now);
  watchdog(now);
}

// Wait only on what can move: a send with bytes available to write, a receive that has begun, a
// half-written control frame, and every other connection for what it may bring (liveness). Then
// the stranger door's descriptors. Sets first_watched_ and first_door_.
void Loop::collect_poll_fds() {
  poll_fds_.clear();
  watched_.clear();
  for (auto& s : sends)
    if (!s.finished() && ready(s) && usable(*s.connection) && s.done < send_limit(s))
      poll_fds_.push_back({s.connection->fd(), POLLOUT, 0});
  for (auto& r : recvs)
    if (!r.finished() && ready(r) && usable(*r.connection)) poll_fds_.push_back({r.connection->read_fd(), POLLIN, 0});
  first_watched_ = poll_fds_.size();
  for (auto& c : connections_) {
    if (!c || !usable(*c)) continue;
    const short out = c->control_pending() && !c->sending_frame() ? POLLOUT : 0;
    const short in = !reading_[c->peer_rank()] && !pending_data_[c->peer_rank()] && !c->departed() ? POLLIN : 0;
    // With several streams the next byte out and the next byte in may be on different sockets.
    const bool one_socket = c->fd() == c->read_fd();
    if (out) poll_fds_.push_back({c->fd(), static_cast<short>(out | (one_socket ? in : 0)), 0});
    if (in && (!out || !one_socket)) poll_fds_.push_back({c->read_fd(), in, 0});
    while (watched_.size() < poll_fds_.size() - first_watched_) watched_.push_back(c.get());
  }
  flight_signal_at_ = poll_fds_.size();
  if (comm_.flight_signal_fd() >= 0) poll_fds_.push_back({comm_.flight_signal_fd(), POLLIN, 0});
  first_door_ = poll_fds_.size();
  strangers_.add_poll_fds(poll_fds_);
}

// After poll(): lets the stranger door in, and reads control frames from the watched connections.
void Loop::handle_poll_events() {
  // The door costs a syscall only when someone knocked or a stranger is being read.
  bool knocked = strangers_.busy();
  for (size_t i = first_door_; i < poll_fds_.size() && !knocked; ++i) knocked = poll_fds_[i].revents != 0;
  if (knocked) strangers_.service();
  if (flight_signal_at_ < first_door_ && poll_fds_[flight_signal_at_].revents) {
    update_flight(FlightEntry::State::Waiting);
    comm_.on_flight_signal();
  }
  for (size_t i = first_watched_; i < flight_signal_at_; ++i) {
    if (!(poll_fds_[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Connection& c = *watched_[i - first_watched_];
    if (reading_[c.peer_rank()] || c.departed()) continue;
    try {
      watch(c);
    } catch (const TransportError& e) {
      if (!is_connection_loss(e)) throw;
    }
  }
}

void Loop::trace_entry() const {
  if (!debug::enabled(debug::Level::Trace, debug::Subsys::Coll)) return;
  debug::trace(debug::Subsys::Coll, rank_, "{} {} call #{} step {}/{}: {} send(s), {} receive(s)", where_.algorithm,
               where_.collective, comm_.sequence(), where_.step + 1, where_.steps, sends.size(), recvs.size());
}

void Loop::trace_done(const SendState& s) const {
  if (!debug::enabled(debug::Level::Trace, debug::Subsys::Coll)) return;
  debug::trace(debug::Subsys::Coll, rank_, "{} {} call #{} step {}/{}: sent {} B to rank {}, {:.1f} us into the call",
               where_.algorithm, where_.collective, comm_.sequence(), s.step + 1, where_.steps, s.payload.size(),
               s.connection->peer_rank(), seconds(Clock::now() - entered_) * 1e6);
}

void Loop::trace_done(const RecvState& r) const {
  if (!debug::enabled(debug::Level::Trace, debug::Subsys::Coll)) return;
  debug::trace(debug::Subsys::Coll, rank_,
               "{} {} call #{} step {}/{}: received {} B from rank {}, {:.1f} us into the call", where_.algorithm,
               where_.collective, comm_.sequence(), r.spec->step + 1, where_.steps, r.spec->payload.size(),
               r.connection->peer_rank(), seconds(Clock::now() - entered_) * 1e6);
}

void Loop::run() {
  entered_ = last_progress_ = heard_floor_ = last_check_ = Clock::now();
  record_flight();
  next_watchdog_ = entered_ + options_.watchdog_interval;
  trace_entry();
  if (options_.fault_hook) options_.fault_hook(rank_, comm_.sequence(), false);
  bool waited = false;
  for (;;) {
    const Pass pass = try_every_operation_once();
    if (!pass.pending) {
      update_flight(FlightEntry::State::Done);
      return;
    }
    const auto now = Clock::now();
    if (pass.moved) {
      last_progress_ = now;
      continue;
    }
    if (!waited && options_.fault_hook) {
      waited = true;
      options_.fault_hook(rank_, comm_.sequence(), true);
      continue;  // after a stall, take in what arrived meanwhile before judging anyone
    }
    if (keep_spinning(now)) continue;
    look_after_peers(now);
    collect_poll_fds();
    // Short waits: liveness is re-evaluated a few times a second even when nothing arrives.
    ::poll(poll_fds_.data(), poll_fds_.size(), 200);
    handle_poll_events();
  }
}

RecvState make_recv(Connection& connection, RecvSpec& spec, uint64_t sequence, size_t piece) {
  if (!spec.staging.empty() && (!spec.on_arrival || spec.staging.size() % piece != 0))
    throw std::invalid_argument(fmt::format("a staging ring of {} bytes needs on_arrival and a multiple of the "
                                            "{}-byte pipeline piece",
                                            spec.staging.size(), piece));
  wire::FrameHeader expected{wire::kFrameMagic, wire::FrameKind::Data, sequence, spec.step, spec.payload.size()};
  RecvState state{&connection, &spec, expected};
  state.piece = piece;
  return state;
}

SendState make_send(Connection& connection, const SendSpec& spec, uint64_t sequence) {
  wire::FrameHeader header{wire::kFrameMagic, wire::FrameKind::Data, sequence, spec.step, spec.payload.size()};
  return SendState{&connection, wire::encode(header), spec.payload, spec.step};
}

}  // namespace

void Communicator::exchange(std::span<const SendSpec> sends, std::span<RecvSpec> receives, const StepContext& where) {
  quiesce();
  if (failure_) throw *failure_;
  Loop loop(*this, connections_, strangers(), where);
  loop.sends.reserve(sends.size());
  loop.recvs.reserve(receives.size());
  for (const auto& s : sends) loop.sends.push_back(make_send(peer(s.peer), s, sequence_));
  for (auto& r : receives) loop.recvs.push_back(make_recv(peer(r.peer), r, sequence_, pipeline_piece(r.granule)));
  try {
    loop.run();
  } catch (const TransportError& e) {
    abort_job(e);
    throw *failure_;  // the verdict, which the heard views may have changed
  }
}

void Communicator::ring_stream(std::span<const SendSpec> sends, std::span<RecvSpec> receives, const StepContext& where) {
  quiesce();
  if (failure_) throw *failure_;
  Loop loop(*this, connections_, strangers(), where);
  loop.sends.reserve(sends.size());
  loop.recvs.reserve(receives.size());
  for (size_t k = 0; k < sends.size(); ++k) {
    loop.sends.push_back(make_send(peer(sends[k].peer), sends[k], sequence_));
    if (k > 0) {
      loop.sends.back().after = static_cast<int>(k - 1);
      if (sends[k].fed_by_previous) loop.sends.back().feed = static_cast<int>(k - 1);
    }
  }
  for (size_t k = 0; k < receives.size(); ++k) {
    loop.recvs.push_back(make_recv(peer(receives[k].peer), receives[k], sequence_, pipeline_piece(receives[k].granule)));
    if (k > 0) loop.recvs.back().after = static_cast<int>(k - 1);
  }
  try {
    loop.run();
  } catch (const TransportError& e) {
    abort_job(e);
    throw *failure_;  // the verdict, which the heard views may have changed
  }
}

}  // namespace ringbench
