#pragma once
// Heard views: what each rank hears of each peer when a job fails, and the verdict all of them
// together support. Pure logic: no sockets (the views travel in Abort notices, wire.h/abort.cpp).
//
// Why: one rank's silence verdict cannot tell a dead rank from a dead link. When the connection
// between ranks 1 and 2 drops everything, rank 1 hears nothing from 2 and rank 2 nothing from 1, so
// each blames the other, and the ranks that hear first from one end repeat its blame. Everybody
// else still hears both. Put side by side, the views say so:
//   - a rank is failed when some view finds it silent and no view hears it (and it sent no view:
//     a rank that sent one is alive);
//   - a link is failed when one end finds the other silent while some third rank hears that
//     other end (or the other end sent a view itself): both ends are alive, the link between is not.
// A verdict needs exactly one failed rank and no failed link, or exactly one failed link and no
// failed rank; anything else is unknown, and the caller keeps its own diagnosis. Every survivor
// that holds views enough to see the same failure reaches the same verdict: the rules use only
// which ranks are silent to which, never how long ago, which differ from rank to rank.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringbench {

// One rank's view of one peer.
struct PeerHeardState {
  enum class Heard : uint8_t { Alive = 0, Silent = 1, Unknown = 2 };
  int peer = -1;
  Heard heard = Heard::Unknown;
  uint32_t age_ms = 0;  // since anything last arrived from it (saturating)
};

// One rank's view of every peer, taken when it failed or learned of the failure.
struct HeardView {
  int rank = -1;
  std::vector<PeerHeardState> peers;
};

struct HeardVerdict {
  enum class Kind { Unknown, Rank, Link };
  Kind kind = Kind::Unknown;
  int rank = -1;         // Rank: the failed rank; Link: the lower end
  int other = -1;        // Link: the higher end
  uint32_t silent_ms = 0;  // the longest silence any view reports across it
};

const char* to_string(HeardVerdict::Kind kind);

// What a failing rank gathers for the verdict (view_exchange.cpp): its own view, taken where it
// failed, the views that came in Abort notices, and the peers whose streams to it stand inside a
// data frame (no notice can be found there, so none is waited for).
struct ViewGathering {
  std::optional<HeardView> mine;
  std::vector<HeardView> received;
  std::vector<int> mid_frame;
};

// Classifies one peer: silent for at least `silent_after_ms` (or its connection closed) is Silent,
// heard more recently is Alive; a peer whose data waits unread (its heartbeats queue behind it) and
// was not heard recently is Unknown.
PeerHeardState::Heard classify_heard(uint32_t age_ms, bool closed, bool data_waiting, uint32_t silent_after_ms);

// The verdict `views` support (at most one view per rank is used: the first).
HeardVerdict combine_views(const std::vector<HeardView>& views);

}  // namespace ringbench
