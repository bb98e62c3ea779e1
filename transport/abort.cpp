// How a failure spreads and how a clean run ends: Communicator::abort_job and say_goodbye.
//
// The rank that decides a peer has failed (progress.cpp) writes an Abort notice (failed rank,
// detector, kind, cause) on every connection it can still write a whole frame on: not the failed
// peer, not a connection that is closed, and not one where a data frame is half written (the
// notice would land inside its payload). Each receiver fails with the same diagnosis and relays it
// once the same way, so a survivor cut off from the detector still hears it through another rank.
// Both writes are bounded in time: a peer that does not read cannot hold us. The notice carries
// this rank's heard view; the views of the others are then gathered, for a bounded moment, and
// may turn the verdict from a rank into a link (view_exchange.cpp). Then the flight recorder is
// dumped (flight_recorder.h), with this rank's diagnosis.

#include <poll.h>

#include <chrono>

#include <fmt/format.h>

#include "communicator.h"
#include "liveness.h"
#include "progress_thread.h"
#include "wire.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;

// Writes every connection's queued control frames, waiting at most `budget` in all.
void flush_all(std::vector<Connection*>& targets, std::chrono::milliseconds budget) {
  const auto give_up = Clock::now() + budget;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Connection*> left;
    for (Connection* c : targets) {
      try {
        if (c->state() == Connection::State::Connected && !c->flush_control()) {
          fds.push_back({c->fd(), POLLOUT, 0});
          left.push_back(c);
        }
      } catch (const TransportError&) {
        // Gone: nothing more to tell it.
      }
    }
    targets = left;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now()).count();
    if (fds.empty() || wait <= 0) return;
    ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long>(wait, 50)));
  }
}

bool heard_alive(const HeardView& view, int peer) {
  for (const auto& p : view.peers)
    if (p.peer == peer) return p.heard == PeerHeardState::Heard::Alive;
  return false;
}

}  // namespace

void Communicator::abort_job(const TransportError& detected) {
  if (failure_) return;
  if (!views_.mine) views_.mine = heard_view_now();
  wire::AbortNotice notice;
  notice.failed_rank = detected.peer_rank();
  notice.detected_by = detected.detected_by() >= 0 ? detected.detected_by() : rank_;
  notice.kind = static_cast<uint16_t>(detected.kind());
  // A verdict travels as its cause alone: each receiver adds its own context.
  notice.cause = detected.detected_by() >= 0 ? detected.facts().what : detected.what();
  notice.view = views_.mine;
  const auto frame = wire::encode_abort(notice);
  std::vector<Connection*> targets;
  std::string told;
  // Every peer this rank still hears, the blamed one too: it may be one end of a silent link.
  for (auto& c : connections_) {
    if (!c || c->state() != Connection::State::Connected || c->departed() || c->sending_frame() ||
        (c->peer_rank() == notice.failed_rank && !heard_alive(*views_.mine, c->peer_rank())))
      continue;
    c->queue_control(frame);
    targets.push_back(c.get());
    told += (told.empty() ? "" : ", ") + std::to_string(c->peer_rank());
  }
  flush_all(targets, std::chrono::milliseconds(500));
  gather_views(notice, liveness::close_grace(options_.timeout));
  failure_ = verdict_from_views(detected);
  // Calls started after this one, or queued behind it, fail with the same error at once.
  if (progress_) progress_->note_failure(std::make_exception_ptr(*failure_));
  if (!told.empty()) log(fmt::format("told rank(s) {} to abort", told));
  // After the notices, so that writing the dump never delays the others' verdict.
  dump_flight("failure", &*failure_);
}

void Communicator::say_goodbye() {
  if (failure_) return;
  static const auto bye = wire::control_header(wire::FrameKind::Bye);
  std::vector<Connection*> targets;
  for (auto& c : connections_) {
    if (!c || c->state() != Connection::State::Connected || c->sending_frame()) continue;
    c->queue_control(bye);
    targets.push_back(c.get());
  }
  flush_all(targets, std::chrono::milliseconds(200));
}

}  // namespace ringbench
