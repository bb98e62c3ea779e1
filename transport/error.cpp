#include "error.h"

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace ringbench {
namespace {

// "detected by this rank", "detected by rank 1" or "detected by rank 1, reported by rank 0".
std::string detection(const ErrorFacts& f) {
  if (f.detected_by == f.rank) return "detected by this rank";
  if (f.reported_by < 0 || f.reported_by == f.detected_by) return fmt::format("detected by rank {}", f.detected_by);
  return fmt::format("detected by rank {}, reported by rank {}", f.detected_by, f.reported_by);
}

}  // namespace

const char* to_string(TransportErrorKind kind) {
  switch (kind) {
    case TransportErrorKind::PeerClosed: return "peer closed";
    case TransportErrorKind::Timeout: return "timed out";
    case TransportErrorKind::Protocol: return "protocol error";
    case TransportErrorKind::Handshake: return "handshake failed";
    case TransportErrorKind::System: return "system error";
    case TransportErrorKind::Config: return "configuration error";
  }
  return "unknown";
}

std::string describe(const ErrorFacts& f) {
  std::string text;
  if (f.rank >= 0) text += fmt::format("rank {}: ", f.rank);
  if (f.detected_by >= 0 && f.peer >= 0) text += fmt::format("rank {} failed: ", f.peer);
  text += f.what;
  if (f.error_number != 0) text += (f.what.empty() ? "" : ": ") + system_error_text(f.syscall, f.error_number);
  if (f.detected_by >= 0) text += " (" + detection(f) + ")";
  if (!f.hint.empty()) text += "; " + f.hint;
  if (!f.collective.empty())
    text += fmt::format("; this rank was in {} {} step {}/{}", f.algorithm, f.collective, f.step + 1, f.steps);
  if (f.seconds_into_call) text += fmt::format(", {:.1f} s into the call", *f.seconds_into_call);
  for (const UnfinishedTransfer& t : f.unfinished)
    text += fmt::format("; {} {}: {} of {} bytes", t.sending ? "send to" : "recv from",
                        describe_peer(t.peer, t.peer_address), t.bytes_done, t.bytes_expected);
  return text;
}

std::string describe_peer(int rank, const std::string& address) { return fmt::format("rank {} ({})", rank, address); }

std::string system_error_text(const std::string& call, int err) {
  return call + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
}

}  // namespace ringbench
