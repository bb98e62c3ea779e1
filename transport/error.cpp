#include "error.h"

#include <cstring>
#include <string>

namespace ringbench {

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

std::string system_error_text(const char* call, int err) {
  return std::string(call) + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
}

}  // namespace ringbench
