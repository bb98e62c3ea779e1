#pragma once
// How the survivors of a failure agree on who failed (--on-failure shrink), over fresh connections
// of their own: the streams of the failed call may end inside a data frame, so none is reused.
//
// Each survivor starts from its own verdict (the failed rank that liveness named, liveness.h) and:
//   1. connects to every lower rank it does not suspect (recovery hello, recovery_wire.h) and
//      accepts from every higher one, through its listener (or the stranger door, which keeps the
//      knocks that arrive while this rank is still in the failed call);
//   2. runs rounds: in round r it sends its suspect set to every rank it does not suspect and waits
//      for theirs, at most round_limit. A rank whose message does not arrive in time, or whose
//      connection closes or is refused, becomes a suspect; sets received are merged in. A round in
//      which this rank's set did not change and every set received equals it is stable;
//   3. after a stable round it sends a commit carrying the set, and waits for the same commit from
//      every member: the members are exactly the ranks outside the set.
// Termination: a suspect set only grows, and in every round that is not stable for some rank, some
// rank's set grows (the one that differed receives the larger set, or suspects its sender). Sets
// hold at most N-1 ranks, so there are at most N(N-1) unstable rounds, each bounded by round_limit;
// without a further failure the first round is stable. A further failure during the agreement (a
// death: its connections close; a freeze: its message is late) only adds a suspect and a round.
// What it cannot do (no protocol over unreliable timing can) is agree when a rank fails between
// its sends of one round, so that some survivors heard it and others did not: the commit then
// carries different sets, and every rank that sees the difference fails with both sets named
// rather than go on with a different membership.
//
// A rank that finds itself in another's set (it slept through a failure, e.g. SIGSTOP, and was
// declared failed), or whose knock is answered Fenced, throws Fenced: it must exit. A rank that
// hears from nobody, or that finds every connection closed, knocks on every rank's listener to
// learn whether the others went on without it (their stranger door answers Fenced).

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "fd.h"
#include "strangers.h"

namespace ringbench {

// This rank was declared failed by the others, who went on without it.
class Fenced : public TransportError {
 public:
  using TransportError::TransportError;
};

struct AgreementInput {
  int rank = 0;
  int size = 0;
  uint32_t to_epoch = 1;
  uint64_t secret = 0;
  std::vector<std::string> addresses;  // by rank: where it listens
  std::vector<uint16_t> ports;
  int listener = -1;  // not owned
  std::vector<StrangerDoor::Knock> knocks;
  std::vector<int> suspects;  // this rank's own verdict
  // Every peer closed its connection to this rank: the mark of a rank the others left behind
  // (they close the failed epoch's connections once they have rebuilt). It knocks first.
  bool everyone_left = false;
  uint64_t sequence = 0;      // the last collective this rank began
  std::chrono::milliseconds round_limit{2000};
  std::function<void(std::string_view)> log;
};

// A new connection to one member, with every byte the agreement moved over it (for the counters).
struct AgreedLink {
  int peer = -1;
  Fd fd;
  std::string address;
  bool opened_by_us = false;
  uint64_t sent = 0, received = 0;
};

struct Agreement {
  std::vector<int> failed;   // ascending
  std::vector<int> members;  // ascending, this rank included
  uint64_t sequence = 0;     // the highest collective sequence any member began
  int rounds = 0;            // rounds until stable
  std::vector<AgreedLink> links;  // one per member but this rank, ascending
};

// The round limit for a --timeout (0: wait forever, where a round still needs a bound): the
// timeout, at least 1 s; 10 s for 0.
std::chrono::milliseconds agreement_round_limit(std::chrono::milliseconds timeout);

// Runs the agreement (blocks for at most (rounds + 1) x round_limit). Throws Fenced, or a
// TransportError when the survivors cannot agree.
Agreement agree_on_failures(AgreementInput input);

}  // namespace ringbench
