// The survivors' exchange of heard views when a job fails, and the verdict it supports
// (heard_views.h): Communicator::heard_view_now, gather_views and verdict_from_views.
//
// Each failing rank's Abort notice carries its own view (abort.cpp), sent to every peer it still
// hears. After sending, a rank reads notices, for a bounded moment (close_grace: at most 1.5 s),
// on connections whose stream stands at a frame boundary (a data frame in the way ends reading
// that one), and relays each view it learns once; it stops early once it holds the view of every
// rank any view hears. With one end of a silent link and one witness that hears the other end,
// the verdict names the link.

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "communicator.h"
#include "liveness.h"
#include "wire.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;
using Heard = PeerHeardState::Heard;

uint32_t ms(Clock::duration d) {
  const auto count = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return static_cast<uint32_t>(std::clamp<int64_t>(count, 0, UINT32_MAX));
}

bool alive_in(const HeardView& view, int peer) {
  for (const auto& p : view.peers)
    if (p.peer == peer) return p.heard == Heard::Alive;
  return false;
}

// Reads what is at the head of `c` without waiting: heartbeats are consumed; Abort notices are
// consumed and their views kept. True when nothing more can come from `c` (closed, or a data
// frame, a Bye or garbage in the way).
bool read_notices(Connection& c, std::vector<std::byte>& buffer, std::vector<HeardView>& received) {
  constexpr size_t kHeader = wire::kFrameHeaderBytes;
  for (;;) {
    if (c.state() != Connection::State::Connected) return true;
    size_t n = c.peek(buffer.data(), kHeader);
    if (n < kHeader) return false;
    const auto h = wire::decode_frame_header(buffer.data());
    if (h.magic != wire::kFrameMagic || h.kind == wire::FrameKind::Data || h.kind == wire::FrameKind::Bye) return true;
    if (h.kind == wire::FrameKind::Abort &&
        (h.length < wire::kAbortNoticeFixedBytes || h.length > wire::kMaxAbortNoticeBytes))
      return true;
    const size_t whole = kHeader + (h.kind == wire::FrameKind::Abort ? h.length : 0);
    if (c.peek(buffer.data(), whole) < whole) return false;  // the rest follows at once
    iovec iov{buffer.data(), whole};
    c.record_received(c.read_some(&iov, 1), 0);
    if (h.kind != wire::FrameKind::Abort) continue;  // a heartbeat
    auto notice = wire::decode_abort(buffer.data() + kHeader, h.length);
    if (notice && notice->view) received.push_back(*notice->view);
  }
}

// Every rank some view hears, or that sent a view, has its view among `views`.
bool every_live_view_held(const std::vector<HeardView>& views) {
  std::set<int> held, alive;
  for (const auto& v : views) {
    held.insert(v.rank);
    for (const auto& p : v.peers)
      if (p.heard == Heard::Alive) alive.insert(p.peer);
  }
  for (int r : alive)
    if (!held.count(r)) return false;
  return true;
}

}  // namespace

HeardView Communicator::heard_view_now(std::span<const char> data_waiting) const {
  const auto now = Clock::now();
  const uint32_t silent_after = ms(liveness::recently(options_.timeout));
  HeardView view{rank_, {}};
  for (const auto& c : connections_) {
    if (!c) continue;
    const bool closed = c->state() != Connection::State::Connected && !c->departed();
    const uint32_t age = ms(now - c->last_received());
    const int p = c->peer_rank();
    const bool waiting = static_cast<size_t>(p) < data_waiting.size() && data_waiting[p];
    view.peers.push_back({p, c->departed() ? Heard::Alive : classify_heard(age, closed, waiting, silent_after), age});
  }
  return view;
}

// Views travel further than one hop: each view learned is relayed once, as a notice of its own,
// to every peer this rank hears and can write a whole frame to. A rank inside a frame to a peer
// cannot tell it anything, so in a stuck pipeline the views go round the others instead.
void Communicator::gather_views(wire::AbortNotice notice, std::chrono::milliseconds budget) {
  std::vector<HeardView> views{*views_.mine};
  views.insert(views.end(), views_.received.begin(), views_.received.end());
  std::set<int> relayed{rank_};  // our own went out with the first notice
  std::vector<Connection*> reading;
  for (auto& c : connections_)
    if (c && c->state() == Connection::State::Connected && !c->departed() &&
        std::find(views_.mid_frame.begin(), views_.mid_frame.end(), c->peer_rank()) == views_.mid_frame.end())
      reading.push_back(c.get());
  std::vector<std::byte> buffer(wire::kFrameHeaderBytes + wire::kMaxAbortNoticeBytes);
  const auto give_up = Clock::now() + budget;
  for (;;) {
    for (const HeardView& v : views) {
      if (!relayed.insert(v.rank).second) continue;
      notice.view = v;
      const auto frame = wire::encode_abort(notice);
      for (auto& c : connections_)
        if (c && c->state() == Connection::State::Connected && !c->departed() && !c->sending_frame() &&
            c->peer_rank() != v.rank && alive_in(*views_.mine, c->peer_rank()))
          c->queue_control(frame);
    }
    std::vector<pollfd> fds;
    for (auto& c : connections_) {
      try {
        if (c && c->state() == Connection::State::Connected && !c->flush_control()) fds.push_back({c->fd(), POLLOUT, 0});
      } catch (const TransportError&) {
      }
    }
    std::vector<Connection*> left;
    for (Connection* c : reading) {
      bool done = true;
      std::vector<HeardView> arrived;
      try {
        done = read_notices(*c, buffer, arrived);
      } catch (const TransportError&) {
        // Closed or broken: nothing more from it.
      }
      for (auto& v : arrived)
        if (std::none_of(views.begin(), views.end(), [&](const HeardView& h) { return h.rank == v.rank; }))
          views.push_back(std::move(v));
      if (!done) left.push_back(c), fds.push_back({c->read_fd(), POLLIN, 0});
    }
    reading = left;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now()).count();
    if (wait <= 0 || (every_live_view_held(views) && relayed.size() == views.size())) break;
    ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long>(wait, 20)));
  }
  views_.received.assign(views.begin() + 1, views.end());
}

TransportError Communicator::verdict_from_views(const TransportError& failure) {
  std::vector<HeardView> views{*views_.mine};
  views.insert(views.end(), views_.received.begin(), views_.received.end());
  const HeardVerdict verdict = combine_views(views);
  if (verdict.kind != HeardVerdict::Kind::Link) return failure;
  auto host = [this](int r) { return r >= 0 && r < static_cast<int>(cards_.size()) ? cards_[r].host.hostname : "?"; };
  ErrorFacts facts = failure.facts();
  facts.kind = TransportErrorKind::Timeout;
  facts.peer = -1;
  facts.peer_address.clear();
  facts.what = fmt::format("link {}<->{} ({} <-> {}) silent for {:.1f} s; both ends alive to all others",
                           verdict.rank, verdict.other, host(verdict.rank), host(verdict.other),
                           verdict.silent_ms / 1000.0);
  return TransportError(std::move(facts));
}

}  // namespace ringbench
