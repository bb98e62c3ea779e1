#pragma once
// The one exception type the transport throws. Every message already names this rank, the peer
// (rank and address) and what was going on, so a caller can print what() and exit.

#include <stdexcept>
#include <string>

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

class TransportError : public std::runtime_error {
 public:
  TransportError(TransportErrorKind kind, int peer_rank, const std::string& message)
      : std::runtime_error(message), kind_(kind), peer_rank_(peer_rank) {}
  TransportErrorKind kind() const { return kind_; }
  // The peer the failure was observed on, or -1 when no single peer is involved.
  int peer_rank() const { return peer_rank_; }

  // For a failure the liveness machinery attributed (progress.cpp): the rank blamed (peer_rank),
  // the rank that detected it, and the cause without this rank's context, as an Abort notice
  // carries it to the other ranks.
  TransportError& diagnosis(int detected_by, std::string cause) {
    detected_by_ = detected_by;
    cause_ = std::move(cause);
    return *this;
  }
  int detected_by() const { return detected_by_; }
  const std::string& cause() const { return cause_; }

 private:
  TransportErrorKind kind_;
  int peer_rank_;
  int detected_by_ = -1;
  std::string cause_;
};

// "connect: Connection refused (errno 111)" for a failed system call.
std::string system_error_text(const char* call, int err);

}  // namespace ringbench
