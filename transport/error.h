#pragma once
// The one exception type the transport throws. Every fact about a failure is a field of
// ErrorFacts (rank, peer, step, bytes, errno, ...), and what() is formatted from those fields in
// one place (describe(), error.cpp), so the message names this rank, the peer (rank and
// address) and what was going on, and a caller can print what() and exit, or read the fields.

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringbench {

enum class TransportErrorKind {
  PeerClosed,   // the peer closed or reset the connection: it probably died
  Timeout,      // no byte moved for the no-progress deadline
  Protocol,     // the peer sent something the protocol does not allow (desync, corruption)
  Handshake,    // connection set-up failed (refused, rejected, wrong secret)
  System,       // a system call failed for another reason
  Config,       // the options cannot work (unknown interface, ...)
};

const char* to_string(TransportErrorKind kind);

// One frame of the failed call that had started but not finished: how far it got.
struct UnfinishedTransfer {
  bool sending = false;      // a send to `peer`, else a receive from it
  int peer = -1;
  std::string peer_address;  // "127.0.0.1:41235"
  uint64_t bytes_done = 0;   // frame header and payload bytes moved so far
  uint64_t bytes_expected = 0;
};

// Everything known about one failure. The constructor takes what every error has; a field left
// at its default is unknown and left out of the message.
struct ErrorFacts {
  ErrorFacts(TransportErrorKind kind_, int rank_, int peer_, std::string what_)
      : kind(kind_), rank(rank_), peer(peer_), what(std::move(what_)) {}

  TransportErrorKind kind;
  int rank;  // the rank that raised the error (-1: not known yet)
  // The peer the failure concerns: the rank blamed when detected_by is set, else the peer whose
  // connection or handshake failed (-1: no single peer).
  int peer;
  std::string peer_address;
  // What happened, in words, without the facts below: "closed its connection 127.0.0.1:51940
  // without a goodbye: the process probably died (check its log)". It may name the peer.
  std::string what;
  // The system call that failed and its errno (0: no system call failed).
  std::string syscall;
  int error_number = 0;
  std::string hint;  // what to check next, where the cause suggests something
  // For a failure the liveness machinery attributed (progress.cpp): the rank that detected it,
  // and the rank whose Abort notice told this rank (-1: this rank detected it, or no verdict).
  int detected_by = -1;
  int reported_by = -1;
  // Where this rank was: "ring allreduce step 5/6, 1.6 s into the call" (empty: not in a call).
  std::string collective;
  std::string algorithm;
  uint32_t step = 0;   // 0-based, as on the wire; printed 1-based
  uint32_t steps = 0;  // steps of the call
  std::optional<double> seconds_into_call;
  std::vector<UnfinishedTransfer> unfinished;
};

// The message of `facts`, e.g. "rank 3: rank 2 failed: <what> (detected by rank 1, reported by
// rank 0); this rank was in ring allreduce step 6/6, 1.6 s into the call; recv from rank 2
// (127.0.0.1:43111): 32 of 36 bytes". The one place a fact becomes text.
std::string describe(const ErrorFacts& facts);

class TransportError : public std::runtime_error {
 public:
  explicit TransportError(ErrorFacts facts)
      : std::runtime_error(describe(facts)), facts_(std::make_shared<const ErrorFacts>(std::move(facts))) {}
  const ErrorFacts& facts() const { return *facts_; }
  TransportErrorKind kind() const { return facts_->kind; }
  // The peer the failure was observed on (the failed rank, for a verdict), or -1.
  int peer_rank() const { return facts_->peer; }
  // The rank that detected the failure, for a verdict of the liveness machinery, else -1.
  int detected_by() const { return facts_->detected_by; }

 private:
  std::shared_ptr<const ErrorFacts> facts_;  // shared: copying an exception must not throw
};

// "rank 2 (127.0.0.1:41235)": how every message names a peer.
std::string describe_peer(int rank, const std::string& address);

// "connect: Connection refused (errno 111)" for a failed system call.
std::string system_error_text(const std::string& call, int err);

}  // namespace ringbench
